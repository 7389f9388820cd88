import { instanceEvents } from '../../functions/events/catalogue.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as zip from '@zip.js/zip.js';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { BatchWriteItemCommand, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { MAX_FACE_IMAGE_BYTES } from '../../functions/journey/face-limits.js';
import { LAMBDA_MAX_PAYLOAD } from '../../lib/local/server.js';
import { localClient } from '../../lib/local/dynamodb.js';
import { adminToken, call, finalStatus, issueToken, multipart, pageUntil } from './client.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');
const FACE = readFileSync(join(FIXTURES, 'face-640x480.jpg'));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const fresh = () => Math.random().toString(36).slice(2, 10);
/**
 * The fixture padded after its end marker to `size` bytes of random data: a photo's bytes do not
 * compress, so neither does this (zeros would deflate to nothing in the zip).
 */
const jpegOfSize = (size: number) => Buffer.concat([FACE, randomBytes(size - FACE.length)]);
const PASSWORD = 'Correct-Horse-9-Battery';

let token: string;
let runtime: { s3PublicEndpoint: string; exportsBucket: string; dynamodbEndpoint: string; tableName: string };

beforeAll(async () => {
  token = await adminToken();
  runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8'));
});

/** Plain GET of an absolute URL (a pre-signed download), as a browser or curl would. */
async function download(url: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** A definition with three face captures, so its user data holds three images. */
function threeFaces(name: string) {
  const capture = (key: string, next: string) => ({ type: 'CAPTURE_FACE_IMAGE', name: `Capture ${key}`, inputs: { 'Face Key': key }, next });
  return {
    name,
    version: 1,
    description: 'Three face captures, for user data over the Lambda response limit.',
    retentionDays: 1,
    startActivityId: 'f1',
    activities: {
      f1: capture('f1', 'f2'),
      f2: capture('f2', 'f3'),
      f3: capture('f3', 'decide'),
      decide: { type: 'SIMPLE_DECIDER', name: 'Decision', rules: [{ when: { errorEvent: true }, outcome: 'FAIL' }], default: 'PASS' },
    },
  };
}

/** A completed instance whose three images are `sizes` bytes each. */
async function instanceWithImages(sizes: number[]): Promise<{ id: string; defnId: string; images: Buffer[] }> {
  const name = `exports-${fresh()}`;
  expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: threeFaces(name) })).status).toBe(201);
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `ex-${fresh()}`, processDefnName: name, processDefnVersion: 1, parameters: {} } });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const id = created.json.processInstanceId as string;
  const url = new URL(created.json.redirectUrl);
  const c = url.searchParams.get('c')!;
  const images = sizes.map((size) => jpegOfSize(size));
  for (const [i, image] of images.entries()) {
    const step = `f${i + 1}`;
    await pageUntil(`${url.pathname}${url.search}&lang=en`, `/steps/${step}/`);
    const sent = await call('POST', `/journey/${id}/steps/${step}/face?c=${c}&lang=en`, multipart(image));
    expect(sent.status).toBe(303);
  }
  expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  return { id, defnId, images };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Follows a 202's Location until the job ends; its last status read. */
async function jobEnd(location: string) {
  return until(`export ${location}`, async () => {
    const res = await call('GET', location, { token });
    expect(res.status).toBe(200);
    return res.json.status === 'SUCCEEDED' || res.json.status === 'FAILED' ? res.json : undefined;
  });
}

const big = MAX_FACE_IMAGE_BYTES - 4096;

