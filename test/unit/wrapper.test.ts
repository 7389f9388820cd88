import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiHandler } from '../../functions/http/wrapper.js';
import { defineRoute } from '../../functions/http/route.js';
import { resetConfigForTests } from '../../functions/config.js';

beforeAll(() => {
  Object.assign(process.env, {
    TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example',
    TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'ERROR',
  });
  resetConfigForTests();
});

const route = defineRoute({
  operationId: 'echo', method: 'POST', path: '/echo', handler: 'none', auth: 'bearer', permission: 'ArthrServer:getFromTenant',
  summary: 's', tag: 't', request: { body: z.object({ n: z.number() }), maxBodyBytes: 100 },
  responses: { 200: { description: 'echo', schema: z.object({ n: z.number(), tenantId: z.string(), kind: z.string() }) } }, aws: {},
});
const handler = apiHandler(route, async ({ body, tenantId, auth }) => ({ status: 200, body: { n: body.n, tenantId, kind: auth.kind } }));
const boom = apiHandler({ ...route, operationId: 'boom' }, async () => {
  throw new Error('database password is hunter2');
});

function event(over: { body?: string; host?: string; claims?: Record<string, string> | null; contentType?: string; headers?: Record<string, string> } = {}) {
  return {
    headers: { host: over.host ?? 'acme.fir.example.com', 'content-type': over.contentType ?? 'application/json', ...over.headers },
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
    ['a wrong type', { body: '{"n":"one"}' }, 400, 'VALIDATION_FAILED'],
    ['a number that is no plain decimal', { body: '{"n":"0x1"}' }, 400, 'VALIDATION_FAILED'],
    ['a tenantId naming another tenant', { body: '{"n":1,"tenantId":"other"}' }, 400, 'VALIDATION_FAILED'],
    ['an oversized body', { body: JSON.stringify({ n: 1, pad: 'x'.repeat(200) }) }, 413, 'PAYLOAD_TOO_LARGE'],
    ['a non-JSON content type', { contentType: 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a host of no tenant', { host: 'example.com' }, 400, 'INVALID_HOST'],
  ])('answers %s with a 4xx and a code', async (_w, over, status, code) => {
    const res = await handler(event(over));
    expect(res.statusCode).toBe(status);
    expect(parse(res).code).toBe(code);
  });

  describe('a deeply nested body', () => {
    // 10 KB nested 5,050 deep: what exhausted the stack of the recursive __proto__ check before
    // any credential was looked at.
    const deep = '{"n":'.repeat(5_050) + '1' + '}'.repeat(5_050);
    const big = { ...route, operationId: 'deep', auth: 'apiKey' as const, permission: undefined, request: { body: z.object({ n: z.unknown() }) } };
    const apiKeyRoute = apiHandler(big, async () => ({ status: 200, body: { n: 1, tenantId: 'x', kind: 'apiKey' } }));

    it('rejects when a body nests past 64 levels, with no valid credential, before the operation runs', async () => {
      const res = await apiKeyRoute(event({ body: deep, headers: { 'x-api-key': 'not-a-key' } }));
      expect(res.statusCode).toBe(400);
      expect(parse(res).code).toBe('BODY_TOO_DEEP');
    });

    it('reads one nested exactly 64 levels deep', async () => {
      const at64 = '{"n":'.repeat(64) + '1' + '}'.repeat(64);
      expect((await apiKeyRoute(event({ body: at64, headers: { 'x-api-key': 'k' } }))).statusCode).toBe(200);
    });

    it('never parses the body of a route that takes none', async () => {
      const bodiless = apiHandler({ ...route, operationId: 'get', request: {}, responses: { 204: { description: 'none' } } }, async () => ({ status: 204 }));
      expect((await bodiless(event({ body: deep }))).statusCode).toBe(204);
      expect((await bodiless(event({ body: '{"n":' }))).statusCode).toBe(204);
    });
  });

  it.each([
    ['an unknown field', '{"n":1,"x":2}'],
    ['the number as a string', '{"n":"1"}'],
    ["a tenantId naming the host's tenant", '{"n":1,"tenantId":"acme"}'],
    ['a null tenantId', '{"n":1,"tenantId":null}'],
  ])('reads %s leniently', async (_w, body) => {
    const res = await handler(event({ body }));
    expect(res.statusCode).toBe(200);
    expect(parse(res)).toEqual({ n: 1, tenantId: 'acme', kind: 'bearer' });
  });

  it('answers a throttle or timeout of an AWS call with 503 and Retry-After, not a 500', async () => {
    const throttled = apiHandler({ ...route, operationId: 'throttled' }, async () => {
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    });
    const res = await throttled(event());
    expect(res.statusCode).toBe(503);
    expect(parse(res).code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers!['retry-after']).toBe('2');
  });

  it('hides unexpected errors behind a bare 500', async () => {
    const res = await boom(event());
    expect(res.statusCode).toBe(500);
    expect(parse(res)).toEqual({ code: 'INTERNAL_ERROR', message: 'An internal error occurred.' });
    expect(res.body).not.toContain('hunter2');
  });
});

