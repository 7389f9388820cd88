/**
 * The Face Liveness routes on AWS (aws-sdk-client-mock for DynamoDB, Rekognition and STS):
 * startFaceLivenessSession counts, creates, keeps and hands out a session with the browser's
 * credentials, and fails the way AWS fails (a throttle, the step's limit, a step that takes no
 * such check); getFaceLivenessAsset serves the component's script only where the service is.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CreateFaceLivenessSessionCommand, RekognitionClient } from '@aws-sdk/client-rekognition';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { resetConfigForTests } from '../../functions/config.js';
import { keys } from '../../functions/store/keys.js';
import { hashCapability } from '../../functions/process-manager/instances/instances.js';
import type { ProcessInstanceRecord } from '../../functions/process-manager/model.js';
import { FACE_LIVENESS_ASSET, unavailableFaceLiveness } from '../../functions/faces/liveness-service.js';

const ddb = mockClient(DynamoDBDocumentClient);
const rekognition = mockClient(RekognitionClient);
const sts = mockClient(STSClient);
const ID = '6f1c2f0e-3b1d-4c55-9a0e-2f4b7c8d9e10';
const CAPABILITY = 'c'.repeat(43);
const SESSION = '0f3c3b2e-6a61-4d5e-9b1a-2c7d9e8f1a2b';
const ROLE = 'arn:aws:iam::111122223333:role/arthr-fir-startFaceLivenessSession/liveness-browser/x';
const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });

const instance: ProcessInstanceRecord = {
  tenantId: 'acme', id: ID, processDefnId: 'd', processDefnName: 'n', processDefnVersion: 1, processTokenId: 't', status: 'ACTIVE',
  createdAt: '2030-01-01T00:00:00.000Z', lastUpdatedAt: '2030-01-01T00:00:00.000Z', retentionDays: 90, expiringDtm: '2099-01-01T00:00:00.000Z',
  expiresAt: Math.floor(Date.parse('2099-01-01T00:00:00.000Z') / 1000), parameters: {}, capabilityHash: hashCapability(CAPABILITY), stateMachineArn: 'arn', createdBy: 'apikey:k',
};
const step = (inputs: Record<string, unknown>) => ({ activityId: 'selfie', activityType: 'CAPTURE_FACE_IMAGE', inputs, state: {}, taskToken: 'tt', since: '2030-01-01T00:00:00.000Z', expiresAt: instance.expiresAt });

function event(path: string, method = 'POST', headers: Record<string, string> = {}): APIGatewayProxyEventV2 {
  const [rawPath, query = ''] = path.split('?');
  return {
    version: '2.0',
    routeKey: `${method} ${rawPath}`,
    rawPath,
    rawQueryString: query,
    queryStringParameters: Object.fromEntries(new URLSearchParams(query)),
    pathParameters: rawPath!.includes('/steps/') ? { processInstanceId: ID, activityId: 'selfie' } : {},
    headers: { host: 'acme.fir.example.com', ...headers },
    isBase64Encoded: false,
    requestContext: { requestId: 'r', domainName: 'acme.fir.example.com', http: { method, path: rawPath } },
  } as unknown as APIGatewayProxyEventV2;
}

type Handler = (e: APIGatewayProxyEventV2) => Promise<{ statusCode: number; body?: string; headers?: Record<string, string>; isBase64Encoded?: boolean }>;
const saved = { ...process.env };
let start: Handler;
let asset: Handler;
const assetDir = mkdtempSync(join(tmpdir(), 'liveness-asset-'));

beforeAll(async () => {
  Object.assign(process.env, {
    TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example',
    TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'SILENT', AWS_REGION: 'eu-west-1',
    FACE_LIVENESS: 'rekognition', LIVENESS_BROWSER_ROLE_ARN: ROLE, FACE_LIVENESS_ASSET_DIR: assetDir,
  });
  resetConfigForTests();
  writeFileSync(join(assetDir, FACE_LIVENESS_ASSET), `/* the component */ ${'console.log("liveness");'.repeat(200)}`);
  ({ handler: start } = (await import('../../functions/journey/start-face-liveness-session.js')) as never);
  ({ handler: asset } = (await import('../../functions/journey/get-face-liveness-asset.js')) as never);
});
afterAll(() => {
  process.env = saved;
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  rekognition.reset();
  sts.reset();
});

const sessionPath = `/journey/${ID}/steps/selfie/face/liveness-session?c=${CAPABILITY}`;
function waiting(inputs: Record<string, unknown>) {
  ddb.on(GetCommand, { Key: keys.instance('acme', ID) }).resolves({ Item: { ...keys.instance('acme', ID), itemType: 'ProcessInstance', ...instance } });
  ddb.on(GetCommand, { Key: keys.instanceStep('acme', ID) }).resolves({ Item: { ...keys.instanceStep('acme', ID), itemType: 'WaitingStep', ...step(inputs) } });
}
const REKOGNITION = { 'Liveness Check': 'REKOGNITION', 'Rekognition Challenge': 'FaceMovementChallenge', 'Rekognition Audit Images': 3 };

describe('startFaceLivenessSession (handler)', () => {
  it('counts the session against the step, creates it, keeps it in the instance partition and answers it with the browser credentials', async () => {
    waiting(REKOGNITION);
    ddb.on(UpdateCommand).resolves({});
    ddb.on(PutCommand).resolves({});
    rekognition.on(CreateFaceLivenessSessionCommand).resolves({ SessionId: SESSION });
    sts.on(AssumeRoleCommand).resolves({ Credentials: { AccessKeyId: 'ASIA1', SecretAccessKey: 's', SessionToken: 'tok', Expiration: new Date('2030-01-01T00:15:00Z') } });
    const res = await start(event(sessionPath));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body!)).toEqual({
      sessionId: SESSION,
      region: 'eu-west-1',
      challenge: 'FaceMovementChallenge',
      credentials: { accessKeyId: 'ASIA1', secretAccessKey: 's', sessionToken: 'tok', expiration: '2030-01-01T00:15:00.000Z' },
    });
    // Counted first: a refused count creates nothing.
    const count = ddb.commandCalls(UpdateCommand).find((c) => c.args[0].input.Key?.SK === keys.instanceFaceLivenessCount('acme', ID, 'selfie').SK)!;
    expect(count.args[0].input).toMatchObject({ ConditionExpression: 'attribute_not_exists(started) OR started < :max', ExpressionAttributeValues: { ':max': 10, ':exp': instance.expiresAt } });
    const created = rekognition.commandCalls(CreateFaceLivenessSessionCommand)[0]!.args[0].input;
    expect(created.Settings).toEqual({ AuditImagesLimit: 3, ChallengePreferences: [{ Type: 'FaceMovementChallenge' }] });
    expect(created.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
    const kept = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(kept.Item).toMatchObject({ ...keys.instanceFaceLivenessSession('acme', ID, SESSION), itemType: 'FaceLivenessSession', activityId: 'selfie', sessionId: SESSION, challenge: 'FaceMovementChallenge' });
    expect(kept.Item!.PK).toBe(keys.instance('acme', ID).PK);
    expect(sts.commandCalls(AssumeRoleCommand)[0]!.args[0].input).toMatchObject({ RoleArn: ROLE, DurationSeconds: 900 });
  });

  it("refuses the eleventh session of a step (429) before Rekognition is asked", async () => {
    waiting(REKOGNITION);
    ddb.on(UpdateCommand).rejects(named('ConditionalCheckFailedException'));
    const res = await start(event(sessionPath));
    expect(res.statusCode).toBe(429);
    expect(JSON.parse(res.body!).code).toBe('LIVENESS_SESSION_LIMIT');
    expect(rekognition.calls()).toHaveLength(0);
    expect(sts.calls()).toHaveLength(0);
  });

  it('answers 503 when Rekognition or STS throttles, with nothing handed out', async () => {
    waiting(REKOGNITION);
    ddb.on(UpdateCommand).resolves({});
    ddb.on(PutCommand).resolves({});
    rekognition.on(CreateFaceLivenessSessionCommand).rejectsOnce(named('ThrottlingException', { $retryable: { throttling: true } })).resolves({ SessionId: SESSION });
    const first = await start(event(sessionPath));
    expect(first.statusCode).toBe(503);
    expect(first.headers?.['retry-after'] ?? first.headers?.['Retry-After']).toBeDefined();
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    sts.on(AssumeRoleCommand).rejects(named('Throttling', { $metadata: { httpStatusCode: 400 }, $retryable: { throttling: true } }));
    const second = await start(event(sessionPath));
    expect(second.statusCode).toBe(503);
    expect(JSON.parse(second.body!)).not.toHaveProperty('credentials');
  });

  it('refuses a step that takes no Rekognition check, and a wrong link, asking AWS nothing beyond the reads', async () => {
    waiting({ 'Liveness Check': 'ACTIVE' });
    const res = await start(event(sessionPath));
    expect(res.statusCode).toBe(409);
    expect(JSON.parse(res.body!).code).toBe('STEP_NOT_WAITING');
    const wrong = await start(event(sessionPath.replace(CAPABILITY, 'd'.repeat(43))));
    expect(wrong.statusCode).toBe(404);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(rekognition.calls()).toHaveLength(0);
  });
});

describe('getFaceLivenessAsset (handler)', () => {
  it('serves the script compressed to a browser that takes gzip, plain to one that does not, 304 for a current copy', async () => {
    const gz = await asset(event('/journey/liveness/face-liveness.js', 'GET', { 'accept-encoding': 'gzip, deflate, br' }));
    expect(gz.statusCode).toBe(200);
    expect(gz.headers?.['content-encoding']).toBe('gzip');
    expect(gz.isBase64Encoded).toBe(true);
    const text = gunzipSync(Buffer.from(gz.body!, 'base64')).toString('utf8');
    expect(text).toMatch(/^\/\* the component \*\//);
    const plain = await asset(event('/journey/liveness/face-liveness.js', 'GET', { 'accept-encoding': 'gzip;q=0, identity' }));
    expect(plain.headers?.['content-encoding']).toBeUndefined();
    expect(Buffer.from(plain.body!, plain.isBase64Encoded ? 'base64' : 'utf8').toString('utf8')).toBe(text);
    const etag = gz.headers!.etag!;
    expect((await asset(event('/journey/liveness/face-liveness.js', 'GET', { 'if-none-match': etag }))).statusCode).toBe(304);
  });

  it('is no route where the deployment has no Rekognition Face Liveness (404)', async () => {
    process.env.FACE_LIVENESS = '';
    delete process.env.FACE_LIVENESS;
    resetConfigForTests();
    try {
      const res = await asset(event('/journey/liveness/face-liveness.js', 'GET'));
      expect(res.statusCode).toBe(404);
      expect(JSON.parse(res.body!).code).toBe('FACE_LIVENESS_NOT_AVAILABLE');
    } finally {
      process.env.FACE_LIVENESS = 'rekognition';
      resetConfigForTests();
    }
  });
});

describe('publishing Liveness Check REKOGNITION', () => {
  const capture = (check: string) => ({ selfie: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Liveness Check': check } } }) as never;
  it('is refused where the deployment has no Face Liveness, naming the regions, and taken where it has', () => {
    const problems = unavailableFaceLiveness(capture('REKOGNITION'), false);
    expect(problems).toEqual([{ location: 'activities.selfie.inputs.Liveness Check', message: expect.stringMatching(/runs only on AWS, in us-east-1, .*eu-west-1.*ap-southeast-7 \(the local runtime has no such service\)/) }]);
    expect(unavailableFaceLiveness(capture('REKOGNITION'), true)).toEqual([]);
    expect(unavailableFaceLiveness(capture('ACTIVE'), false)).toEqual([]);
  });
});
