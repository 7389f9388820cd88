import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { adminToken, call, runJourney } from './client.js';

/**
 * Execute Cloud Function v2 in journeys: the tenant's function runs in the sandbox (the local
 * runner's child process), reads the variables and secrets its step lists, and what it returns
 * steers a gateway; its errors and timeouts take the step's error routes; its console output is
 * kept with the instance, secrets masked.
 */
const fresh = () => Math.random().toString(36).slice(2, 10);
const FACE = readFileSync(join(resolve(import.meta.dirname, '../fixtures'), 'face-640x480.jpg'));
let token: string;
let runtime: { imagesBucket: string; s3Endpoint: string };

beforeAll(async () => {
  token = await adminToken();
  runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8'));
});

async function deploy(name: string, source: string, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/api/process-manager/cloudFunctions', { token, body: { name, source, status: 'DEPLOYED_ACTIVE', ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; version: number };
}

/** A function step, then a gateway on what it returned: PASS when `approved`, REVIEW otherwise; its error events end apart. */
function journey(name: string, fn: string, inputs: Record<string, unknown> = {}) {
  return {
    name,
    version: 1,
    retentionDays: 1,
    startActivityId: 'score',
    activities: {
      score: {
        type: 'EXECUTE_CLOUD_FUNCTION_V2',
        inputs: { 'Function Name': fn, 'Process Variables': ['amount', 'uploadURL', 'uploadURL_headers'], ...inputs },
        next: 'route',
        errorEvents: { 'Function Error': 'failed', 'Function Timeout': 'timedOut', 'Function Not Found': 'missing', 'Cloud Secret Missing': 'missing' },
      },
      pass: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      review: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } },
    },
    gateways: { route: { name: 'Approved?', branches: [{ when: '${approved == true}', next: 'pass' }], default: 'review' } },
    ends: { failed: { error: 'functionFailed' }, timedOut: { error: 'functionTimedOut' }, missing: { error: 'functionMissing' } },
  };
}

async function run(definition: string, parameters: Record<string, string>) {
  const { id, status } = await runJourney(token, definition, parameters);
  const logs = (await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { token })).json;
  return { id, status, logs };
}

