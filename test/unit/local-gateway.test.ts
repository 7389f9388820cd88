import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/route.js';
import { checkPresigned, newLocalS3Credentials, startLocalS3, type LocalS3Credentials } from '../../lib/local/s3.js';
import { request } from 'node:http';
import { GATEWAY_MAX_BODY, LAMBDA_MAX_PAYLOAD, hasDotSegment, startHttpServer } from '../../lib/local/server.js';
import type { RequestRecord } from '../../lib/local/text-log.js';
import { REPO_ROOT } from '../../lib/stack.js';

/** One public route whose handler answers as many bytes as asked for (test/fixtures/local-gateway/sized.ts). */
const route = {
  operationId: 'sized',
  method: 'POST',
  path: '/sized',
  handler: 'test/fixtures/local-gateway/sized.ts',
  auth: 'public',
  summary: 'sized',
  tag: 'test',
  request: {},
  responses: {},
  aws: {},
} as unknown as RouteDef;

describe('the local gateway', () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let base: string;
  const told: RequestRecord[] = [];
  beforeAll(async () => {
    server = await startHttpServer({
      routes: [route],
      root: REPO_ROOT,
      host: '127.0.0.1',
      port: 0,
      jwks: async () => ({ keys: [] }),
      issuer: 'http://localhost',
      audience: 'arthr-api',
      requestLog: (r) => told.push(r),
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server?.close());

  const post = (bytes: number, body: Buffer, contentType: string) =>
    fetch(`${base}/sized?bytes=${bytes}`, { method: 'POST', body, headers: { 'content-type': contentType } });

  it('answers a response up to Lambda\u2019s 6 MB payload limit', async () => {
    // The result object as Lambda serialises it: the body plus the status and headers around it.
    const res = await post(LAMBDA_MAX_PAYLOAD - 1_000, Buffer.alloc(0), 'application/json');
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBe(LAMBDA_MAX_PAYLOAD - 1_000);
  });

  it('answers 500 when the function\u2019s response is over Lambda\u2019s payload limit, as API Gateway does', async () => {
    const res = await post(LAMBDA_MAX_PAYLOAD + 1, Buffer.alloc(0), 'application/json');
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('refuses with 413 a body under the gateway\u2019s 10 MB that makes a Lambda event over 6 MB (binary bodies are base64 in the event)', async () => {
    // 4.5 MiB of binary: 6 MiB once base64-encoded, over Lambda's limit with the event around it.
    const res = await post(0, Buffer.alloc(4.5 * 1024 * 1024, 7), 'application/octet-stream');
    expect(res.status).toBe(413);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.message).toContain(String(LAMBDA_MAX_PAYLOAD));
  });

  it('hands the function an event just under the limit', async () => {
    const res = await post(0, Buffer.alloc(4 * 1024 * 1024, 7), 'application/octet-stream');
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-event-bytes'))).toBeLessThanOrEqual(LAMBDA_MAX_PAYLOAD);
  });

  it('routes the path as sent: a dot segment reaches no route, though it would resolve to one', async () => {
    // Sent raw (fetch and URL resolve dot segments before sending).
    const raw = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${base}${path}`, { method: 'POST', path, headers: { 'content-type': 'text/plain' } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end('x');
      });
    expect((await raw('/sized?bytes=1')).status).toBe(200);
    for (const path of ['/x/../sized?bytes=1', '/./sized?bytes=1', '/x/%2e%2E/sized?bytes=1', '/sized/.']) {
      const res = await raw(path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body).code, path).toBe('ROUTE_NOT_FOUND');
    }
    expect(hasDotSegment('/secrets/a.b?x=/../')).toBe(false);
    expect(hasDotSegment('/secrets/...')).toBe(false);
    expect(hasDotSegment('/secrets/%2e')).toBe(true);
  });

  it('tells the request log of every request once answered, a refusal with its error code', async () => {
    told.length = 0;
    expect((await post(10, Buffer.from('x'), 'text/plain')).status).toBe(200);
    expect((await fetch(`${base}/nowhere?c=capability`)).status).toBe(404);
    expect(told).toEqual([
      { method: 'POST', url: '/sized?bytes=10', status: 200, durationMs: expect.any(Number) },
      { method: 'GET', url: '/nowhere?c=capability', status: 404, errorCode: 'ROUTE_NOT_FOUND', durationMs: expect.any(Number) },
    ]);
  });

  it('refuses a body over the HTTP API\u2019s 10 MB payload limit with 413', async () => {
    const res = await post(0, Buffer.alloc(GATEWAY_MAX_BODY + 1, 0x61), 'text/plain').catch((err: Error) => err);
    // The adapter may close the connection before the client has sent everything.
    if (res instanceof Error) expect(res.message).toMatch(/fetch failed|socket|reset|closed/i);
    else expect(res.status).toBe(413);
  });
});

/**
 * The constant credentials every local start signed pre-signed URLs with before each start had a
 * secret of its own: public (they were in the source), so anyone, a tenant's cloud function
 * included, could sign a URL to any tenant's object with them.
 */
const OLD_CONSTANTS: LocalS3Credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const IMAGE_KEY = 'tenants/demo/instances/i1/uploads/face.jpg';

function signer(endpoint: string, credentials: LocalS3Credentials): S3Client {
  return new S3Client({ endpoint, forcePathStyle: true, region: 'eu-west-1', credentials });
}
const presignedPut = (endpoint: string, bucket: string, credentials: LocalS3Credentials) =>
  getSignedUrl(signer(endpoint, credentials), new PutObjectCommand({ Bucket: bucket, Key: IMAGE_KEY, ContentType: 'image/jpeg' }), {
    expiresIn: 300,
    signableHeaders: new Set(['content-type']),
  });
const presignedGet = (endpoint: string, bucket: string, credentials: LocalS3Credentials) =>
  getSignedUrl(signer(endpoint, credentials), new GetObjectCommand({ Bucket: bucket, Key: IMAGE_KEY }), { expiresIn: 300 });
const upload = (url: string, body: string) => fetch(url, { method: 'PUT', body, headers: { 'content-type': 'image/jpeg' } });

describe('checkPresigned', () => {
  let credentials: LocalS3Credentials;
  beforeAll(() => {
    credentials = newLocalS3Credentials();
  });

  it('rejects when the URL is signed with the old constant credentials local/local', async () => {
    const url = new URL(await presignedGet('http://127.0.0.1:4999', 'arthr-images', OLD_CONSTANTS));
    expect(await checkPresigned(credentials, url, 'GET', new Date())).toEqual({
      ok: false,
      reason: 'The request signature we calculated does not match the signature you provided.',
    });
  });

  it("accepts a URL signed with this start's secret", async () => {
    const url = new URL(await presignedGet('http://127.0.0.1:4999', 'arthr-images', credentials));
    expect(await checkPresigned(credentials, url, 'GET', new Date())).toEqual({ ok: true, bucket: 'arthr-images', key: IMAGE_KEY });
  });

  it('rejects when the URL is signed with another start\u2019s secret', async () => {
    const url = new URL(await presignedGet('http://127.0.0.1:4999', 'arthr-images', newLocalS3Credentials()));
    expect((await checkPresigned(credentials, url, 'GET', new Date())).ok).toBe(false);
  });
});

describe('startLocalS3', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'arthr-local-s3-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dirs = () => ({ images: join(dir, 'images'), exports: join(dir, 'exports') });

  it("rejects when a pre-signed PUT or GET is signed with local/local, and serves one signed with this start's secret", async () => {
    const s3 = await startLocalS3(dirs());
    try {
      const forged = await upload(await presignedPut(s3.publicEndpoint, s3.bucket, OLD_CONSTANTS), 'forged');
      expect(forged.status).toBe(403);
      expect(await forged.text()).toContain('<Code>AccessDenied</Code>');
      expect((await upload(await presignedPut(s3.publicEndpoint, s3.bucket, s3.credentials), 'genuine')).status).toBe(200);
      expect((await fetch(await presignedGet(s3.publicEndpoint, s3.bucket, OLD_CONSTANTS))).status).toBe(403);
      const read = await fetch(await presignedGet(s3.publicEndpoint, s3.bucket, s3.credentials));
      expect(read.status).toBe(200);
      expect(await read.text()).toBe('genuine');
    } finally {
      await s3.stop();
    }
  });

  it('rejects when the URL was signed by the start before a restart (each start has a secret of its own)', async () => {
    const first = await startLocalS3(dirs());
    await first.stop();
    const second = await startLocalS3(dirs());
    try {
      expect(second.credentials.secretAccessKey).not.toBe(first.credentials.secretAccessKey);
      // The last start's secret, for this start's gateway (its port is new too): only the secret differs.
      expect((await fetch(await presignedGet(second.publicEndpoint, second.bucket, first.credentials))).status).toBe(403);
      // The object itself survived the restart, for a URL of this start.
      const read = await fetch(await presignedGet(second.publicEndpoint, second.bucket, second.credentials));
      expect(read.status).toBe(200);
      expect(await read.text()).toBe('genuine');
    } finally {
      await second.stop();
    }
  });
});
