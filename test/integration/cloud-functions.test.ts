import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import * as zip from '@zip.js/zip.js';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { localClient } from '../../lib/local/dynamodb.js';
import { face } from '../support/face-images.js';
import { adminToken, call, finalStatus, issueToken, keyWith } from './client.js';

const FUNCTIONS = '/api/process-manager/cloudFunctions';
const SECRETS = '/api/process-manager/cloudSecrets';
const fresh = () => Math.random().toString(36).slice(2, 10);
const SOURCE = 'export async function handler({ variables }) { return { doubled: variables.n * 2 }; }';

let token: string;
beforeAll(async () => {
  token = await adminToken();
});

async function zipOf(files: Record<string, string>): Promise<string> {
  const writer = new zip.ZipWriter(new zip.Uint8ArrayWriter(), { useWebWorkers: false });
  for (const [name, text] of Object.entries(files)) await writer.add(name, new zip.TextReader(text));
  return Buffer.from(await writer.close()).toString('base64');
}

describe('cloud functions by name and version', () => {
  it('adds versions of one module or of a zip, lists them newest first, reads one with its code, and moves it along its lifecycle', async () => {
    const name = `fn-${fresh()}`;
    const first = await call('POST', FUNCTIONS, { token, body: { name, description: 'doubles n', source: SOURCE } });
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({ name, version: 1, status: 'DRAFT', format: 'JAVASCRIPT', entryPoint: 'index.js', files: ['index.js'], timeoutSeconds: 30, memoryMb: 64 });
    expect(first.json.modules).toEqual({ 'index.js': SOURCE });
    expect(first.headers.location).toBe(`${FUNCTIONS}/${first.json.id}`);

    const modules = { 'main.mjs': "import { twice } from './lib/math.mjs'; export const handler = ({ variables }) => ({ doubled: twice(variables.n) });", 'lib/math.mjs': 'export const twice = (n) => n * 2;' };
    const second = await call('POST', FUNCTIONS, { token, body: { name, zip: await zipOf(modules), entryPoint: 'main.mjs', timeoutSeconds: '5', status: 'DEPLOYED_ACTIVE' } });
    expect(second.status, second.text).toBe(201);
    expect(second.json).toMatchObject({ version: 2, format: 'ZIP', entryPoint: 'main.mjs', files: ['lib/math.mjs', 'main.mjs'], timeoutSeconds: 5, status: 'DEPLOYED_ACTIVE' });
    expect(second.json.modules).toEqual(modules);

    const latest = await call('GET', `${FUNCTIONS}/${name}/versions?page=0&size=1&sort=version,desc`, { token });
    expect(latest.json.content).toHaveLength(1);
    expect(latest.json.content[0]).toMatchObject({ version: 2, id: second.json.id });
    expect(latest.json.content[0]).not.toHaveProperty('modules');
    expect(latest.json.totalElements).toBe(2);

    expect((await call('GET', `${FUNCTIONS}/${first.json.id}`, { token })).json.modules).toEqual({ 'index.js': SOURCE });
    const archived = await call('POST', `${FUNCTIONS}/${first.json.id}/status/ARCHIVED`, { token });
    expect(archived.json.status).toBe('ARCHIVED');
    expect((await call('POST', `${FUNCTIONS}/${first.json.id}/status/DRAFT`, { token })).json.code).toBe('INVALID_STATUS_TRANSITION');
    const again = await call('POST', FUNCTIONS, { token, body: { name, version: 2, source: SOURCE } });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('CLOUD_FUNCTION_EXISTS');
  });

  it('takes EDITABLE, the family\u2019s draft, on create: it reads EDITABLE and moves as a DRAFT', async () => {
    const name = `fn-${fresh()}`;
    const made = await call('POST', FUNCTIONS, { token, body: { name, source: SOURCE, status: 'EDITABLE' } });
    expect(made.status, made.text).toBe(201);
    expect(made.json.status).toBe('EDITABLE');
    expect((await call('GET', `${FUNCTIONS}/${made.json.id}`, { token })).json.status).toBe('EDITABLE');
    expect((await call('GET', `${FUNCTIONS}/${name}/versions`, { token })).json.content[0].status).toBe('EDITABLE');
    expect((await call('POST', `${FUNCTIONS}/${made.json.id}/status/DEPLOYED_INACTIVE`, { token })).json.code).toBe('INVALID_STATUS_TRANSITION');
    expect((await call('POST', `${FUNCTIONS}/${made.json.id}/status/DEPLOYED_ACTIVE`, { token })).json.status).toBe('DEPLOYED_ACTIVE');
    const unknown = await call('POST', FUNCTIONS, { token, body: { name, source: SOURCE, status: 'RUNNING' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.details.map((d: { location: string }) => d.location)).toContain('body.status');
  });

  it.each([
    ['neither source nor zip', {}, 'body'],
    ['both source and zip', { source: SOURCE, zip: 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==' }, 'body'],
    ['a zip that is not base64', { zip: '%%%' }, 'body.zip'],
    ['a zip that is not a zip', { zip: Buffer.from('hello').toString('base64') }, 'body.zip'],
    ['an entry point outside the upload', { source: SOURCE, entryPoint: '../index.js' }, 'body.entryPoint'],
    ['code over 300 KiB', { source: `// ${'x'.repeat(300 * 1024)}` }, 'body.source'],
    ['a timeout over 60 s', { source: SOURCE, timeoutSeconds: 61 }, 'body.timeoutSeconds'],
    ['a name with a slash', { name: 'a/b', source: SOURCE }, 'body.name'],
  ])('refuses %s with 400 naming it', async (_what, patch, location) => {
    const res = await call('POST', FUNCTIONS, { token, body: { name: `fn-${fresh()}`, ...patch } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.details.map((d: { location: string }) => d.location)).toContain(location);
  });

  it('refuses zips whose paths leave the upload, or that unpack past the limit', async () => {
    const escape = await call('POST', FUNCTIONS, { token, body: { name: `fn-${fresh()}`, zip: await zipOf({ '../evil.js': SOURCE }) } });
    expect(escape.status).toBe(400);
    // A small zip that inflates to more than the code limit.
    const bomb = await call('POST', FUNCTIONS, { token, body: { name: `fn-${fresh()}`, zip: await zipOf({ 'index.js': `// ${'a'.repeat(400 * 1024)}` }) } });
    expect(bomb.status).toBe(400);
    expect(bomb.json.details[0].message).toContain('unpacks to more than');
  });

  it("keeps tenants' functions apart and needs their permissions", async () => {
    const name = `fn-${fresh()}`;
    const mine = await call('POST', FUNCTIONS, { token, body: { name, source: SOURCE } });
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `${FUNCTIONS}/${mine.json.id}`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('GET', `${FUNCTIONS}/${name}/versions`, { tenant: 'other', token: theirs })).json.content).toEqual([]);
    const reader = await issueToken((await keyWith(['ProcessManager:getCloudFunctions'])).secret);
    expect((await call('GET', `${FUNCTIONS}/${mine.json.id}`, { token: reader })).status).toBe(200);
    expect((await call('POST', FUNCTIONS, { token: reader, body: { name, source: SOURCE } })).status).toBe(403);
    expect((await call('POST', `${FUNCTIONS}/${mine.json.id}/status/ARCHIVED`, { token: reader })).status).toBe(403);
  });
});

describe('cloud secrets', () => {
  it('are write-only: created, listed, read and rotated without their value ever coming back, and stored sealed', async () => {
    const name = `secret-${fresh()}`;
    const value = `sk_live_${fresh()}${fresh()}`;
    const created = await call('POST', SECRETS, { token, body: { name, description: 'OTP sender key', value } });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ name, description: 'OTP sender key', version: 1 });
    expect(created.text).not.toContain(value);
    const read = await call('GET', `${SECRETS}/${name}`, { token });
    expect(read.json).toEqual(created.json);
    const page = await call('GET', `${SECRETS}?name=${name}`, { token });
    expect(page.json.content).toEqual([created.json]);
    expect(page.text).not.toContain(value);

    const rotated = await call('POST', `${SECRETS}/${name}`, { token, body: { value: `${value}-2` } });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json).toMatchObject({ version: 2, description: 'OTP sender key' });
    expect(rotated.text).not.toContain(value);

    // At rest: ciphertext only, in the table and in the service's log.
    const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')) as { dynamodbEndpoint: string; tableName: string };
    const db = localClient(runtime.dynamodbEndpoint);
    try {
      const items = await db.send(new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': { S: 'TNT#demo#CLOUDSECRETS' } } }));
      expect(JSON.stringify(items.Items)).not.toContain(value);
      expect(JSON.stringify(items.Items)).toContain(name);
    } finally {
      db.destroy();
    }
    expect(readFileSync(inject('logFile'), 'utf8')).not.toContain(value);

    expect((await call('POST', SECRETS, { token, body: { name, value: 'xxxxxxxx' } })).json.code).toBe('CLOUD_SECRET_EXISTS');
    expect((await call('DELETE', `${SECRETS}/${name}`, { token })).status).toBe(204);
    expect((await call('GET', `${SECRETS}/${name}`, { token })).json.code).toBe('CLOUD_SECRET_NOT_FOUND');
    expect((await call('DELETE', `${SECRETS}/${name}`, { token })).status).toBe(404);
    expect((await call('POST', `${SECRETS}/${name}`, { token, body: { value: 'xxxxxxxx' } })).status).toBe(404);
  });

  it('takes a value of exactly 4,096 bytes and refuses one more, and takes 8 characters and refuses 7 (shorter ones could not be masked)', async () => {
    expect((await call('POST', SECRETS, { token, body: { name: `s-${fresh()}`, value: 'é'.repeat(2048) } })).status).toBe(201);
    const over = await call('POST', SECRETS, { token, body: { name: `s-${fresh()}`, value: `${'é'.repeat(2048)}x` } });
    expect(over.status).toBe(400);
    expect(over.json.details[0].location).toBe('body.value');
    expect((await call('POST', SECRETS, { token, body: { name: `s-${fresh()}`, value: '' } })).status).toBe(400);
    expect((await call('POST', SECRETS, { token, body: { name: `s-${fresh()}`, value: '1234567' } })).status).toBe(400);
    expect((await call('POST', SECRETS, { token, body: { name: `s-${fresh()}`, value: '12345678' } })).status).toBe(201);
  });

  it("keep to their tenant and need their permissions", async () => {
    const name = `secret-${fresh()}`;
    await call('POST', SECRETS, { token, body: { name, value: 'vvvvvvvv' } });
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `${SECRETS}/${name}`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('DELETE', `${SECRETS}/${name}`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('POST', `${SECRETS}/${name}`, { tenant: 'other', token: theirs, body: { value: 'hijacked!' } })).status).toBe(404);
    const reader = await issueToken((await keyWith(['ProcessManager:getCloudSecrets'])).secret);
    expect((await call('GET', `${SECRETS}/${name}`, { token: reader })).status).toBe(200);
    expect((await call('POST', `${SECRETS}/${name}`, { token: reader, body: { value: 'xxxxxxxx' } })).status).toBe(403);
    expect((await call('DELETE', `${SECRETS}/${name}`, { token: reader })).status).toBe(403);
    expect((await call('POST', SECRETS, { token: reader, body: { name: `s-${fresh()}`, value: 'xxxxxxxx' } })).status).toBe(403);
  });
});

