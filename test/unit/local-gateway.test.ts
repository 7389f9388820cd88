import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/route.js';
import { GATEWAY_MAX_BODY, LAMBDA_MAX_PAYLOAD, startHttpServer } from '../../lib/local/server.js';
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
  beforeAll(async () => {
    server = await startHttpServer({
      routes: [route],
      root: REPO_ROOT,
      host: '127.0.0.1',
      port: 0,
      jwks: async () => ({ keys: [] }),
      issuer: 'http://localhost',
      audience: 'arthr-api',
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

  it('refuses a body over the HTTP API\u2019s 10 MB payload limit with 413', async () => {
    const res = await post(0, Buffer.alloc(GATEWAY_MAX_BODY + 1, 0x61), 'text/plain').catch((err: Error) => err);
    // The adapter may close the connection before the client has sent everything.
    if (res instanceof Error) expect(res.message).toMatch(/fetch failed|socket|reset|closed/i);
    else expect(res.status).toBe(413);
  });
});
