import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/route.js';
import { routeList } from '../../functions/routes.js';
import { keys } from '../../functions/store/keys.js';
import { TABLE_SCHEMA } from '../../functions/store/schema.js';
import { expiredInstance } from '../../functions/userdata/on-instance-expired.js';
import { ProcessDefinitionSchema } from '../../statemachines/definition.js';
import {
  asArray,
  ofType,
  pascal,
  refId,
  resourceAt,
  statementsOf,
  synthesize,
  unacknowledgedNagFindings,
  type Resource,
  type Statement,
  type Synthesized,
  routeFunctionPath,
} from './support.js';

const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const OBJECT_ACTIONS = ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'];

/**
 * Lambda event filtering as the clean-up's pattern uses it: nested objects, and arrays of exact
 * values (a field matches when its value is one of them; a missing field never matches).
 */
function filterMatches(pattern: Record<string, unknown>, event: unknown): boolean {
  return Object.entries(pattern).every(([field, want]) => {
    const value = event && typeof event === 'object' ? (event as Record<string, unknown>)[field] : undefined;
    if (Array.isArray(want)) {
      if (!want.every((w) => ['string', 'number', 'boolean'].includes(typeof w))) throw new Error(`unsupported filter rule at ${field}`);
      return want.includes(value);
    }
    return filterMatches(want as Record<string, unknown>, value);
  });
}

/** A DynamoDB stream record (KEYS_ONLY) as Lambda hands it over. */
function streamRecord(opts: { eventName: string; key: { PK: string; SK: string }; ttl?: boolean }): Record<string, unknown> {
  return {
    eventID: 'c81e728d9d4c2f636f067f89cc14862c',
    eventName: opts.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_767_225_600,
      Keys: { [TABLE_SCHEMA.partitionKey]: { S: opts.key.PK }, [TABLE_SCHEMA.sortKey]: { S: opts.key.SK } },
      SequenceNumber: '4421584500000000017450439091',
      SizeBytes: 60,
      StreamViewType: 'KEYS_ONLY',
    },
    // Only DynamoDB's own TTL deletions carry a userIdentity.
    ...(opts.ttl ? { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } } : {}),
    eventSourceARN: 'arn:aws:dynamodb:eu-west-1:111122223333:table/T/stream/2026-01-01T00:00:00.000',
  };
}

