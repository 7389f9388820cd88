import { RouteFunction } from '../../lib/constructs/route-function.js';
import { routeGroups, routeStackId } from '../../lib/constructs/route-stack.js';
import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/route.js';
import { routeList } from '../../functions/routes.js';
import { TABLE_SCHEMA } from '../../functions/store/schema.js';
import { settingsFromContext } from '../../lib/stack.js';
import {
  asArray,
  cdkJsonContext,
  joined,
  ofType,
  pascal,
  refId,
  resourceAt,
  statementsOf as statementsIn,
  synthesize,
  unacknowledgedNagFindings,
  type Resource,
  type Synthesized,
  routeFunctionPath,
  apiRoutePath,
} from './support.js';

// The journeys' own functions (activities, execution end) are checked in journeys.test.ts.

/** What each `route.aws` entry must grant, written out here independently of the stack. */

const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];

function expectedDataActions(route: RouteDef): string[] {
  const out: string[] = [];
  for (const a of route.aws.table ?? []) out.push(`dynamodb:${a}`);
  // The tenant's rate limit counts each request made with its tokens or keys (one UpdateItem).
  if (route.auth === 'bearer' || route.auth === 'bearerOrApiKey') out.push('dynamodb:UpdateItem');
  if (route.aws.queryIndexes) out.push('dynamodb:Query');
  if (route.aws.signingKey === 'sign') out.push('kms:Sign');
  if (route.aws.signingKey === 'publicKey') out.push('kms:GetPublicKey');
  if (route.aws.stateMachines === 'publish') out.push('states:CreateStateMachine', 'iam:PassRole');
  if (route.aws.stateMachines === 'start') out.push('states:StartExecution');
  if (route.aws.stateMachines === 'sendTask') out.push('states:SendTaskSuccess');
  if (route.aws.stateMachines === 'endTask') out.push('states:SendTaskSuccess', 'states:SendTaskFailure');
  for (const a of route.aws.images ?? []) out.push(`s3:${a}`);
  // SSE-KMS: writing an image needs a data key, reading one needs it decrypted.
  if (route.aws.images?.includes('PutObject')) out.push('kms:GenerateDataKey');
  if (route.aws.images?.includes('GetObject')) out.push('kms:Decrypt');
  // Exports (exports.test.ts checks their resources and conditions).
  for (const a of route.aws.exports ?? []) out.push(...({ SendMessage: ['sqs:SendMessage'], Seal: ['kms:Encrypt'], GetObject: ['s3:GetObject', 'kms:Decrypt'] } as const)[a]);
  // Cloud secrets: sealing a value is Encrypt with the secrets key.
  if (route.aws.cloudSecrets === 'seal') out.push('kms:Encrypt');
  // Webhooks: sealing a signing secret is Encrypt with the same key (in its own context); a replay
  // queues deliveries; checking a queue or bus target needs no grant.
  for (const a of route.aws.webhooks ?? []) out.push(...({ Seal: ['kms:Encrypt'], SendMessage: ['sqs:SendMessage'], Target: [] } as const)[a]);
  for (const a of route.aws.faces ?? []) out.push(`rekognition:${a}`);
  // Face Liveness's calls where the region has it (fir does); the browser credentials are sts:AssumeRole (face-liveness.test.ts).
  for (const a of route.aws.faceLiveness ?? []) if (a !== 'BrowserCredentials') out.push(`rekognition:${a}`);
  // Custom pages (pages.test.ts checks their resources): S3-managed encryption, no key grant.
  for (const a of route.aws.pages ?? []) out.push(`s3:${a}`);
  // A Python upload is compiled by the cloud function runner (journeys.test.ts checks the resource).
  if (route.aws.functionRunner) out.push('lambda:InvokeFunction');
  return [...new Set(out)].sort();
}

const DATA_SERVICES = /^(dynamodb|kms|states|iam|events|s3|sqs|rekognition|lambda):/;
/** Rekognition actions that take no resource (on the image in the request, or a Face Liveness session by its id): granted on `*`. */
const IMAGE_ONLY_FACES = new Set(['rekognition:DetectFaces', 'rekognition:CompareFaces', 'rekognition:CreateFaceLivenessSession', 'rekognition:GetFaceLivenessSessionResults']);

/** The image clean-up function (fed by the table stream, not a route): checked in images.test.ts. */
const isImageCleanup = (f: Resource) => f.Metadata?.['aws:cdk:path'] === 'ArthrStack/Images/Cleanup/Function/Resource';
/** The export worker (fed by the jobs queue, not a route): checked in exports.test.ts. */
const isExportWorker = (f: Resource) => f.Metadata?.['aws:cdk:path'] === 'ArthrStack/Exports/Worker/Function/Resource';
/** The cloud function runner (tenant code; no environment, no grants): checked in journeys.test.ts. */
const isRunner = (f: Resource) => f.Metadata?.['aws:cdk:path'] === 'ArthrStack/Journeys/CloudFunctionRunner/Function/Resource';
/** The outbox relay (fed by the table stream, not a route): checked in events.test.ts. */
const isEventRelay = (f: Resource) => f.Metadata?.['aws:cdk:path'] === 'ArthrStack/Events/Relay/Function/Resource';
/** The webhook delivery worker (fed by the delivery queue, not a route): checked in events.test.ts. */
const isDeliveryWorker = (f: Resource) => f.Metadata?.['aws:cdk:path'] === 'ArthrStack/Events/DeliveryWorker/Function/Resource';
/** The functions that get only what they use, not the service's configuration. */
const isDeliverySweeper = (f: Resource) => f.Metadata?.['aws:cdk:path'] === 'ArthrStack/Events/DeliverySweeper/Function/Resource';
const ownConfig = (f: Resource) => isImageCleanup(f) || isRunner(f) || isEventRelay(f) || isDeliveryWorker(f) || isDeliverySweeper(f);

// ---------------------------------------------------------------------------------------------