describe('user data over the Lambda response limit', () => {
  let j: Awaited<ReturnType<typeof instanceWithImages>>;
  beforeAll(async () => {
    j = await instanceWithImages([big, big, big]);
  }, 120_000);
  const base = () => `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}`;

  it('serves the images past the budget by pre-signed URLs that download their bytes, under 6 MB in all', async () => {
    // Inline, three images of 3 MiB are 12 MB of base64: API Gateway's 500 (ResponseSizeTooLarge).
    expect(4 * Math.ceil((3 * big) / 3)).toBeGreaterThan(LAMBDA_MAX_PAYLOAD);
    const res = await call('GET', `${base()}/userdata`, { token });
    expect(res.status).toBe(200);
    expect(res.raw.length).toBeLessThan(LAMBDA_MAX_PAYLOAD);
    const images = res.json.images as { data?: string; url?: string; urlExpiresAt?: string; sha256: string; imageKey: string }[];
    expect(images.map((i) => i.imageKey)).toEqual(['f1', 'f2', 'f3']);
    expect(Buffer.from(images[0]!.data!, 'base64').equals(j.images[0]!)).toBe(true);
    expect(images[0]!.url).toBeUndefined();
    for (const [i, image] of images.slice(1).entries()) {
      expect(image.data).toBeUndefined();
      expect(image.url).toMatch(/X-Amz-Signature=/);
      const left = Date.parse(image.urlExpiresAt!) - Date.now();
      expect(left).toBeGreaterThan(200_000);
      expect(left).toBeLessThanOrEqual(300_000);
      const got = await download(image.url!);
      expect(got.status).toBe(200);
      expect(got.body.equals(j.images[i + 1]!)).toBe(true);
      expect(sha256(got.body)).toBe(image.sha256);
    }
  });

  it('answers getdata the same way, within its smaller budget (the document is base64-encoded again)', async () => {
    const res = await call('GET', `${base()}/getdata`, { token });
    expect(res.status).toBe(200);
    expect(res.raw.length).toBeLessThan(LAMBDA_MAX_PAYLOAD);
    const doc = JSON.parse(Buffer.from(res.json.data, 'base64').toString('utf8'));
    expect(doc.images.filter((i: { data?: string }) => i.data)).toHaveLength(1);
    const viaUrl = doc.images.filter((i: { url?: string }) => i.url);
    expect(viaUrl).toHaveLength(2);
    expect((await download(viaUrl[1].url)).body.equals(j.images[2]!)).toBe(true);
  });

  it('refuses a forged, re-targeted or expired pre-signed URL, as S3 does', async () => {
    const url = new URL((await call('GET', `${base()}/userdata`, { token })).json.images[1].url);
    const forged = new URL(url);
    const sig = forged.searchParams.get('X-Amz-Signature')!;
    forged.searchParams.set('X-Amz-Signature', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    expect((await download(forged.toString())).status).toBe(403);
    // The same signature for another object (the third image) does not open it.
    const other = new URL(url);
    other.pathname = url.pathname.replace(/[^/]+$/, 'other.jpg');
    expect((await download(other.toString())).status).toBe(403);
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    expect((await download(longer.toString())).status).toBe(403);
    const unsigned = new URL(url);
    for (const k of [...unsigned.searchParams.keys()]) unsigned.searchParams.delete(k);
    expect((await download(unsigned.toString())).status).toBe(403);
    // Signed with the constant credentials local/local (in the source, so anyone could sign with
    // them): refused, as only this start's secret signs. The URL the service handed out: served.
    // (Expiry is checkPresigned's unit test: only the service can sign a URL here now.)
    const key = decodeURIComponent(url.pathname.split('/').slice(2).join('/'));
    const signer = new S3Client({ endpoint: runtime.s3PublicEndpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const res = await download(await getSignedUrl(signer, new GetObjectCommand({ Bucket: url.pathname.split('/')[1], Key: key }), { expiresIn: 300 }));
    expect(res.status).toBe(403);
    expect(res.body.toString()).toContain('AccessDenied');
    expect((await download(url.toString())).status).toBe(200);
  });

  it('makes an archive over 4.4 MB as an export job: 202, then a download that opens with the password', async () => {
    const started = await call('POST', `${base()}/userdataarchive`, { token, body: { config: { password: PASSWORD } } });
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({ kind: 'USER_DATA_ARCHIVE', status: 'PENDING', fileName: `userdata-${j.id}.zip` });
    const location = String(started.headers.location);
    expect(location).toBe(`${base()}/userdataarchive/exports/${started.json.exportId}`);

    const done = await jobEnd(location);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.bytes).toBeGreaterThan(4_400_000);
    const got = await download(done.url);
    expect(got.status).toBe(200);
    expect(got.body.length).toBe(done.bytes);
    expect(got.headers.get('content-disposition')).toBe(`attachment; filename="userdata-${j.id}.zip"`);
    const entries = await new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(got.body)), { password: PASSWORD }).getEntries();
    expect(entries.every((e) => e.encrypted)).toBe(true);
    expect(entries.map((e) => e.filename)).toEqual(['userdata.json', ...['f1', 'f2', 'f3'].map((k) => expect.stringMatching(new RegExp(`^images/${k}-[0-9a-f-]{36}\\.jpg$`)))]);
    for (const [i, entry] of entries.slice(1).entries()) {
      expect(Buffer.from(await (entry as zip.FileEntry).getData(new zip.Uint8ArrayWriter())).equals(j.images[i]!)).toBe(true);
    }
    await expect(new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(got.body)), { password: 'Wrong-Password-1' }).getEntries().then((e) => (e[0] as zip.FileEntry).getData(new zip.TextWriter()))).rejects.toThrow();

    // The password was sealed, never stored or logged in clear, and went with the job's end.
    const item = await localClient(runtime.dynamodbEndpoint).send(
      new GetItemCommand({ TableName: runtime.tableName, Key: { PK: { S: `TNT#demo#EXPORT#${done.exportId}` }, SK: { S: 'EXPORT' } } }),
    );
    expect(item.Item?.status?.S).toBe('SUCCEEDED');
    expect(item.Item?.sealedPassword).toBeUndefined();
    expect(item.Item?.expiresAt?.N).toBeDefined();
    expect(JSON.stringify(item.Item)).not.toContain(PASSWORD);
    expect(readFileSync(inject('logFile'), 'utf8')).not.toContain(PASSWORD);
  });

  it("is 404 for another tenant's export id, under another instance, or on the CSV status route", async () => {
    const started = await call('POST', `${base()}/userdataarchive`, { token, body: { config: { password: PASSWORD } } });
    expect(started.status).toBe(202);
    const location = String(started.headers.location);
    const theirs = await issueToken(inject('otherKey'), 'other');
    const foreign = await call('GET', location, { tenant: 'other', token: theirs });
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe('EXPORT_NOT_FOUND');
    const otherInstance = location.replace(j.id, '00000000-0000-4000-8000-000000000000');
    expect((await call('GET', otherInstance, { token })).status).toBe(404);
    expect((await call('GET', `/api/process-manager/processInstances/csv/exports/${started.json.exportId}`, { token })).status).toBe(404);
    expect((await call('GET', location.replace(/[^/]+$/, '00000000-0000-4000-8000-000000000000'), { token })).status).toBe(404);
    await jobEnd(location);
  });

  it('still answers a small archive inline (200, application/zip)', async () => {
    const small = await instanceWithImages([FACE.length, FACE.length, FACE.length]);
    const res = await call('POST', `/api/userdata-server/processDefinitions/${small.defnId}/processInstances/${small.id}/userdataarchive`, {
      token,
      body: { config: { password: PASSWORD } },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/zip');
    const data = await call('GET', `/api/userdata-server/processDefinitions/${small.defnId}/processInstances/${small.id}/userdata`, { token });
    expect(data.json.images.every((i: { data?: string; url?: string }) => i.data && !i.url)).toBe(true);
  }, 60_000);
});