describe('ArthrStack images', () => {
  let synth: Synthesized;
  let template: Template;
  let tableId: string;
  let bucketId: string;
  let bucket: Resource;
  let logBucketId: string;
  let logBucket: Resource;
  let keyId: string;
  let key: Resource;
  let cleanupId: string;
  let cleanup: Resource;
  let queueId: string;
  let mapping: Resource;

  const bucketArn = () => ({ 'Fn::GetAtt': [bucketId, 'Arn'] });
  const imageObjects = () => ({ 'Fn::Join': ['', [bucketArn(), '/tenants/*']] });
  const keyArn = () => ({ 'Fn::GetAtt': [keyId, 'Arn'] });

  /** The route's function resource. */
  const functionFor = (route: RouteDef) => resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(route))[1];
  /** A function's tenant role (TENANT_ROLE_ARN), which holds its grants on tenants' images (lib/constructs/tenant-role.ts). */
  const tenantRoleOf = (f: Resource) => refId(f.Properties.Environment?.Variables?.TENANT_ROLE_ARN);
  /** Everything a function may do: its own role's statements and its tenant role's. */
  const grantsOf = (f: Resource): Statement[] => [...statementsOf(template, refId(f.Properties.Role)!), ...(tenantRoleOf(f) ? statementsOf(template, tenantRoleOf(f)!) : [])];
  /** A tenant session's objects: `tenants/${aws:PrincipalTag/arthr-tenant}/*` (tenant-iam.test.ts evaluates them). */
  const tenantObjects = () => ({ 'Fn::Join': ['', [bucketArn(), '/tenants/${aws:PrincipalTag/arthr-tenant}/*']] });
  /** A policy statement's parts that name the images bucket or its key. */
  const touchesImages = (s: Statement) => {
    const text = JSON.stringify(s.Resource);
    return text.includes(`"${bucketId}"`) || text.includes(`"${keyId}"`);
  };
  const imagesOf = (route: RouteDef) => route.aws.images ?? [];
  const bucketPolicyOf = (id: string) => {
    const policies = Object.values(ofType(template, 'AWS::S3::BucketPolicy')).filter((p) => refId(p.Properties.Bucket) === id);
    expect(policies).toHaveLength(1);
    return asArray<Statement & { Principal?: unknown }>(policies[0]!.Properties.PolicyDocument.Statement);
  };

  beforeAll(() => {
    // Template only: the bundles are checked in stack.test.ts.
    synth = synthesize({}, { bundle: false });
    template = synth.template;
    tableId = Object.keys(ofType(template, 'AWS::DynamoDB::Table'))[0]!;
    [bucketId, bucket] = resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Images/Bucket');
    [logBucketId, logBucket] = resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Images/AccessLogs');
    [keyId, key] = resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/Images/Key');
    [cleanupId, cleanup] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Images/Cleanup/Function');
    [queueId] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Images/CleanupDeadLetters');
    mapping = resourceAt(template, 'AWS::Lambda::EventSourceMapping', 'ArthrStack/Images/InstanceExpiry')[1];
  }, 120_000);

  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  describe('bucket', () => {
    it('is the only bucket besides its access-log bucket, the exports bucket (test/infra/exports.test.ts) and the pages bucket (test/infra/pages.test.ts)', () => {
      const exportsBucketId = resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Exports/Bucket')[0];
      const pagesBucketId = resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Pages/Bucket')[0];
      expect(Object.keys(ofType(template, 'AWS::S3::Bucket')).sort()).toEqual([bucketId, logBucketId, exportsBucketId, pagesBucketId].sort());
    });

    it('blocks all public access, has no ACLs and refuses plain HTTP and TLS below 1.2', () => {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
      const statements = bucketPolicyOf(bucketId).filter((s) => s.Action === 's3:*');
      const both = [bucketArn(), { 'Fn::Join': ['', [bucketArn(), '/*']] }];
      expect(statements).toEqual([
        { Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Resource: both },
        { Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } }, Resource: both },
      ]);
      // Nobody is let in by the bucket policy: access is the functions' roles alone.
      expect(bucketPolicyOf(bucketId).filter((s) => s.Effect !== 'Deny')).toEqual([]);
    });

    it('refuses an upload that asks for another encryption or another key than the images key', () => {
      const uploads = bucketPolicyOf(bucketId).filter((s) => s.Action === 's3:PutObject');
      const objects = { 'Fn::Join': ['', [bucketArn(), '/*']] };
      expect(uploads).toEqual([
        {
          Sid: 'DenyOtherEncryption',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 's3:PutObject',
          Resource: objects,
          Condition: { Null: { 's3:x-amz-server-side-encryption': 'false' }, StringNotEquals: { 's3:x-amz-server-side-encryption': 'aws:kms' } },
        },
        {
          Sid: 'DenyOtherKeys',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 's3:PutObject',
          Resource: objects,
          Condition: {
            Null: { 's3:x-amz-server-side-encryption-aws-kms-key-id': 'false' },
            StringNotEquals: { 's3:x-amz-server-side-encryption-aws-kms-key-id': keyArn() },
          },
        },
      ]);
    });

    it('encrypts every image with its own rotating KMS key, per object (no S3 Bucket Key)', () => {
      expect(bucket.Properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [
          { BucketKeyEnabled: false, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: keyArn() } },
        ],
      });
      expect(key.Properties.EnableKeyRotation).toBe(true);
      expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
      expect(key).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/arthr-fir-images', TargetKeyId: keyArn() });
    });

    it('keeps no versions, so that deleting an image deletes the personal data', () => {
      expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
      expect(bucket.Properties.ObjectLockEnabled).toBeUndefined();
    });

    it('aborts incomplete uploads after a day and expires any image after the longest retention a definition may set', () => {
      const retention = ProcessDefinitionSchema.shape.retentionDays;
      expect(retention.safeParse(3650).success).toBe(true);
      expect(retention.safeParse(3651).success).toBe(false);
      expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual([
        { Id: 'AbortIncompleteUploads', Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
        { Id: 'RetentionBackstop', Status: 'Enabled', ExpirationInDays: 3650 },
      ]);
    });

    it('is never deleted with the stack', () => {
      expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    });

    it('logs every request to a separate private log bucket, which only S3 log delivery for this bucket (and the exports bucket) may write', () => {
      expect(bucket.Properties.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: logBucketId }, LogFilePrefix: 'images/' });
      expect(logBucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        // Log delivery writes only to SSE-S3 buckets.
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        LifecycleConfiguration: {
          Rules: [{ Id: 'ExpireAccessLogs', Status: 'Enabled', ExpirationInDays: 365, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
        },
      });
      expect(logBucket.Properties.LoggingConfiguration).toBeUndefined();
      expect(logBucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      const statements = bucketPolicyOf(logBucketId);
      expect(statements.filter((s) => s.Effect === 'Deny').map((s) => s.Condition)).toEqual([
        { Bool: { 'aws:SecureTransport': 'false' } },
        { NumericLessThan: { 's3:TlsVersion': 1.2 } },
      ]);
      // The exports and pages buckets log here too, under exports/ and pages/ (lib/constructs/exports.ts, pages.ts).
      const others = ['ArthrStack/Exports/Bucket', 'ArthrStack/Pages/Bucket'].map((at) => resourceAt(template, 'AWS::S3::Bucket', at)[0]);
      const ofOther = (s: Statement) => others.some((id) => JSON.stringify(s).includes(`"${id}"`));
      for (const id of others) expect(statements.filter((s) => s.Effect === 'Allow' && JSON.stringify(s).includes(`"${id}"`))).toHaveLength(1);
      expect(statements.filter((s) => s.Effect === 'Allow' && !ofOther(s))).toEqual([
        {
          Effect: 'Allow',
          Principal: { Service: 'logging.s3.amazonaws.com' },
          Action: 's3:PutObject',
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [logBucketId, 'Arn'] }, '/images/*']] },
          Condition: { ArnLike: { 'aws:SourceArn': bucketArn() }, StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ]);
    });

    it('outputs the bucket name for operators', () => {
      expect(template.findOutputs('ImagesBucketName').ImagesBucketName!.Value).toEqual({ Ref: bucketId });
    });
  });

  describe('route grants', () => {
    it('has routes that write and read images (so the checks below check something)', () => {
      expect(routeList.some((r) => imagesOf(r).includes('PutObject'))).toBe(true);
      expect(routeList.some((r) => imagesOf(r).includes('GetObject'))).toBe(true);
      expect(routeList.some((r) => imagesOf(r).length === 0)).toBe(true);
    });

    it('grants each route exactly the S3 actions its route table entry names, on objects under tenants/ only', () => {
      for (const route of routeList) {
        const statements = grantsOf(functionFor(route)).filter((s) => asArray(s.Action).some((a) => a.startsWith('s3:')) && touchesImages(s));
        const granted = statements.flatMap((s) => asArray(s.Action)).sort();
        expect(granted, route.operationId).toEqual(imagesOf(route).map((a) => `s3:${a}`).sort());
        for (const s of statements) {
          const actions = asArray(s.Action);
          if (actions.includes('s3:ListBucket')) {
            // Listing: the bucket, for prefixes under the session's tenant's only.
            expect(s, route.operationId).toMatchObject({ Action: 's3:ListBucket', Resource: bucketArn(), Condition: { StringLike: { 's3:prefix': 'tenants/${aws:PrincipalTag/arthr-tenant}/*' } } });
          } else {
            expect(actions.every((a) => OBJECT_ACTIONS.includes(a)), route.operationId).toBe(true);
            expect(s.Resource, route.operationId).toEqual(tenantObjects());
            expect(s.Condition, route.operationId).toBeUndefined();
          }
        }
      }
    });

    it('lets a route use the images key only as S3 needs for its actions, only through S3, only for tenants/ objects', () => {
      for (const route of routeList) {
        const statements = grantsOf(functionFor(route)).filter((s) => JSON.stringify(s.Resource).includes(`"${keyId}"`));
        const needed = [
          ...(imagesOf(route).includes('PutObject') ? ['kms:GenerateDataKey'] : []),
          ...(imagesOf(route).includes('GetObject') ? ['kms:Decrypt'] : []),
        ];
        expect(statements.flatMap((s) => asArray(s.Action)).sort(), route.operationId).toEqual(needed.sort());
        for (const s of statements) {
          expect(s.Resource).toEqual(keyArn());
          expect(s.Condition, route.operationId).toEqual({
            StringEquals: { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' },
            StringLike: { 'kms:EncryptionContext:aws:s3:arn': tenantObjects() },
          });
        }
        // On its tenant role only: its own role holds no grant on images.
        expect(statementsOf(template, refId(functionFor(route).Properties.Role)!).filter(touchesImages), route.operationId).toEqual([]);
      }
    });

    it('tells exactly the routes that touch images the bucket name, in IMAGES_BUCKET', () => {
      for (const route of routeList) {
        const variables = functionFor(route).Properties.Environment.Variables;
        if (imagesOf(route).length > 0) expect(variables.IMAGES_BUCKET, route.operationId).toEqual({ Ref: bucketId });
        else expect(variables.IMAGES_BUCKET, route.operationId).toBeUndefined();
        // S3_ENDPOINT is the local stand-in's, never set on AWS.
        expect(variables.S3_ENDPOINT, route.operationId).toBeUndefined();
      }
    });

    it('gives no other function or role any grant on the images bucket or its key', () => {
      // Tenant roles: each for the session's tenant's prefix only (tenant-iam.test.ts).
      const allowed = new Set([
        ...routeList.filter((r) => imagesOf(r).length > 0).map((r) => tenantRoleOf(functionFor(r))!),
        // The clean-up deletes an expired instance's images, of whichever tenant (images.test.ts, below).
        refId(cleanup.Properties.Role)!,
        // The export worker reads an archive's images (test/infra/exports.test.ts checks its grants).
        tenantRoleOf(resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Exports/Worker/Function')[1])!,
        // The activity function: the face steps read captures and uploads, and pre-sign uploads (test/infra/journeys.test.ts).
        tenantRoleOf(resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Journeys/Activities/Function')[1])!,
      ]);
      for (const roleId of Object.keys(ofType(template, 'AWS::IAM::Role'))) {
        if (allowed.has(roleId)) continue;
        expect(statementsOf(template, roleId).filter(touchesImages), roleId).toEqual([]);
        // S3 actions on the exports bucket (test/infra/exports.test.ts) and the pages bucket (test/infra/pages.test.ts) are theirs to check.
        expect(statementsOf(template, roleId).filter((s) => !/Exports|Pages/.test(JSON.stringify(s.Resource))).flatMap((s) => asArray(s.Action)).filter((a) => a.startsWith('s3:')), roleId).toEqual([]);
      }
    });

    it('serves the face upload and the journey page assets like the other journey pages, with no gateway authorizer', () => {
      const routes = Object.values(ofType(template, 'AWS::ApiGatewayV2::Route'));
      for (const operationId of ['submitFaceCapture', 'getJourneyAsset']) {
        const route = routeList.find((r) => r.operationId === operationId);
        expect(route, operationId).toBeDefined();
        const r = routes.find((x) => x.Properties.RouteKey === `${route!.method} ${route!.path}`);
        expect(r?.Properties.AuthorizationType, operationId).toBe('NONE');
      }
    });
  });

  describe('table stream and clean-up', () => {
    it('turns on the table stream with keys only', () => {
      expect(ofType(template, 'AWS::DynamoDB::Table')[tableId]!.Properties.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    });

    it('feeds the clean-up from the table stream, from the oldest record still there', () => {
      expect(mapping.Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        FunctionName: { Ref: cleanupId },
        StartingPosition: 'TRIM_HORIZON',
      });
      // The stream's two readers: this clean-up and the outbox relay (test/infra/events.test.ts). The
      // export queue's mapping reads no stream (lib/constructs/exports.ts).
      const onStream = Object.values(ofType(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => JSON.stringify(m.Properties.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [tableId, 'StreamArn'] }));
      expect(onStream.map((m) => m.Metadata?.['aws:cdk:path']).sort()).toEqual(['ArthrStack/Events/Outbox/Resource', 'ArthrStack/Images/InstanceExpiry/Resource']);
      // Each is its own function's.
      expect(onStream.filter((m) => refId(m.Properties.FunctionName) === cleanupId)).toEqual([mapping]);
    });

    it('invokes it only for DynamoDB TTL removals of instance main items', () => {
      const filters = mapping.Properties.FilterCriteria.Filters as { Pattern: string }[];
      expect(filters).toHaveLength(1);
      expect(JSON.parse(filters[0]!.Pattern)).toEqual({
        eventName: ['REMOVE'],
        userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
        dynamodb: { Keys: { [TABLE_SCHEMA.sortKey]: { S: ['PI'] } } },
      });
    });

    it('lets through exactly the records the function acts on', () => {
      const pattern = JSON.parse((mapping.Properties.FilterCriteria.Filters as { Pattern: string }[])[0]!.Pattern) as Record<string, unknown>;
      const instance = keys.instance('acme', '0b6f4d2e-8d0a-4c53-9a53-2f0d1c8e7a41');
      const cases = [
        { name: 'TTL removes an instance', record: streamRecord({ eventName: 'REMOVE', key: instance, ttl: true }), acted: true },
        { name: 'someone deletes an instance', record: streamRecord({ eventName: 'REMOVE', key: instance }), acted: false },
        { name: 'an instance is updated', record: streamRecord({ eventName: 'MODIFY', key: instance }), acted: false },
        { name: 'an instance is created', record: streamRecord({ eventName: 'INSERT', key: instance }), acted: false },
        {
          name: 'TTL removes another item of the instance',
          record: streamRecord({ eventName: 'REMOVE', key: { PK: instance.PK, SK: 'USERDATA#x' }, ttl: true }),
          acted: false,
        },
        {
          name: 'TTL removes an idempotency record',
          record: streamRecord({ eventName: 'REMOVE', key: keys.idempotency('acme', 'k1'), ttl: true }),
          acted: false,
        },
      ];
      for (const c of cases) {
        expect(filterMatches(pattern, c.record), c.name).toBe(c.acted);
        // The function's own check agrees, so nothing it would act on is filtered out.
        expect(expiredInstance(c.record as Parameters<typeof expiredInstance>[0]) !== undefined, c.name).toBe(c.acted);
      }
    });

    it('retries only the records that failed, splits failing batches, and sends what still fails to its queue', () => {
      expect(mapping.Properties).toMatchObject({
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 10,
        // Well inside the stream's 24 hours, so the failed records can still be read back.
        MaximumRecordAgeInSeconds: 6 * 3600,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
      });
      expect(mapping.Properties.BatchSize).toBeLessThanOrEqual(100);
    });

    it('may only list and delete images under tenants/, read the table stream, send to its queue and write its own logs', () => {
      const statements = grantsOf(cleanup);
      expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
      const strip = ({ Effect: _effect, Sid: _sid, ...s }: Statement & { Sid?: string }) => s;
      expect(statements.map(strip)).toEqual([
        { Action: LOG_ACTIONS, Resource: { 'Fn::GetAtt': [refId(cleanup.Properties.LoggingConfig.LogGroup), 'Arn'] } },
        { Action: 's3:DeleteObject', Resource: imageObjects() },
        { Action: 's3:ListBucket', Resource: bucketArn(), Condition: { StringLike: { 's3:prefix': 'tenants/*' } } },
        { Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        // What Table.grantStreamRead grants: ListStreams takes no resource but `*`, and the table's
        // key (whose policy names this role too: isolation.test.ts).
        { Action: 'dynamodb:ListStreams', Resource: '*' },
        { Action: ['kms:Decrypt', 'kms:DescribeKey'], Resource: { 'Fn::GetAtt': [resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/TableKey')[0], 'Arn'] } },
        { Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], Resource: { 'Fn::GetAtt': [tableId, 'StreamArn'] } },
      ]);
      expect(ofType(template, 'AWS::IAM::Role')[refId(cleanup.Properties.Role)!]!.Properties.ManagedPolicyArns).toBeUndefined();
      // The mapping is created only once the role can read the stream (Lambda checks on creation).
      expect(cleanup.DependsOn?.some((id) => ofType(template, 'AWS::IAM::Policy')[id] !== undefined)).toBe(true);
    });

    it('runs on nodejs22.x, arm64, with its own log group, told only the table, the bucket, the log level and its service name', () => {
      expect(cleanup.Properties).toMatchObject({
        FunctionName: 'arthr-fir-onInstanceExpired',
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 256,
        Timeout: 60,
      });
      // TABLE_NAME because the store configuration requires it (functions/config.ts), not for access.
      expect(cleanup.Properties.Environment.Variables).toEqual({
        TABLE_NAME: { Ref: tableId },
        IMAGES_BUCKET: { Ref: bucketId },
        LOG_LEVEL: 'INFO',
        POWERTOOLS_SERVICE_NAME: 'arthr-fir',
      });
      const group = ofType(template, 'AWS::Logs::LogGroup')[refId(cleanup.Properties.LoggingConfig.LogGroup)!]!;
      expect(group.Properties).toEqual({ LogGroupName: '/aws/lambda/arthr-fir-onInstanceExpired', RetentionInDays: 30 });
    });

    it('encrypts its queue, refuses plain HTTP, keeps messages 14 days and alarms on the first one', () => {
      const queue = ofType(template, 'AWS::SQS::Queue')[queueId]!;
      expect(queue.Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
      const policies = Object.values(ofType(template, 'AWS::SQS::QueuePolicy')).filter((p) => asArray(p.Properties.Queues).some((q) => refId(q) === queueId));
      expect(policies).toHaveLength(1);
      const statements = asArray<Statement>(policies[0]!.Properties.PolicyDocument.Statement);
      // Nobody gets in through the queue policy: the clean-up's role sends.
      expect(statements).toEqual([
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
      const alarms = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).filter((a) =>
        asArray<{ Value: unknown }>(a.Properties.Dimensions).some((d) => refId(d.Value) === queueId),
      );
      expect(alarms.map((a) => a.Properties)).toEqual([
        expect.objectContaining({ MetricName: 'ApproximateNumberOfMessagesVisible', ComparisonOperator: 'GreaterThanThreshold', Threshold: 0 }),
      ]);
      expect(refId(template.findOutputs('ImageCleanupDeadLetterQueueUrl').ImageCleanupDeadLetterQueueUrl!.Value)).toBe(queueId);
    });
  });

  it('passes the cdk-nag AwsSolutions pack with no unacknowledged finding', () => {
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});