describe('ArthrStack', () => {
  let synth: Synthesized;
  let template: Template;
  let functions: Record<string, Resource>;
  let tableId: string;
  let keyId: string;
  let apiId: string;
  let signingKeyArn: unknown;
  let imagesKeyArn: unknown;
  let exportsKeyArn: unknown;

  /** The function resource (logical id and body) serving a route, found by its construct path. */
  function functionFor(route: RouteDef): [string, Resource] {
    const want = `${routeFunctionPath(route)}/Resource`;
    const hit = Object.entries(functions).find(([, f]) => f.Metadata?.['aws:cdk:path'] === want);
    if (!hit) throw new Error(`no function for ${route.operationId}`);
    return hit;
  }

  const statementsOf = (roleId: string) => statementsIn(template, roleId);
  /** A function's tenant role (ServiceFunction.actForTenants), from TENANT_ROLE_ARN, if it has one. */
  const tenantRoleOf = (f: Resource) => refId(f.Properties.Environment?.Variables?.TENANT_ROLE_ARN) ?? undefined;
  /** Everything a function may do: its own role's statements and its tenant role's. */
  const grantsOf = (f: Resource) => [...statementsOf(refId(f.Properties.Role)!), ...(tenantRoleOf(f) ? statementsOf(tenantRoleOf(f)!) : [])];
  /** Whether a route's function acts for tenants through a tenant role (route-function.ts `actsForTenants`). */
  const actsForTenants = (route: RouteDef) => Boolean(route.aws.table?.length || route.aws.queryIndexes || route.auth === 'bearer' || route.auth === 'bearerOrApiKey' || route.aws.images?.length);
  const imagesBucketId = () => resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Images/Bucket')[0];
  const cloudSecretsKeyArn = () => ({ 'Fn::GetAtt': [resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/CloudSecretsKey')[0], 'Arn'] });
  /** SECRETS_KEY as functions/config.ts reads it: `kms:` and the cloud secrets key's ARN. */
  const cloudSecretsKeyVariable = () => ({ 'Fn::Join': ['', ['kms:', cloudSecretsKeyArn()]] });
  /** The webhook replay queue (lib/constructs/events.ts): events.test.ts checks it. */
  const replaysId = () => resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Events/Replays')[0];

  beforeAll(() => {
    // Template only: synth.test.ts bundles every function through the CDK CLI and checks the bundles.
    synth = synthesize({}, { bundle: false });
    template = synth.template;
    functions = ofType(template, 'AWS::Lambda::Function');
    tableId = Object.keys(ofType(template, 'AWS::DynamoDB::Table'))[0]!;
    keyId = resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/SigningKey')[0];
    signingKeyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };
    imagesKeyArn = { 'Fn::GetAtt': [resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/Images/Key')[0], 'Arn'] };
    exportsKeyArn = { 'Fn::GetAtt': [resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/Exports/Key')[0], 'Arn'] };
    apiId = Object.keys(ofType(template, 'AWS::ApiGatewayV2::Api'))[0]!;
  }, 120_000);

  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  describe('routes', () => {
    it('exposes exactly the route table, no more and no fewer', () => {
      const keys = Object.values(ofType(template, 'AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey);
      expect(keys.sort()).toEqual(routeList.map((r) => `${r.method} ${r.path}`).sort());
    });

    it('requires a token with the route permission in its scope on every bearer route', () => {
      const routes = Object.values(ofType(template, 'AWS::ApiGatewayV2::Route'));
      const authorizers = ofType(template, 'AWS::ApiGatewayV2::Authorizer');
      for (const route of routeList) {
        const r = routes.find((x) => x.Properties.RouteKey === `${route.method} ${route.path}`)!;
        if (route.auth === 'bearer') {
          expect(r.Properties.AuthorizationType, route.operationId).toBe('JWT');
          expect(r.Properties.AuthorizationScopes, route.operationId).toEqual([route.permission]);
          expect(authorizers[refId(r.Properties.AuthorizerId)!]?.Properties.AuthorizerType).toBe('JWT');
        } else {
          // Public documents and API-key routes: the function decides (API keys are checked
          // against their stored hash there).
          expect(r.Properties.AuthorizationType, route.operationId).toBe('NONE');
          expect(r.Properties.AuthorizerId, route.operationId).toBeUndefined();
          expect(r.Properties.AuthorizationScopes, route.operationId).toBeUndefined();
        }
      }
    });

    it('checks bearer tokens against the API\'s own issuer and the arthr-api audience by default', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
        AuthorizerType: 'JWT',
        IdentitySource: ['$request.header.Authorization'],
        JwtConfiguration: { Issuer: { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] }, Audience: ['arthr-api'] },
      });
      // The issuer the functions put in tokens is the one the authorizer checks (the image
      // clean-up, the runner, the event relay and the webhook delivery worker issue nothing and are not told).
      for (const f of Object.values(functions).filter((x) => !ownConfig(x))) {
        expect(f.Properties.Environment.Variables.TOKEN_ISSUER).toEqual({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] });
      }
    });

    it('sends each route to its own operation\'s function with payload format 2.0', () => {
      const routes = Object.values(ofType(template, 'AWS::ApiGatewayV2::Route'));
      const integrations = ofType(template, 'AWS::ApiGatewayV2::Integration');
      for (const route of routeList) {
        const r = routes.find((x) => x.Properties.RouteKey === `${route.method} ${route.path}`)!;
        const target = JSON.stringify(r.Properties.Target);
        const [integrationId, integration] = Object.entries(integrations).find(([id]) => target.includes(`"${id}"`))!;
        expect(integration.Properties, integrationId).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
        expect(refId(integration.Properties.IntegrationUri), route.operationId).toBe(functionFor(route)[0]);
      }
    });

    it('passes each area\'s nested stack, under fixed names, exactly the buckets, keys and queues its routes are granted', () => {
      const arn = (type: string, at: string) => ({ 'Fn::GetAtt': [resourceAt(template, type, at)[0], 'Arn'] });
      const ref = (type: string, at: string) => ({ Ref: resourceAt(template, type, at)[0] });
      const images = {
        ImagesBucketArn: arn('AWS::S3::Bucket', 'ArthrStack/Images/Bucket'),
        ImagesBucketName: ref('AWS::S3::Bucket', 'ArthrStack/Images/Bucket'),
        ImagesKeyArn: arn('AWS::KMS::Key', 'ArthrStack/Images/Key'),
      };
      const exports = {
        ExportsBucketArn: arn('AWS::S3::Bucket', 'ArthrStack/Exports/Bucket'),
        ExportsBucketName: ref('AWS::S3::Bucket', 'ArthrStack/Exports/Bucket'),
        ExportsKeyArn: arn('AWS::KMS::Key', 'ArthrStack/Exports/Key'),
        ExportsQueueArn: arn('AWS::SQS::Queue', 'ArthrStack/Exports/Jobs'),
        ExportsQueueUrl: ref('AWS::SQS::Queue', 'ArthrStack/Exports/Jobs'),
      };
      const pages = {
        PagesBucketArn: arn('AWS::S3::Bucket', 'ArthrStack/Pages/Bucket'),
        PagesBucketName: ref('AWS::S3::Bucket', 'ArthrStack/Pages/Bucket'),
        PagesOrigin: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [resourceAt(template, 'AWS::CloudFront::Distribution', 'ArthrStack/Pages/Distribution')[0], 'DomainName'] }]] },
      };
      // One key seals cloud secrets and webhook signing secrets (each in its own context).
      const secrets = { CloudSecretsKeyArn: cloudSecretsKeyArn() };
      const webhookQueue = { WebhookReplayQueueArn: { 'Fn::GetAtt': [replaysId(), 'Arn'] }, WebhookReplayQueueUrl: { Ref: replaysId() } };
      const nested = Object.values(ofType(synth.parent, 'AWS::CloudFormation::Stack'));
      const groups = routeGroups(routeList);
      expect(nested).toHaveLength(groups.size);
      expect([...groups.keys()]).toContain('webhooks');
      const named = (params: Record<string, unknown>) => Object.fromEntries(Object.entries(params).filter(([k]) => !k.startsWith('referenceto')));
      const passed = new Map<string, Record<string, unknown>>();
      for (const [area, routes] of groups) {
        const id = routeStackId(area);
        const resource = nested.find((r) => r.Metadata?.['aws:cdk:path'] === `ArthrStack/${id}.NestedStack/${id}.NestedStackResource`);
        expect(resource, area).toBeDefined();
        const params = (resource!.Properties.Parameters ?? {}) as Record<string, unknown>;
        const expected = {
          ...(routes.some((r) => r.aws.images?.length) ? images : {}),
          ...(routes.some((r) => r.aws.exports?.length) ? exports : {}),
          ...(routes.some((r) => r.aws.pages?.length) ? pages : {}),
          ...(routes.some((r) => r.aws.cloudSecrets || r.aws.webhooks?.includes('Seal')) ? secrets : {}),
          ...(routes.some((r) => r.aws.webhooks?.includes('SendMessage')) ? webhookQueue : {}),
        };
        expect(named(params), area).toEqual(expected);
        passed.set(area, named(params));
        // Declared by the nested stack under the same names...
        const declared = (synth.stacks.get(`ArthrStack/${id}`)!.toJSON().Parameters ?? {}) as Record<string, unknown>;
        expect(Object.keys(named(declared)).sort(), area).toEqual(Object.keys(expected).sort());
        // ...and never passed again under a generated name (grants and acknowledgements name the fixed one).
        const generated = JSON.stringify(Object.entries(params).filter(([k]) => k.startsWith('referenceto')));
        for (const v of Object.values(expected)) expect(generated, area).not.toContain(JSON.stringify(v));
      }
      // The webhooks' routes take the secrets key (to seal signing secrets) and the replay queue (to replay), and nothing else by name.
      expect(passed.get('webhooks')).toEqual({ ...secrets, ...webhookQueue });
      expect([...passed].filter(([, p]) => 'WebhookReplayQueueArn' in p).map(([area]) => area)).toEqual(['webhooks']);
    });

    it('throttles the $default stage and writes JSON access logs to a log group', () => {
      const stages = Object.values(ofType(template, 'AWS::ApiGatewayV2::Stage'));
      expect(stages).toHaveLength(1);
      const stage = stages[0]!.Properties;
      expect(stage.StageName).toBe('$default');
      expect(stage.AutoDeploy).toBe(true);
      expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 });
      expect(ofType(template, 'AWS::Logs::LogGroup')[refId(stage.AccessLogSettings.DestinationArn)!]).toBeDefined();
      const format = JSON.parse(stage.AccessLogSettings.Format) as Record<string, string>;
      expect(format).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status' });
    });
  });

  describe('storage', () => {
    it('keeps one on-demand table with the shared key schema, TTL and point-in-time recovery', () => {
      expect(Object.keys(ofType(template, 'AWS::DynamoDB::Table'))).toHaveLength(1);
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_SCHEMA.globalSecondaryIndexes.map((g) => ({
          IndexName: g.indexName,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' },
            { AttributeName: g.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: g.projection },
        })),
        TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      });
    });

    it('never deletes the table or the signing key with the stack', () => {
      template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(ofType(template, 'AWS::KMS::Key')[keyId]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    });

    it('signs tokens with an RSA 2048 KMS key reachable through an alias', () => {
      // The others are the images bucket's (images.test.ts), the alarm topic's (operations.test.ts), the exports'
      // (exports.test.ts), the cloud secrets' (below) and the table's (isolation.test.ts, with every key's policy).
      template.resourceCountIs('AWS::KMS::Key', 6);
      expect(ofType(template, 'AWS::KMS::Key')[keyId]!.Properties).toMatchObject({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
      template.hasResourceProperties('AWS::KMS::Alias', {
        AliasName: 'alias/arthr-fir-token-signing',
        TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
      });
    });
  });

  describe('functions', () => {
    it('runs one function per route on nodejs22.x, arm64, 256 MB, 10 s unless the route sizes it', () => {
      // Plus the journeys' activity, execution-end, reconciler and state machine janitor functions, the cloud function runner, the image clean-up, the export worker,
      // the event relay, the webhook delivery worker and its sweeper.
      expect(Object.keys(functions)).toHaveLength(routeList.length + 10);
      for (const route of routeList) {
        const [, f] = functionFor(route);
        expect(f.Properties, route.operationId).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          MemorySize: route.lambda?.memorySize ?? 256,
          Timeout: route.lambda?.timeoutSeconds ?? 10,
          Handler: 'index.handler',
          FunctionName: `arthr-fir-${route.operationId}`,
        });
      }
    });

    it('gives every function the configuration its cold start parses', () => {
      // The image clean-up, the event relay and the webhook delivery worker get only what they use (images.test.ts, events.test.ts).
      for (const f of Object.values(functions).filter((x) => !ownConfig(x) && !isExportWorker(x))) {
        const { STATE_MACHINE_ROLE_ARN, STATE_MACHINE_LOG_GROUP_ARN, ACTIVITY_FUNCTION_ARN, EXECUTION_END_FUNCTION_ARN, IMAGES_BUCKET, EXPORTS_BUCKET, EXPORTS_QUEUE_URL, EXPORTS_KEY, SECRETS_KEY, WEBHOOK_REPLAY_QUEUE_URL, SERVICE_ACCOUNT_ID, CLOUD_FUNCTION_RUNNER, FACE_COLLECTION_PREFIX, TENANT_ROLE_ARN, PAGES_BUCKET, PAGES_ORIGIN, DOCUMENT_ENGINE, LIVENESS_BROWSER_ROLE_ARN, ...variables } = f.Properties.Environment.Variables;
        const isActivities = f.Metadata?.['aws:cdk:path'] === 'ArthrStack/Journeys/Activities/Function/Resource';
        // The document engine only where documents are read: the activity function.
        expect(DOCUMENT_ENGINE === undefined, f.Metadata?.['aws:cdk:path']).toBe(!isActivities);
        // The runner's name only for the activity function (journeys.test.ts checks its value) and the routes that check Python with it.
        const route = routeList.find((r) => f.Metadata?.['aws:cdk:path'] === `${routeFunctionPath(r)}/Resource`);
        expect(CLOUD_FUNCTION_RUNNER === undefined, f.Metadata?.['aws:cdk:path']).toBe(!isActivities && !route?.aws.functionRunner);
        if (route?.aws.functionRunner) expect(CLOUD_FUNCTION_RUNNER).toBe('arthr-fir-cloud-function-runner');
        // The bucket's name only where the route table says the operation touches images.
        // Its tenant role where it acts for tenants (tenant-iam.test.ts evaluates them).
        if (route) expect(TENANT_ROLE_ARN !== undefined, route.operationId).toBe(actsForTenants(route));
        if (TENANT_ROLE_ARN !== undefined) expect(TENANT_ROLE_ARN, f.Metadata?.['aws:cdk:path']).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/TenantRole/), 'Arn'] });
        // The activity function's face steps read images too (test/infra/journeys.test.ts).
        if (route?.aws.images?.length || isActivities) expect(IMAGES_BUCKET, f.Metadata?.['aws:cdk:path']).toEqual({ Ref: imagesBucketId() });
        else expect(IMAGES_BUCKET, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        // The watchlists' collection prefix only where a watchlist's collection is used.
        const collections = isActivities || route?.aws.faces?.some((a) => !IMAGE_ONLY_FACES.has(`rekognition:${a}`));
        if (collections) expect(FACE_COLLECTION_PREFIX, f.Metadata?.['aws:cdk:path']).toBe('arthr-fir');
        else expect(FACE_COLLECTION_PREFIX, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        // The pages bucket only where its files are touched; its origin also where an answer carries a page's URLs.
        if (route?.aws.pages?.length) expect(PAGES_BUCKET, route.operationId).toBeDefined();
        else expect(PAGES_BUCKET, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        // The activity function's too: a custom page step records where its page is framed from (no grant on the bucket).
        if (isActivities) expect(PAGES_ORIGIN).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/PagesDistribution/), 'DomainName'] }]] });
        else if (route?.aws.pages?.length || route?.aws.pagesOrigin) expect(PAGES_ORIGIN, route.operationId).toBeDefined();
        else expect(PAGES_ORIGIN, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        // The Face Liveness browser role only for the route that hands out its sessions (face-liveness.test.ts).
        if (route?.aws.faceLiveness?.includes('BrowserCredentials')) expect(LIVENESS_BROWSER_ROLE_ARN, route.operationId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/LivenessBrowserRole/), 'Arn'] });
        else expect(LIVENESS_BROWSER_ROLE_ARN, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        // Where exports are only for the operations that start or read them.
        if (route?.aws.exports?.length) expect([EXPORTS_BUCKET, EXPORTS_QUEUE_URL, EXPORTS_KEY].every((v) => v !== undefined), route.operationId).toBe(true);
        else expect([EXPORTS_BUCKET, EXPORTS_QUEUE_URL, EXPORTS_KEY], f.Metadata?.['aws:cdk:path']).toEqual([undefined, undefined, undefined]);
        // The cloud secrets key only where a value (or a webhook's signing secret) is sealed.
        if (route?.aws.cloudSecrets || route?.aws.webhooks?.includes('Seal') || isActivities) expect(SECRETS_KEY, f.Metadata?.['aws:cdk:path']).toEqual(cloudSecretsKeyVariable());
        else expect(SECRETS_KEY, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        // The webhook replay queue only where deliveries are replayed; no route queues on the delivery queue (the relay does).
        if (route?.aws.webhooks?.includes('SendMessage')) expect(WEBHOOK_REPLAY_QUEUE_URL, route.operationId).toEqual({ Ref: replaysId() });
        else expect(WEBHOOK_REPLAY_QUEUE_URL, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        // The deployment's own account only where a webhook's queue or bus target is checked (never allowed in it).
        if (route?.aws.webhooks?.includes('Target')) expect(SERVICE_ACCOUNT_ID, route.operationId).toEqual({ Ref: 'AWS::AccountId' });
        else expect(SERVICE_ACCOUNT_ID, f.Metadata?.['aws:cdk:path']).toBeUndefined();
        expect(STATE_MACHINE_ROLE_ARN).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^StateMachineRole/), 'Arn'] });
        expect(STATE_MACHINE_LOG_GROUP_ARN).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^StateMachineLogs/), 'Arn'] });
        expect(JSON.stringify(ACTIVITY_FUNCTION_ARN)).toContain(':function:arthr-fir-activities');
        expect(JSON.stringify(EXECUTION_END_FUNCTION_ARN)).toContain(':function:arthr-fir-execution-end');
        expect(variables).toEqual({
          TABLE_NAME: { Ref: tableId },
          SERVICE_REGION: 'fir',
          SERVICE_DOMAIN: 'example.com',
          TOKEN_ISSUER: { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] },
          TOKEN_AUDIENCE: 'arthr-api',
          TOKEN_TTL_SECONDS: '3600',
          SIGNING_KEY: { 'Fn::Join': ['', ['kms:', { Ref: keyId }]] },
          LOG_LEVEL: 'INFO',
          TENANT_RATE_LIMIT: '100',
          TOKEN_RATE_LIMIT: '10',
          STATE_MACHINE_TRACING: 'false',
          POWERTOOLS_SERVICE_NAME: 'arthr-fir',
          // fir is eu-west-1, which has Rekognition Face Liveness (face-liveness.test.ts: where a region has none).
          FACE_LIVENESS: 'rekognition',
        });
      }
    });

    it('logs each function to its own log group kept for a month', () => {
      const groups = ofType(template, 'AWS::Logs::LogGroup');
      const used = new Set<string>();
      for (const route of routeList) {
        const [, f] = functionFor(route);
        const groupId = refId(f.Properties.LoggingConfig?.LogGroup)!;
        expect(groups[groupId]?.Properties.RetentionInDays, route.operationId).toBe(30);
        expect(used.has(groupId), `${route.operationId} shares a log group`).toBe(false);
        used.add(groupId);
      }
      for (const [id, g] of Object.entries(groups)) expect(g.Properties.RetentionInDays, id).toBeGreaterThan(0);
    });
  });

  describe('tenant rate limits', () => {
    it('throttle the stage for all tenants together well above one tenant’s limit, which every function is told', () => {
      const stage = Object.values(ofType(template, 'AWS::ApiGatewayV2::Stage'))[0]!.Properties;
      const tenantLimit = 100;
      expect(stage.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThanOrEqual(2 * tenantLimit);
      for (const f of Object.values(functions).filter((x) => !ownConfig(x))) expect(f.Properties.Environment.Variables.TENANT_RATE_LIMIT).toBe(String(tenantLimit));
    });

    it('let the routes a tenant’s credentials call write the rate windows’ partitions, and only those, to count', () => {
      const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
      for (const route of routeList) {
        const [, f] = functionFor(route);
        // On its tenant role: the session's own tenant's rate windows only.
        const counting = grantsOf(f).filter((s) => (s as { Sid?: string }).Sid === 'TenantRateLimit');
        if (route.auth === 'bearer' || route.auth === 'bearerOrApiKey') {
          expect(counting, route.operationId).toEqual([
            expect.objectContaining({
              Effect: 'Allow',
              Action: 'dynamodb:UpdateItem',
              Resource: tableArn,
              Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TNT#${aws:PrincipalTag/arthr-tenant}#RATE'] }, Null: { 'dynamodb:LeadingKeys': 'false' } },
            }),
          ]);
        } else {
          expect(counting, route.operationId).toEqual([]);
        }
      }
    });
  });

  describe('permissions', () => {
    it('seals cloud secrets and webhook signing secrets with their own rotated, retained key, Encrypt only in each one\'s context and only where a value or a secret is made', () => {
      const keys = Object.values(ofType(template, 'AWS::KMS::Key')).filter((k) => String(k.Properties.Description).includes('cloud secrets'));
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatchObject({ DeletionPolicy: 'Retain', Properties: { EnableKeyRotation: true } });
      const purpose = (p: string) => ({ StringEquals: { 'kms:EncryptionContext:purpose': p } });
      // Webhook secrets are sealed where a webhook is made and where its secret is rotated.
      expect(routeList.filter((r) => r.aws.webhooks?.includes('Seal')).map((r) => r.operationId).sort()).toEqual(['createWebhook', 'rotateWebhookSecret']);
      for (const route of routeList) {
        const [, f] = functionFor(route);
        // The exports' Seal is Encrypt with the exports key (exports.test.ts); every other Encrypt is on the cloud secrets key.
        const encrypt = grantsOf(f).filter((st) => asArray(st.Action).includes('kms:Encrypt') && !(route.aws.exports?.includes('Seal') && JSON.stringify(st.Resource) === JSON.stringify(exportsKeyArn)));
        const expected = [
          ...(route.aws.cloudSecrets === 'seal' ? [{ Sid: 'SealCloudSecrets', Condition: purpose('cloud-secret') }] : []),
          ...(route.aws.webhooks?.includes('Seal') ? [{ Sid: 'SealWebhookSecrets', Condition: purpose('webhook-secret') }] : []),
        ];
        expect(encrypt, route.operationId).toEqual(expected.map((e) => ({ Effect: 'Allow', Action: 'kms:Encrypt', Resource: cloudSecretsKeyArn(), ...e })));
      }
    });

    it('grants each function exactly the data actions its route table entry names', () => {
      for (const route of routeList) {
        const [, f] = functionFor(route);
        const statements = grantsOf(f);
        const actions = statements.flatMap((s) => asArray(s.Action));
        const data = [...new Set(actions.filter((a) => DATA_SERVICES.test(a)))].sort();
        expect(data, route.operationId).toEqual(expectedDataActions(route));
        expect(actions.filter((a) => a.includes('*')), route.operationId).toEqual([]);
        // The runner by its exact name, nothing else.
        for (const st of statements.filter((x) => asArray(x.Action).includes('lambda:InvokeFunction'))) {
          expect(joined(st.Resource), route.operationId).toBe('arn:aws:lambda:eu-west-1:<AWS::AccountId>:function:arthr-fir-cloud-function-runner');
        }
        // Besides its logs, assuming its tenant role where it acts for tenants.
        // And its Face Liveness browser role where it hands out the browser's credentials (face-liveness.test.ts).
        const assume = [...(actsForTenants(route) ? ['sts:AssumeRole', 'sts:TagSession'] : []), ...(route.aws.faceLiveness?.includes('BrowserCredentials') ? ['sts:AssumeRole'] : [])];
        expect(actions.filter((a) => !DATA_SERVICES.test(a)).sort(), route.operationId).toEqual([...LOG_ACTIONS, ...assume].sort());
        expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
      }
    });

    it('scopes table grants to the table and its indexes, key grants to the signing key, (through S3) the images key or the secrets key, and queue grants to their queue', () => {
      const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
      const indexArns = TABLE_SCHEMA.globalSecondaryIndexes.filter((g) => g.queriedByRoutes).map((g) => ({ 'Fn::Join': ['', [tableArn, `/index/${g.indexName}`]] }));
      for (const route of routeList) {
        const [, f] = functionFor(route);
        for (const s of grantsOf(f)) {
          const actions = asArray(s.Action);
          const resources = asArray(s.Resource);
          if (actions.every((a) => IMAGE_ONLY_FACES.has(a))) expect(resources, route.operationId).toEqual(['*']);
          else expect(resources, `${route.operationId} grants on *`).not.toContain('*');
          if (actions.some((a) => a.startsWith('dynamodb:'))) {
            for (const r of resources) expect([tableArn, ...indexArns], route.operationId).toContainEqual(r);
            // Only Query reads an index.
            if (resources.some((r) => JSON.stringify(r).includes('/index/'))) expect(actions).toEqual(['dynamodb:Query']);
          }
          if (actions.some((a) => a === 'kms:Sign' || a === 'kms:GetPublicKey')) {
            expect(actions.every((a) => a === 'kms:Sign' || a === 'kms:GetPublicKey'), route.operationId).toBe(true);
            expect(resources).toEqual([signingKeyArn]);
          }
          if (actions.some((a) => a === 'kms:GenerateDataKey' || a === 'kms:Decrypt')) {
            expect(actions.every((a) => a === 'kms:GenerateDataKey' || a === 'kms:Decrypt'), route.operationId).toBe(true);
            // The images key, or for a route reading export files the exports key (exports.test.ts); always with a condition.
            expect([JSON.stringify([imagesKeyArn]), ...(route.aws.exports?.includes('GetObject') ? [JSON.stringify([exportsKeyArn])] : [])], route.operationId).toContain(JSON.stringify(resources));
            expect(s.Condition, route.operationId).toBeDefined();
          }
          if (actions.includes('kms:Encrypt')) {
            expect(actions, route.operationId).toEqual(['kms:Encrypt']);
            // The cloud secrets key (a cloud secret's value, a webhook's signing secret), or for a route sealing export passwords the exports key; always in a context.
            expect([JSON.stringify([cloudSecretsKeyArn()]), ...(route.aws.exports?.includes('Seal') ? [JSON.stringify([exportsKeyArn])] : [])], route.operationId).toContain(JSON.stringify(resources));
            expect(s.Condition, route.operationId).toBeDefined();
          }
          if (actions.some((a) => a.startsWith('sqs:'))) {
            expect(actions, route.operationId).toEqual(['sqs:SendMessage']);
            // The export job queue, or the webhook replay queue for a replay: one statement each, on that queue alone.
            const queues = [
              ...(route.aws.exports?.includes('SendMessage') ? [JSON.stringify([{ 'Fn::GetAtt': [resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Exports/Jobs')[0], 'Arn'] }])] : []),
              ...(route.aws.webhooks?.includes('SendMessage') ? [JSON.stringify([{ 'Fn::GetAtt': [replaysId(), 'Arn'] }])] : []),
            ];
            expect(queues, route.operationId).toContain(JSON.stringify(resources));
          }
        }
        const queried = grantsOf(f)
          .filter((s) => asArray(s.Action).includes('dynamodb:Query'))
          .flatMap((s) => asArray(s.Resource));
        const expected = [...(route.aws.table?.includes('Query') ? [tableArn] : []), ...(route.aws.queryIndexes ? indexArns : [])];
        expect(queried, route.operationId).toEqual(expected);
      }
    });

    it('runs journey state machines with a role that may only invoke the activity and execution-end functions and deliver their logs', () => {
      const roles = Object.entries(ofType(template, 'AWS::IAM::Role')).filter(([, r]) =>
        JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('states.amazonaws.com'),
      );
      expect(roles).toHaveLength(1);
      const statements = statementsOf(roles[0]![0]);
      const invoke = statements.filter((st) => asArray(st.Action).includes('lambda:InvokeFunction'));
      expect(invoke.flatMap((st) => asArray(st.Action))).toEqual(['lambda:InvokeFunction']);
      expect(JSON.stringify(invoke)).toContain(':function:arthr-fir-activities');
      expect(JSON.stringify(invoke)).toContain(':function:arthr-fir-execution-end');
      // The rest only sets up log delivery (no X-Ray without -c tracing=true), which takes no resource.
      const rest = statements.filter((st) => !invoke.includes(st));
      expect(rest.flatMap((st) => asArray(st.Action)).every((a) => /^logs:(Create|Get|Update|Delete|List)LogDeliver(y|ies)$|^logs:(PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups)$/.test(a))).toBe(true);
      expect(rest.flatMap((st) => asArray(st.Resource))).toEqual(['*']);
    });

    it('has state machines log their errors, without execution data, to one log group kept three months and past the stack', () => {
      const [groupId, group] = resourceAt(template, 'AWS::Logs::LogGroup', 'ArthrStack/StateMachineLogs');
      expect(group).toMatchObject({ Properties: { RetentionInDays: 90 }, DeletionPolicy: 'Retain' });
      // Kept, so named after this deployment of the stack (test/infra/names.test.ts).
      expect(joined(group.Properties.LogGroupName)).toBe('/aws/vendedlogs/states/arthr-fir-<<AWS::StackId>/2>');
      // The publishing function is told the group (and logs at level ERROR without data: step-functions.test.ts).
      for (const f of Object.values(functions).filter((x) => !ownConfig(x))) {
        expect(f.Properties.Environment.Variables.STATE_MACHINE_LOG_GROUP_ARN).toEqual({ 'Fn::GetAtt': [groupId, 'Arn'] });
      }
    });

    it('lets a function write logs only to its own log group, with no managed policies', () => {
      const roles = ofType(template, 'AWS::IAM::Role');
      const roleUsers = new Map<string, number>();
      for (const route of routeList) {
        const [, f] = functionFor(route);
        const roleId = refId(f.Properties.Role)!;
        roleUsers.set(roleId, (roleUsers.get(roleId) ?? 0) + 1);
        expect(roles[roleId]!.Properties.ManagedPolicyArns, route.operationId).toBeUndefined();
        const logStatements = statementsOf(roleId).filter((s) => asArray(s.Action).some((a) => a.startsWith('logs:')));
        const ownGroup = refId(f.Properties.LoggingConfig.LogGroup);
        expect(logStatements.flatMap((s) => asArray(s.Resource)), route.operationId).toEqual([
          { 'Fn::GetAtt': [ownGroup, 'Arn'] },
        ]);
      }
      expect([...roleUsers.values()].every((n) => n === 1), 'a role is shared between functions').toBe(true);
    });

    it('gives functions that touch no data no table or key access at all', () => {
      const bare = routeList.filter((r) => !r.aws.table && !r.aws.queryIndexes && !r.aws.signingKey && !r.aws.images?.length);
      expect(bare.length).toBeGreaterThan(0);
      for (const route of bare) {
        const [, f] = functionFor(route);
        const actions = statementsOf(refId(f.Properties.Role)!).flatMap((s) => asArray(s.Action));
        expect(actions.filter((a) => /^(dynamodb|kms|s3):/.test(a)), route.operationId).toEqual([]);
      }
    });
  });

  describe('operations', () => {
    it('outputs the API URL, table name, signing key id, issuer, activity function, images bucket, event bus, the dead letters, the alarm topic and the dashboard', () => {
      const outputs = template.findOutputs('*');
      expect(Object.keys(outputs).sort()).toEqual([
        'ActivityFunctionName',
        'AlarmTopicArn',
        'ApiUrl',
        'DashboardName',
        'EventBusName',
        'EventRelayDeadLetterQueueUrl',
        'ExecutionEndDeadLetterQueueUrl',
        'ExportDeadLetterQueueUrl',
        'ExportsBucketName',
        'ImageCleanupDeadLetterQueueUrl',
        'ImagesBucketName',
        'Issuer',
        'PagesBucketName',
        'PagesOrigin',
        'SigningKeyId',
        'SubscriberDeliveryRoleArn',
        'TableName',
        'WebhookDeliveryDeadLetterQueueUrl',
      ]);
      expect(outputs.ApiUrl!.Description).toMatch(/certificateArn/);
    });

    it('passes the cdk-nag AwsSolutions pack with no unacknowledged finding', () => {
      expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
    });

    it('states a reason for every acknowledged cdk-nag rule, and none on bearer routes', () => {
      const all = template.toJSON().Resources as Record<string, Resource>;
      const acknowledged = Object.entries(all).flatMap(([id, r]) =>
        asArray<{ id: string; reason: string }>(r.Metadata?.cdk_nag?.rules_to_suppress).map((s) => ({ resource: id, path: r.Metadata!['aws:cdk:path'] as string, ...s })),
      );
      expect(acknowledged.length).toBeGreaterThan(0);
      for (const a of acknowledged) {
        expect(a.reason.trim().length, `${a.id} on ${a.resource}`).toBeGreaterThanOrEqual(10);
        // Wildcards are acknowledged one resource string at a time, and only for the run-time
        // state machines (arthr-fir-*) and their executions, the activity and execution-end
        // functions' versions (:*), image objects under tenants/ of the images bucket, and `*`
        // only for actions that take no resource (ListStreams on the image clean-up and the event
        // relay, log delivery set-up on the state machines' role, ListStateMachines on the janitor).
        if (a.id.startsWith('AwsSolutions-IAM5[')) {
          if (a.id === 'AwsSolutions-IAM5[Resource::*]') {
            // ListStreams for the image clean-up and the event relay; log delivery set-up (and
            // X-Ray) for the state machines; ListStateMachines for the janitor.
            // And Rekognition's image-only actions (DetectFaces, CompareFaces) where a route or the activity function judges faces.
            const judgesFaces =
              a.path.startsWith('ArthrStack/Journeys/Activities/Role/') ||
              routeList.some(
                (r) =>
                  [...(r.aws.faces ?? []), ...(r.aws.faceLiveness ?? []).filter((f) => f !== 'BrowserCredentials')].some((f) => IMAGE_ONLY_FACES.has(`rekognition:${f}`)) &&
                  a.path.includes(`/${RouteFunction.idFor(r)}/`),
              );
            if (judgesFaces) continue;
            expect(a.path, a.resource).toMatch(/^ArthrStack\/(Images\/Cleanup\/Role|Events\/Relay\/Role|StateMachineObservability|Journeys\/StateMachineJanitor\/Role)\//);
            continue;
          }
          // The delivery role's relying parties' queues, buses and queue keys, in accounts known only at
          // run time (events.test.ts checks the role excludes the deployment's own account).
          if (a.path.startsWith('ArthrStack/Events/SubscriberDelivery/')) {
            expect(a.id).toMatch(/^AwsSolutions-IAM5\[Resource::arn:aws:(sqs:\*:\*:\*|events:\*:\*:event-bus\/\*|kms:\*:\*:key\/\*)\]$/);
            continue;
          }
          // In the parent stack the bucket's own ARN; in a nested stack of routes, the parameter it comes in by.
          // And, on a tenant role, a tenant's own prefix; on a function's role, its tenant role's ARN by path.
          const imageObjects = `(<${imagesBucketId()}.Arn>|<ImagesBucketArn>|<ExportsBucket[0-9A-F]*.Arn>|<ExportsBucketArn>|<PagesBucket[0-9A-F]*.Arn>|<PagesBucketArn>)/tenants/(<aws:PrincipalTag/arthr-tenant>/)?\\*`;
          // The same for a Face Liveness browser role (face-liveness.test.ts).
          const tenantRoles = 'arn:aws:iam::<AWS::AccountId>:role/arthr-fir-[A-Za-z0-9-]+/(tenant|liveness-browser)/\\*';
          expect(a.id, a.resource).toMatch(
            new RegExp(
              `^AwsSolutions-IAM5\\[Resource::(arn:aws:(states:.*:(stateMachine|execution):arthr-fir-\\*|lambda:.*:function:arthr-fir-(activities|execution-end):\\*|rekognition:.*:collection/arthr-fir\\.\\*)|${imageObjects}|${tenantRoles})\\]$`,
            ),
          );
          continue;
        }
        // SQS3 (no DLQ of its own): only on the queues that are themselves dead-letter queues.
        if (a.id === 'AwsSolutions-SQS3') {
          expect(
            [
              'ArthrStack/Journeys/ExecutionEndDeadLetters/Resource',
              'ArthrStack/Images/CleanupDeadLetters/Resource',
              'ArthrStack/Exports/JobDeadLetters/Resource',
              'ArthrStack/Events/RelayDeadLetters/Resource',
              'ArthrStack/Events/DeliveryDeadLetters/Resource',
              'ArthrStack/Events/RetryDeadLetters/Resource',
            ],
            a.resource,
          ).toContain(a.path);
          continue;
        }
        // CloudFront's findings (geo restriction, WAF, TLS version and logging): only on the pages' distribution (pages.test.ts).
        if (/^AwsSolutions-CFR[1-4]$/.test(a.id)) {
          expect(a.path, a.resource).toMatch(/^ArthrStack\/Pages\/Distribution\//);
          continue;
        }
        // S1 (no access logs): only on the access-log bucket itself.
        if (a.id === 'AwsSolutions-S1') {
          expect(a.path, a.resource).toBe('ArthrStack/Images/AccessLogs/Resource');
          continue;
        }
        expect(['AwsSolutions-L1', 'AwsSolutions-APIG4'], `${a.id} on ${a.resource}`).toContain(a.id);
      }
      // Only routes the gateway is not meant to authenticate may skip authorization.
      const bearerPaths = routeList.filter((r) => r.auth === 'bearer').map((r) => `${apiRoutePath(r)}/`);
      const onBearer = acknowledged.filter((a) => a.id === 'AwsSolutions-APIG4' && bearerPaths.some((p) => a.path.startsWith(p)));
      expect(onBearer).toEqual([]);
    });
  });
});

describe('ArthrStack with a custom domain and issuer', () => {
  let synth: Synthesized;
  let template: Template;

  beforeAll(() => {
    // Strings, as `cdk synth -c key=value` passes them.
    synth = synthesize(
      {
        region: 'gum',
        serviceDomain: 'verify.example.org',
        issuer: 'https://auth.gum.example.org',
        audience: 'partner-api',
        tokenTtlSeconds: '900',
        throttleRateLimit: '20',
        throttleBurstLimit: '40',
        tenantRateLimit: '10',
        tokenRateLimit: '3',
        certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/00000000-0000-0000-0000-000000000000',
      },
      { bundle: false },
    );
    template = synth.template;
  }, 120_000);

  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  it('deploys to the AWS region the label maps to in cdk.json', () => {
    expect(synth.stack.region).toBe('us-east-1');
    // The activity function is named after the region label, as the state machines invoke it.
    template.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'arthr-gum-activities' });
    for (const f of Object.values(ofType(template, 'AWS::Lambda::Function')).filter((x) => !ownConfig(x))) {
      expect(f.Properties.Environment.Variables).toMatchObject({
        SERVICE_REGION: 'gum',
        SERVICE_DOMAIN: 'verify.example.org',
        TOKEN_ISSUER: 'https://auth.gum.example.org',
        TOKEN_AUDIENCE: 'partner-api',
        TOKEN_TTL_SECONDS: '900',
      });
    }
  });

  it('checks tokens against the configured issuer and audience', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: { Issuer: 'https://auth.gum.example.org', Audience: ['partner-api'] },
    });
    expect(template.findOutputs('Issuer').Issuer!.Value).toBe('https://auth.gum.example.org');
  });

  it('serves every tenant host of the region on one wildcard custom domain', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: '*.gum.verify.example.org',
      DomainNameConfigurations: [
        Match.objectLike({
          CertificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/00000000-0000-0000-0000-000000000000',
          EndpointType: 'REGIONAL',
        }),
      ],
    });
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    expect(Object.keys(template.findOutputs('TenantDomainTarget'))).toEqual(['TenantDomainTarget']);
  });

  it('applies the configured throttling, and the configured tenant and token issue rate limits', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
    });
    const told = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((x) => x.Properties.Environment?.Variables.TENANT_RATE_LIMIT);
    expect(told.length).toBeGreaterThan(0);
    for (const f of told) {
      expect(f.Properties.Environment.Variables.TENANT_RATE_LIMIT).toBe('10');
      expect(f.Properties.Environment.Variables.TOKEN_RATE_LIMIT).toBe('3');
    }
  });

  it('still passes the cdk-nag AwsSolutions pack', () => {
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});