/** The log records written during a test (error level and up: LOG_LEVEL is ERROR here). */
let records: Record<string, unknown>[] = [];
beforeEach(() => {
  records = [];
  const capture = (chunk: unknown) => {
    for (const line of String(chunk).split('\n')) if (line.startsWith('{')) records.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
});
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.VALIDATE_RESPONSES;
});

describe('the middleware chain', () => {
  it('runs its steps in order: tenant, then authentication, then request validation', async () => {
    // Each request below fails at every later step too; the answer tells which step ran first.
    const noTenant = await handler(event({ host: 'example.com', claims: null, body: '{"n":' }));
    expect(parse(noTenant).code).toBe('INVALID_HOST');
    const noAuth = await handler(event({ claims: null, body: '{"n":' }));
    expect(parse(noAuth).code).toBe('INVALID_TOKEN');
    const badBody = await handler(event({ body: '{"n":' }));
    expect(parse(badBody).code).toBe('MALFORMED_JSON');
    // Security headers and the request id are on every answer, refused or not.
    for (const res of [noTenant, noAuth, badBody]) {
      expect(res.headers!['x-content-type-options']).toBe('nosniff');
      expect(res.headers!['x-request-id']).toBe('r1');
    }
  });

  it('names the step that failed unexpectedly in the error log, and nothing of the error in the answer', async () => {
    const res = await boom(event());
    expect(res.statusCode).toBe(500);
    const logged = records.find((r) => r.message === 'unhandled error')!;
    expect(logged).toMatchObject({ step: 'runOperation', operationId: 'boom', requestId: 'r1', tenantId: 'acme' });
    expect(JSON.stringify(logged.error)).toContain('hunter2'); // the log has the cause, the client does not

    records = [];
    // A request API Gateway would never send (no headers at all) fails in the tenant step.
    const broken = await handler({ ...event(), headers: undefined, requestContext: { requestId: 'r1' } } as unknown as APIGatewayProxyEventV2);
    expect(broken.statusCode).toBe(500);
    const failed = records.find((r) => r.message === 'unhandled error')!;
    expect(failed.step).toBe('resolveTenant');
    expect((failed.error as { stack: string }).stack).toContain('resolveTenant');
  });

  it('validates the headers a route declares', async () => {
    const withHeader = apiHandler(
      { ...route, operationId: 'withHeader', request: { ...route.request, headers: z.looseObject({ 'idempotency-key': z.string().regex(/^\S+$/).optional() }) } },
      async ({ headers }) => ({ status: 200, body: { n: 1, tenantId: headers['idempotency-key'] ?? '', kind: 'x' } }),
    );
    expect(parse(await withHeader(event({ headers: { 'idempotency-key': 'k1' } }))).tenantId).toBe('k1');
    const bad = await withHeader(event({ headers: { 'idempotency-key': 'has space' } }));
    expect(bad.statusCode).toBe(400);
    expect(parse(bad).details[0].location).toBe('header.idempotency-key');
  });

  it('answers a page route\'s errors with the injected page, under the pages\' CSP', async () => {
    const pageRoute = { ...route, operationId: 'page', html: true };
    expect(() => apiHandler(pageRoute, async () => ({ status: 200 }) as never)).toThrow(/error page/);
    const page = apiHandler(pageRoute, async () => ({ status: 200 }) as never, { errorPage: (status) => `<p>gone ${status}</p>` });
    const res = await page(event({ claims: { sub: 'k', tid: 'other', scope: 'ArthrServer:getFromTenant' } }));
    expect(res.statusCode).toBe(401);
    expect(res.headers!['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe('<p>gone 401</p>');
    expect(res.headers!['content-security-policy']).toContain("script-src 'self'");
  });
});

describe('results and the declared responses', () => {
  const typed = defineRoute({
    operationId: 'typed', method: 'GET', path: '/typed', handler: 'none', auth: 'public', summary: 's', tag: 't', request: {}, aws: {},
    responses: { 200: { description: 'n', schema: z.object({ n: z.number() }) }, 204: { description: 'nothing' } },
  });

  it('are checked at compile time: a declared status, a body of its schema', () => {
    apiHandler(typed, async () => ({ status: 200, body: { n: 1 } }));
    apiHandler(typed, async () => ({ status: 204 }));
    // @ts-expect-error 201 is not declared
    apiHandler(typed, async () => ({ status: 201, body: { n: 1 } }));
    // @ts-expect-error the body is not the 200 schema's
    apiHandler(typed, async () => ({ status: 200, body: { n: 'one' } }));
    // @ts-expect-error 204 declares no body
    apiHandler(typed, async () => ({ status: 204, body: { n: 1 } }));
  });

  // What the compiler cannot see (a cast, a value from a store) is caught at run time under test.
  const lying = apiHandler(typed, async () => ({ status: 200, body: { n: 'one' } }) as never);
  const undeclared = apiHandler({ ...typed, operationId: 'undeclared' }, async () => ({ status: 201 }) as never);

  it('are checked at run time with VALIDATE_RESPONSES=1: a mismatch is a 500 and a log naming the operation and the issue', async () => {
    process.env.VALIDATE_RESPONSES = '1';
    const res = await lying(event());
    expect(res.statusCode).toBe(500);
    expect(parse(res)).toEqual({ code: 'INTERNAL_ERROR', message: 'An internal error occurred.' });
    expect(records.find((r) => r.message === 'response does not match its declaration')).toMatchObject({ operationId: 'typed', status: 200, problem: expect.stringContaining('body.n') });
    expect((await undeclared(event())).statusCode).toBe(500);
    expect(records.some((r) => r.operationId === 'undeclared' && String(r.problem).includes('status 201 is not declared'))).toBe(true);
    // A declared answer passes untouched.
    expect((await apiHandler(typed, async () => ({ status: 204 }))(event())).statusCode).toBe(204);
  });

  it('are sent as they are without it (production)', async () => {
    expect((await lying(event())).statusCode).toBe(200);
  });
});

describe('declared request headers and wrapper answers in the OpenAPI document', () => {
  it('lists the headers a route reads as header parameters, and the wrapper\'s 415 on routes taking a body', async () => {
    const { buildOpenApiDocument } = await import('../../functions/platform/openapi-document.js');
    const { routeList } = await import('../../functions/routes.js');
    const doc = buildOpenApiDocument(routeList) as { paths: Record<string, Record<string, { parameters: { name: string; in: string }[]; responses: Record<string, unknown> }>> };
    const create = doc.paths['/api/process-manager/processInstances/create']!.post!;
    expect(create.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual(['x-api-key', 'x-apikey', 'idempotency-key']);
    expect(doc.paths['/journey/assets/{asset}']!.get!.parameters.find((p) => p.in === 'header')?.name).toBe('if-none-match');
    expect(Object.keys(doc.paths['/api/arthr/apiKeys']!.post!.responses)).toContain('415');
  });
});