describe('CSV export of more than 1,000 instances', () => {
  const marker = `csv${fresh()}`;
  let before1001: string;
  const seeded: string[] = [];
  beforeAll(async () => {
    // Seeded through the service's own store (the writes an instance creation makes: the
    // instance and its list views, in one transaction with its token's use) into the running
    // service's table: creating 1,001 journeys over HTTP takes minutes on this machine.
    Object.assign(process.env, { TABLE_NAME: runtime.tableName, DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint });
    const { processInstanceStore } = await import('../../functions/store/process-instances.js');
    const { processTokenStore } = await import('../../functions/store/process-tokens.js');
    const lanes = 10;
    // Real tokens (made over HTTP, so other suites listing tokens see whole ones), one per lane.
    const tokens = await Promise.all(
      Array.from({ length: lanes }, async () => {
        const pt = await call('POST', '/api/process-manager/processTokens', {
          token,
          body: { name: `csv-${fresh()}`, processDefnName: 'identity-check', processDefnVersion: 1, parameters: { lastName: `Lee-${marker}` } },
        });
        expect(pt.status).toBe(201);
        // The token as instance creation reads it (its use shards included).
        return (await processTokenStore.get('demo', pt.json.id as string, { counted: false }))!;
      }),
    );
    const seed = async (lane: number, n: number, at: Date) => {
      const stored = tokens[lane]!;
      const tokenId = stored.id;
      const id = randomUUID();
      seeded.push(id);
      const record = {
        tenantId: 'demo', id, processDefnId: '00000000-0000-4000-8000-000000000001', processDefnName: 'identity-check', processDefnVersion: 1,
        processTokenId: tokenId, status: 'ACTIVE', createdAt: at.toISOString(), lastUpdatedAt: at.toISOString(), retentionDays: 1,
        expiringDtm: new Date(at.getTime() + 86_400_000).toISOString(), expiresAt: Math.floor(at.getTime() / 1000) + 86_400,
        parameters: { firstName: 'Ann', lastName: `Lee-${marker}` }, capabilityHash: 'h', stateMachineArn: 'arn:sm', createdBy: 'apikey:test',
      };
      // Its event is addressed to no webhook: a real creation's event would fan out to every webhook
      // the files running beside this one have subscribed, and their deliveries would then wait
      // behind a thousand (a burst's backlog, about 20 s locally, which those files do not time for).
      const event = instanceEvents.notification(record, { webhookId: 'csv-seed', activityId: 'seed', name: 'csv-seed', body: {} }, at);
      const out = await processInstanceStore.createWithToken(record as never, stored, at, event);
      expect(out).toEqual({ outcome: 'created' });
    };
    const start = Date.now() - 60_000;
    // 1,000 instances a millisecond apart, a cut, then the 1,001st.
    await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
      for (let n = lane; n < 1000; n += lanes) await seed(lane, n, new Date(start + n));
    }));
    before1001 = new Date(start + 1000).toISOString();
    await seed(0, 1000, new Date(start + 2000));
  }, 300_000);

  // The 1,001 instances and their views (some 10,000 items) go again: every later Scan of the
  // shared table (the local TTL sweep's) would read them for the rest of the suite.
  afterAll(async () => {
    const db = localClient(runtime.dynamodbEndpoint);
    try {
      const lanes = 10;
      await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
        for (let n = lane; n < seeded.length; n += lanes) {
          const items = await db.send(new QueryCommand({
            TableName: runtime.tableName, KeyConditionExpression: 'PK = :pk', ProjectionExpression: 'PK, SK',
            ExpressionAttributeValues: { ':pk': { S: `TNT#demo#PI#${seeded[n]}` } },
          }));
          const keys = items.Items ?? [];
          for (let i = 0; i < keys.length; i += 25) {
            await db.send(new BatchWriteItemCommand({
              RequestItems: { [runtime.tableName]: keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })) },
            }));
          }
        }
      }));
    } finally {
      db.destroy();
    }
  }, 300_000);

  it('answers exactly 1,000 rows inline', async () => {
    const res = await call('POST', '/api/process-manager/processInstances/csv', { token, body: { searchString: marker, endDateTime: before1001 } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.text.trim().split('\r\n')).toHaveLength(1 + 1000);
  });

  it('makes 1,001 rows an export job whose file downloads with every row', async () => {
    const started = await call('POST', '/api/process-manager/processInstances/csv', { token, body: { searchString: marker, sort: ['createdAt,asc'] } });
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({ kind: 'INSTANCES_CSV', status: 'PENDING' });
    const location = String(started.headers.location);
    expect(location).toBe(`/api/process-manager/processInstances/csv/exports/${started.json.exportId}`);
    const done = await jobEnd(location);
    expect(done).toMatchObject({ status: 'SUCCEEDED', rows: 1001 });
    const got = await download(done.url);
    expect(got.status).toBe(200);
    const lines = got.body.toString('utf8').trim().split('\r\n');
    expect(lines).toHaveLength(1 + 1001);
    expect(lines[0]).toMatch(/^id,processDefnId,/);
    expect(lines.slice(1).every((l) => l.includes(`Lee-${marker}`))).toBe(true);
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', location, { tenant: 'other', token: theirs })).status).toBe(404);
  });
});