describe('Execute Cloud Function v2', () => {
  it("routes a gateway on what the function returns, given only its step's variables and secrets, its log kept with secrets masked", async () => {
    const fn = `score-${fresh()}`;
    const secretName = `scoring-key-${fresh()}`;
    const secretValue = `sk-${fresh()}${fresh()}`;
    expect((await call('POST', '/api/process-manager/cloudSecrets', { token, body: { name: secretName, value: secretValue } })).status).toBe(201);
    await deploy(
      fn,
      `export async function handler({ variables, secrets }) {
         console.log('scoring with', secrets['${secretName}'], 'for', JSON.stringify(Object.keys(variables)));
         if (secrets['${secretName}'] !== '${secretValue}') throw new Error('wrong secret');
         return { approved: Number(variables.amount) < 1000, scoredAt: 'now', seen: Object.keys(variables).sort() };
       }`,
    );
    const definition = `cf-journey-${fresh()}`;
    const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(definition, fn, { 'Cloud Secrets': [secretName], 'Rule Execution Name': 'scoring' }) });
    expect(published.status, published.text).toBe(201);

    const low = await run(definition, { amount: '500', firstName: 'Ann' });
    expect(low.status).toBe('COMPLETED_ENDED_SUCCESS');
    const high = await run(definition, { amount: '5000', firstName: 'Ann' });
    expect(high.status).toBe('REVIEW');

    expect(low.logs.content).toHaveLength(1);
    const [entry] = low.logs.content;
    expect(entry).toMatchObject({ activityId: 'score', functionName: fn, functionVersion: 1, outcome: 'SUCCEEDED', ruleExecutionName: 'scoring', error: null });
    const text = JSON.stringify(low.logs);
    expect(text).not.toContain(secretValue);
    expect(text).toContain('scoring with [secret] for');
    // Only the variables the step lists reach the function (not firstName).
    expect(entry.lines[0].message).toContain('["amount"]');
    expect(readFileSync(inject('logFile'), 'utf8')).not.toContain(secretValue);
  });

  it('gives a later step the secret an earlier one named, by an indexed reference (${idv.configSecrets[0]})', async () => {
    const secretName = `otp-${fresh()}`;
    expect((await call('POST', '/api/process-manager/cloudSecrets', { token, body: { name: secretName, value: 'the-otp-sender-key' } })).status).toBe(201);
    const config = `config-${fresh()}`;
    await deploy(config, `export const handler = () => ({ idv: { configSecrets: ['${secretName}'] } });`);
    const user = `user-${fresh()}`;
    await deploy(user, "export const handler = ({ secrets }) => ({ approved: Object.values(secrets).includes('the-otp-sender-key') && Object.keys(secrets).length === 1 });");
    const def = journey(`cf-indexed-${fresh()}`, user, { 'Cloud Secrets': ['${idv.configSecrets[0]}'] });
    const chained = {
      ...def,
      startActivityId: 'config',
      activities: { ...def.activities, config: { type: 'EXECUTE_CLOUD_FUNCTION_V2', inputs: { 'Function Name': config }, next: 'score' } },
    };
    const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: chained });
    expect(published.status, published.text).toBe(201);
    const done = await run(chained.name, { amount: '1' });
    expect(done.status, JSON.stringify(done.logs)).toBe('COMPLETED_ENDED_SUCCESS');
    expect(done.logs.content.map((r: { activityId: string }) => r.activityId).sort()).toEqual(['config', 'score']);
  });

  it('takes the error route when the function throws, and the timeout route when it runs past its time', async () => {
    const thrower = `throws-${fresh()}`;
    await deploy(thrower, "export function handler() { console.error('about to fail'); throw new Error('the provider said no'); }");
    const defThrow = `cf-throw-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(defThrow, thrower) })).status).toBe(201);
    const failed = await run(defThrow, { amount: '1' });
    expect(failed.status).toBe('COMPLETED_ENDED_ERROR');
    expect(failed.logs.content[0]).toMatchObject({ outcome: 'FAILED', error: { name: 'FunctionError' } });
    expect(failed.logs.content[0].error.message).toContain('the provider said no');

    const looper = `loops-${fresh()}`;
    await deploy(looper, 'export function handler() { for (;;) {} }', { timeoutSeconds: 1 });
    const defLoop = `cf-loop-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(defLoop, looper) })).status).toBe(201);
    const timedOut = await run(defLoop, { amount: '1' });
    expect(timedOut.status).toBe('COMPLETED_ENDED_ERROR');
    expect(timedOut.logs.content[0]).toMatchObject({ outcome: 'FAILED', error: { name: 'FunctionTimeout' } });
  }, 60_000);

  it('takes the missing route when no version is DEPLOYED_ACTIVE or a listed secret does not exist', async () => {
    const drafted = `draft-${fresh()}`;
    expect((await call('POST', '/api/process-manager/cloudFunctions', { token, body: { name: drafted, source: 'export const handler = () => ({ approved: true });' } })).status).toBe(201);
    const defDraft = `cf-draft-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(defDraft, drafted) })).status).toBe(201);
    expect((await run(defDraft, { amount: '1' })).status).toBe('COMPLETED_ENDED_ERROR');
    // The named version runs though it is a DRAFT.
    const defPinned = `cf-pinned-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(defPinned, drafted, { 'Function Version': 1 }) })).status).toBe(201);
    expect((await run(defPinned, { amount: '1' })).status).toBe('COMPLETED_ENDED_SUCCESS');

    const ok = `ok-${fresh()}`;
    await deploy(ok, 'export const handler = () => ({ approved: true });');
    const defSecret = `cf-secret-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(defSecret, ok, { 'Cloud Secrets': [`nope-${fresh()}`] }) })).status).toBe(201);
    expect((await run(defSecret, { amount: '1' })).status).toBe('COMPLETED_ENDED_ERROR');
  }, 60_000);

  it("PUTs an image to the upload URL an earlier step handed it, with the headers it was given, and cannot reach the service's own table", async () => {
    const dynamo = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')).dynamodbEndpoint as string;
    const fn = `uploader-${fresh()}`;
    await deploy(
      fn,
      `const IMAGE = '${FACE.toString('base64')}';
       export async function handler({ variables }) {
         const bytes = Uint8Array.from(atob(IMAGE), (c) => c.charCodeAt(0));
         const put = await fetch(variables.uploadURL, { method: 'PUT', headers: variables.uploadURL_headers, body: bytes });
         let table = 'reached';
         try { await fetch('${dynamo}', { method: 'POST', body: '{}' }); } catch (e) { table = 'refused: ' + e.message; }
         console.log('table', table, 'upload', put.status, await put.text());
         console.log(new URL(variables.uploadURL).pathname);
         return { approved: put.status === 200, uploadStatus: put.status, table };
       }`,
    );
    // The URL is the service's own (External Source Face Upload v1), signed with this start's secret.
    const def = journey(`cf-upload-${fresh()}`, fn);
    const withUpload = {
      ...def,
      startActivityId: 'makeUpload',
      activities: { ...def.activities, makeUpload: { type: 'EXTERNAL_SOURCE_FACE_UPLOAD_V1', inputs: { 'Image Key': 'idPhoto', 'Output Variable': 'uploadURL' }, next: 'score' } },
    };
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: withUpload })).status).toBe(201);
    const done = await run(withUpload.name, { amount: '1' });
    const lines = done.logs.content[0].lines.map((l: { message: string }) => l.message);
    expect(lines.join('\n')).toContain('table refused');
    expect(done.status, lines.join('\n')).toBe('COMPLETED_ENDED_SUCCESS');
    const [, bucket, ...key] = (lines[1] as string).split('/');
    expect(bucket).toBe(runtime.imagesBucket);
    expect(key.join('/')).toMatch(new RegExp(`^tenants/demo/instances/${done.id}/uploads/`));
    const stored = new S3Client({ endpoint: runtime.s3Endpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const object = await stored.send(new GetObjectCommand({ Bucket: runtime.imagesBucket, Key: decodeURIComponent(key.join('/')) }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(FACE)).toBe(true);
    expect(object.ContentType).toBe('image/jpeg');
  }, 60_000);
});
