import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiHandler } from '../../functions/http/wrapper.js';
import { defineRoute } from '../../functions/http/route.js';
import { resetConfigForTests } from '../../functions/config.js';

beforeAll(() => {
  Object.assign(process.env, {
    TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example',
    TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'SILENT',
  });
  resetConfigForTests();
});

const route = defineRoute({
  operationId: 'echo', method: 'POST', path: '/echo', handler: 'none', auth: 'bearer', permission: 'ArthrServer:getFromTenant',
  summary: 's', tag: 't', request: { body: z.object({ n: z.number() }).strict(), maxBodyBytes: 100 },
  responses: { 200: { description: 'echo', schema: z.object({ n: z.number(), tenantId: z.string(), kind: z.string() }) } }, aws: {},
});
const handler = apiHandler(route, async ({ body, tenantId, auth }) => ({ status: 200, body: { n: body.n, tenantId, kind: auth.kind } }));
const boom = apiHandler({ ...route, operationId: 'boom' }, async () => {
  throw new Error('database password is hunter2');
});

function event(over: { body?: string; host?: string; claims?: Record<string, string> | null; contentType?: string } = {}) {
  return {
    headers: { host: over.host ?? 'acme.fir.example.com', 'content-type': over.contentType ?? 'application/json' },
    body: over.body ?? '{"n":1}',
    isBase64Encoded: false,
    rawQueryString: '',
    requestContext: {
      requestId: 'r1',
      domainName: over.host ?? 'acme.fir.example.com',
      ...(over.claims === null ? {} : { authorizer: { jwt: { claims: over.claims ?? { sub: 'k', tid: 'acme', scope: 'ArthrServer:getFromTenant' } } } }),
    },
  } as unknown as APIGatewayProxyEventV2;
}

const parse = (r: { body?: string }) => JSON.parse(r.body ?? 'null');

describe('apiHandler', () => {
  it('runs the operation with the validated body, the host tenant and the bearer context', async () => {
    const res = await handler(event());
    expect(res.statusCode).toBe(200);
    expect(parse(res)).toEqual({ n: 1, tenantId: 'acme', kind: 'bearer' });
    expect(res.headers!['cache-control']).toBe('no-store');
  });

  it('rejects when the token names another tenant than the host', async () => {
    const res = await handler(event({ claims: { sub: 'k', tid: 'other', scope: 'ArthrServer:getFromTenant' } }));
    expect(res.statusCode).toBe(401);
    expect(parse(res).code).toBe('INVALID_TOKEN');
  });

  it('rejects when the authorizer passed no claims (a route deployed without it)', async () => {
    expect((await handler(event({ claims: null }))).statusCode).toBe(401);
  });

  it('rejects when the scope lacks the permission', async () => {
    const res = await handler(event({ claims: { sub: 'k', tid: 'acme', scope: 'ArthrServer:listTenantApiKeys' } }));
    expect(res.statusCode).toBe(403);
    expect(parse(res).message).toContain('TNT#acme#ArthrServer:getFromTenant');
  });

  it.each([
    ['malformed JSON', { body: '{"n":' }, 400, 'MALFORMED_JSON'],
    ['a wrong type', { body: '{"n":"1"}' }, 400, 'VALIDATION_FAILED'],
    ['an unknown field', { body: '{"n":1,"x":2}' }, 400, 'VALIDATION_FAILED'],
    ['an oversized body', { body: JSON.stringify({ n: 1, pad: 'x'.repeat(200) }) }, 400, 'PAYLOAD_TOO_LARGE'],
    ['a non-JSON content type', { contentType: 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a host of no tenant', { host: 'example.com' }, 400, 'INVALID_HOST'],
  ])('answers %s with a 4xx and a code', async (_w, over, status, code) => {
    const res = await handler(event(over));
    expect(res.statusCode).toBe(status);
    expect(parse(res).code).toBe(code);
  });

  it('hides unexpected errors behind a bare 500', async () => {
    const res = await boom(event());
    expect(res.statusCode).toBe(500);
    expect(parse(res)).toEqual({ code: 'INTERNAL_ERROR', message: 'An internal error occurred.' });
    expect(res.body).not.toContain('hunter2');
  });
});