describe('cloud function logs', () => {
  it("answer an instance's runs (none yet), and 404 for another tenant's instance", async () => {
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `logs-${fresh()}`, processDefnName: 'identity-check', processDefnVersion: '1' } });
    const id = (await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token })).json.processInstanceId;
    const logs = await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { token });
    expect(logs.status, logs.text).toBe(200);
    expect(logs.json).toEqual({ content: [] });
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { tenant: 'other', token: theirs })).status).toBe(404);
  });
});

describe('Execute Cloud Function v2 on the local runtime', () => {
  it("rejects when a function reads or writes another tenant's image with a URL signed with local/local, or calls the local S3 or DynamoDB Local itself", async () => {
    const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')) as {
      s3Endpoint: string;
      s3PublicEndpoint: string;
      dynamodbEndpoint: string;
      imagesBucket: string;
    };
    // The demo tenant's image, PUT through the upload slot the service handed out: that URL works.
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `victim-${fresh()}`, processDefnName: 'identity-check', processDefnVersion: 1, processInstanceInit: { externalSources: { faceUploads: { reference: { imageFormat: 'JPEG' } } } } },
    });
    expect(pt.status, pt.text).toBe(201);
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const slot = created.json.externalSources.faceUploads.reference as { uploadUrl: string; uploadHeaders: Record<string, string> };
    const image = face('person-b-crop-bar55.jpg');
    expect((await fetch(slot.uploadUrl, { method: 'PUT', body: image, headers: slot.uploadHeaders })).status).toBe(200);
    const key = decodeURIComponent(new URL(slot.uploadUrl).pathname.split('/').slice(2).join('/'));

    // URLs to that image signed with the old constant credentials, here rather than in the
    // function only because its sandbox has no HMAC: SigV4 is public, and so were the constants.
    const forger = new S3Client({ endpoint: runtime.s3PublicEndpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const forgedGet = await getSignedUrl(forger, new GetObjectCommand({ Bucket: runtime.imagesBucket, Key: key }), { expiresIn: 300 });
    const forgedPut = await getSignedUrl(forger, new PutObjectCommand({ Bucket: runtime.imagesBucket, Key: key, ContentType: 'image/jpeg' }), {
      expiresIn: 300,
      signableHeaders: new Set(['content-type']),
    });
    // The runtime's own services on loopback: fauxqs (S3 and SQS) and DynamoDB Local (table and stream), by each name of this machine.
    const s3Port = new URL(runtime.s3Endpoint).port;
    const dbPort = new URL(runtime.dynamodbEndpoint).port;
    const direct = [
      `${runtime.s3Endpoint}/${runtime.imagesBucket}/${key}`,
      `https://127.0.0.1:${s3Port}/${runtime.imagesBucket}/${key}`,
      `https://localhost:${s3Port}/`,
      `${runtime.dynamodbEndpoint}/`,
      `https://127.0.0.1:${dbPort}/`,
      `https://[::ffff:127.0.0.1]:${dbPort}/`,
    ];

    // Another tenant's function tries each.
    const theirs = await issueToken(inject('otherKey'), 'other');
    const fn = `probe-${fresh()}`;
    const deployed = await call('POST', FUNCTIONS, {
      tenant: 'other',
      token: theirs,
      body: {
        name: fn,
        status: 'DEPLOYED_ACTIVE',
        source: `export async function handler({ variables }) {
          const seen = {};
          const attempt = async (label, url, init) => {
            try {
              const res = await fetch(url, init);
              seen[label] = 'status ' + res.status + ' ' + (await res.text()).slice(0, 120);
            } catch (e) {
              seen[label] = 'refused ' + e.code;
            }
          };
          await attempt('get', variables.forgedGet);
          await attempt('put', variables.forgedPut, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body: 'overwritten' });
          for (const url of JSON.parse(variables.direct)) await attempt(url, url, url.includes(':${dbPort}/') ? { method: 'POST', body: '{}' } : undefined);
          console.log(JSON.stringify(seen));
          return { probed: true };
        }`,
      },
    });
    expect(deployed.status, deployed.text).toBe(201);
    const definition = `cf-probe-${fresh()}`;
    const published = await call('POST', '/api/process-manager/processDefinitions', {
      tenant: 'other',
      token: theirs,
      body: {
        name: definition,
        version: 1,
        retentionDays: 1,
        startActivityId: 'probe',
        activities: {
          probe: { type: 'EXECUTE_CLOUD_FUNCTION_V2', inputs: { 'Function Name': fn, 'Process Variables': ['forgedGet', 'forgedPut', 'direct'] }, next: 'pass' },
          pass: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    const token2 = await call('POST', '/api/process-manager/processTokens', {
      tenant: 'other',
      token: theirs,
      body: { name: `probe-${fresh()}`, processDefnName: definition, processDefnVersion: '1', parameters: { forgedGet, forgedPut, direct: JSON.stringify(direct) } },
    });
    expect(token2.status, token2.text).toBe(201);
    const run = await call('POST', `/api/process-manager/processInstances/create?pt=${token2.json.id}`, { tenant: 'other', token: theirs });
    expect(run.status, run.text).toBe(201);
    const id = run.json.processInstanceId as string;
    expect(await finalStatus(id, theirs, { tenant: 'other' })).toBe('COMPLETED_ENDED_SUCCESS');
    const logs = (await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { tenant: 'other', token: theirs })).json;
    const seen = JSON.parse(logs.content[0].lines[0].message) as Record<string, string>;

    // The gateway answers S3's 403 to a signature it did not make, for reading and for writing.
    expect(seen.get).toMatch(/^status 403 [\s\S]*<Code>AccessDenied<\/Code>/);
    expect(seen.put).toMatch(/^status 403 [\s\S]*<Code>AccessDenied<\/Code>/);
    // The guard refuses the runtime's own services whatever the scheme or name; over https the
    // only rule that applies is that they are the runtime's own.
    for (const url of direct) expect(seen[url], url).toMatch(url.startsWith('https:') ? /^refused internal$/ : /^refused /);
    // The image is as its upload left it.
    const stored = new S3Client({ endpoint: runtime.s3Endpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const object = await stored.send(new GetObjectCommand({ Bucket: runtime.imagesBucket, Key: key }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(image)).toBe(true);
  }, 60_000);
});
