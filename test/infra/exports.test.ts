import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/route.js';
import { routeList } from '../../functions/routes.js';
import { MAX_RECEIVES } from '../../functions/exports/run-export.js';
import { asArray, ofType, refId, resourceAt, routeFunctionPath, statementsOf, synthesize, type Resource, type Statement, type Synthesized } from './support.js';

describe('ArthrStack exports', () => {
  let synth: Synthesized;
  let template: Template;
  let bucketId: string;
  let bucket: Resource;
  let keyId: string;
  let key: Resource;
  let queueId: string;
  let queue: Resource;
  let dlqId: string;
  let worker: Resource;
  let mapping: Resource;

  const grantsOf = (f: Resource): Statement[] => statementsOf(template, refId(f.Properties.Role)!);
  const functionFor = (route: RouteDef) => resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(route))[1];
  const mentions = (s: Statement, id: string) => JSON.stringify(s.Resource).includes(`"${id}"`);
  const actionsOn = (statements: Statement[], id: string) => statements.filter((s) => mentions(s, id)).flatMap((s) => asArray(s.Action)).sort();

  beforeAll(() => {
    synth = synthesize({}, { bundle: false });
    template = synth.template;
    [bucketId, bucket] = resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Exports/Bucket');
    [keyId, key] = resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/Exports/Key');
    [queueId, queue] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Exports/Jobs');
    [dlqId] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Exports/JobDeadLetters');
    worker = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Exports/Worker/Function')[1];
    mapping = resourceAt(template, 'AWS::Lambda::EventSourceMapping', 'ArthrStack/Exports/JobSource')[1];
  }, 120_000);

  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  it('keeps exports in a bucket encrypted with its own rotating key, closed to the public and to plain HTTP, deleted after 7 days', () => {
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      { BucketKeyEnabled: false, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [keyId, 'Arn'] } } },
    ]);
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
    expect(bucket.Properties.LifecycleConfiguration.Rules).toContainEqual({ Id: 'ExpireExports', Status: 'Enabled', ExpirationInDays: 7 });
    expect(bucket.Properties.LoggingConfiguration.LogFilePrefix).toBe('exports/');
    const policy = Object.values(ofType(template, 'AWS::S3::BucketPolicy')).find((p) => refId(p.Properties.Bucket) === bucketId)!;
    const statements = asArray<Statement>(policy.Properties.PolicyDocument.Statement);
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    expect(statements.filter((s) => s.Effect !== 'Deny')).toEqual([]);
  });

  it('queues jobs with a dead-letter queue after the worker\'s attempts, whose alarm notifies the alarm topic', () => {
    expect(queue.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: MAX_RECEIVES });
    expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * worker.Properties.Timeout);
    const alarms = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).filter((a) =>
      asArray<{ Value: unknown }>(a.Properties.Dimensions).some((d) => JSON.stringify(d.Value).includes(`"${dlqId}"`)),
    );
    expect(alarms).toHaveLength(1);
    const topicId = Object.keys(ofType(template, 'AWS::SNS::Topic'))[0]!;
    expect(alarms[0]!.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(alarms[0]!.Properties.OKActions).toEqual([{ Ref: topicId }]);
    expect(mapping.Properties).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] }, BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 5 });
  });

  it('lets the worker read jobs and images, unseal only export passwords, and write only export files', () => {
    const grants = grantsOf(worker);
    expect(actionsOn(grants, bucketId)).toEqual(['s3:PutObject']);
    expect(actionsOn(grants, queueId)).toEqual(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage']);
    const keyGrants = grants.filter((s) => mentions(s, keyId));
    expect(keyGrants.map((s) => [asArray(s.Action), s.Condition])).toEqual([
      [['kms:GenerateDataKey'], expect.objectContaining({ StringEquals: { 'kms:ViaService': expect.anything() } })],
      [['kms:Decrypt'], { StringEquals: { 'kms:EncryptionContext:purpose': 'export-password' } }],
    ]);
    expect(grants.flatMap((s) => asArray(s.Action))).not.toContain('kms:Encrypt');
    expect(worker.Properties.Environment.Variables).toMatchObject({ EXPORTS_BUCKET: { Ref: bucketId }, EXPORTS_KEY: expect.anything() });
    // The table only through its tenant role, for each job's tenant (tenant-iam.test.ts evaluates it).
    expect(grants.flatMap((s) => asArray(s.Action)).filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
    const [tenantRoleId] = resourceAt(template, 'AWS::IAM::Role', 'ArthrStack/Exports/Worker/Tenant/Role');
    expect(worker.Properties.Environment.Variables.TENANT_ROLE_ARN).toEqual({ 'Fn::GetAtt': [tenantRoleId, 'Arn'] });
    const tenantGrants = statementsOf(template, tenantRoleId);
    // And the archive's images, the job's tenant's only (its S3 client calls as the tenant).
    expect(tenantGrants.map((s) => [(s as { Sid?: string }).Sid, asArray(s.Action)])).toEqual([
      ['TableItems', ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']],
      ['TableIndexes', ['dynamodb:Query']],
      ['ImageObjects', ['s3:GetObject']],
      ['ImageKey', ['kms:Decrypt']],
    ]);
    for (const s of tenantGrants.filter((st) => asArray(st.Action).some((a) => a.startsWith('dynamodb:')))) {
      expect(s.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TNT#${aws:PrincipalTag/arthr-tenant}#*'] }, Null: { 'dynamodb:LeadingKeys': 'false' } });
    }
    expect(JSON.stringify(tenantGrants)).toContain('/tenants/${aws:PrincipalTag/arthr-tenant}/*');
    // Its own role reads no image.
    expect(grants.flatMap((s) => asArray(s.Action)).filter((a) => a === 's3:GetObject')).toEqual([]);
  });

  it("grants each route exactly its declared export actions, and no other route any", () => {
    const expected = { SendMessage: 'sqs:SendMessage', Seal: 'kms:Encrypt', GetObject: 's3:GetObject' } as const;
    for (const route of routeList) {
      const fn = functionFor(route);
      const grants = grantsOf(fn);
      const want = (route.aws.exports ?? []).map((a) => expected[a]).sort();
      const got = grants
        .filter((s) => JSON.stringify(s).includes('Exports'))
        .flatMap((s) => asArray(s.Action))
        .filter((a) => a !== 'kms:Decrypt')
        .sort();
      expect({ route: route.operationId, got }).toEqual({ route: route.operationId, got: want });
      if (route.aws.exports?.includes('Seal')) {
        expect(grants.find((s) => asArray(s.Action).includes('kms:Encrypt'))!.Condition).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': 'export-password' } });
      }
      if (!route.aws.exports?.length) expect(Object.keys(fn.Properties.Environment?.Variables ?? {})).not.toContain('EXPORTS_BUCKET');
    }
    expect(routeList.filter((r) => r.aws.exports?.length).map((r) => r.operationId).sort()).toEqual(
      ['createUserDataArchive', 'exportProcessInstancesCsv', 'getProcessInstancesCsvExport', 'getUserDataArchiveExport'].sort(),
    );
  });

  it('names its resources under the deployment prefix', () => {
    expect(worker.Properties.FunctionName).toBe('arthr-fir-runExport');
    const alias = Object.values(ofType(template, 'AWS::KMS::Alias')).map((a) => a.Properties.AliasName);
    expect(alias).toContain('alias/arthr-fir-exports');
  });
});