describe('settingsFromContext', () => {
  const settingsFor = (context: Record<string, unknown>) =>
    settingsFromContext(new App({ context: { ...cdkJsonContext(), ...context } }).node);

  it('rejects a region label that is not a service region', () => {
    expect(() => settingsFor({ region: 'elm' })).toThrow(/region/);
  });

  it('rejects a token lifetime the functions would refuse at cold start', () => {
    expect(() => settingsFor({ tokenTtlSeconds: '10' })).toThrow(/tokenTtlSeconds/);
  });

  it('rejects a tenant rate limit over half the stage’s throttle (one tenant could use it all up)', () => {
    expect(() => settingsFor({ tenantRateLimit: '600' })).toThrow(/tenantRateLimit/);
    expect(() => settingsFor({ tenantRateLimit: '20', throttleRateLimit: '30' })).toThrow(/at most half/);
    expect(settingsFor({ tenantRateLimit: '500' }).tenantRateLimit).toBe(500);
  });

  it('takes a token issue limit (10 by default) no larger than the tenant rate limit', () => {
    expect(settingsFor({}).tokenRateLimit).toBe(10);
    expect(settingsFor({ tokenRateLimit: '5' }).tokenRateLimit).toBe(5);
    expect(() => settingsFor({ tokenRateLimit: '0' })).toThrow(/tokenRateLimit/);
    expect(() => settingsFor({ tokenRateLimit: '50', tenantRateLimit: '20' })).toThrow(/at most "tenantRateLimit"/);
  });

  it('reads documents with the embedded engine unless the context chooses Textract', () => {
    expect(settingsFor({}).documentEngine).toBe('embedded');
    expect(settingsFor({ documentEngine: 'textract' }).documentEngine).toBe('textract');
    expect(() => settingsFor({ documentEngine: 'regula' })).toThrow(/documentEngine/);
  });

  it('rejects an issuer the JWT authorizer cannot fetch keys from', () => {
    expect(() => settingsFor({ issuer: 'http://auth.fir.example.com' })).toThrow(/https/);
  });
});
