import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../../functions/config.js';
import { handler as home } from '../../../functions/platform/get-home-page.js';
import { handler as reference } from '../../../functions/platform/get-api-reference.js';
import { FIRST_CALL } from '../../../functions/platform/home-page.js';
import { routeList } from '../../../functions/routes.js';
import { createRouter } from '../../../lib/local/router.js';

beforeAll(() => {
  Object.assign(process.env, {
    TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example',
    TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'ERROR',
  });
  resetConfigForTests();
});

const get = (path: string, headers: Record<string, string> = {}, host = 'acme.fir.example.com') =>
  ({
    version: '2.0',
    rawPath: path,
    rawQueryString: '',
    headers: { host, ...headers },
    isBase64Encoded: false,
    requestContext: { requestId: 'r1', domainName: host, http: { method: 'GET', path } },
  }) as unknown as APIGatewayProxyEventV2;

/** The page's CSP allows no script at all and only the page's own style sheet, by its hash. */
function expectStrictPage(res: APIGatewayProxyStructuredResultV2): void {
  expect(res.statusCode).toBe(200);
  expect(res.headers!['content-type']).toBe('text/html; charset=utf-8');
  const csp = String(res.headers!['content-security-policy']);
  expect(csp).toMatch(/^default-src 'none'; /);
  expect(csp).not.toContain('script-src');
  expect(csp).not.toContain('unsafe');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(res.headers!['permissions-policy']).toContain('camera=()');
  const body = String(res.body);
  expect(body).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
  const styles = [...body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  expect(styles).toHaveLength(1);
  expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(styles[0]!).digest('base64')}'`);
}

for (const [name, handler, path] of [['getHomePage', home, '/'], ['getApiReference', reference, '/docs']] as const) {
  describe(name, () => {
    it('serves the page with a CSP that allows no script and no style but its own', async () => {
      expectStrictPage((await handler(get(path))) as APIGatewayProxyStructuredResultV2);
    });

    it('answers on any host, a tenant\'s or none (a public page)', async () => {
      expect(((await handler(get(path, {}, 'localhost:8080'))) as APIGatewayProxyStructuredResultV2).statusCode).toBe(200);
    });

    it('answers 304 to the ETag of the copy the browser holds, with the same CSP, and the page again to any other', async () => {
      const first = (await handler(get(path))) as APIGatewayProxyStructuredResultV2;
      const etag = String(first.headers!.etag);
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(first.headers!['cache-control']).toBe('no-cache');
      const again = (await handler(get(path, { 'if-none-match': etag }))) as APIGatewayProxyStructuredResultV2;
      expect(again.statusCode).toBe(304);
      expect(again.body).toBeUndefined();
      expect(again.headers!['content-security-policy']).toBe(first.headers!['content-security-policy']);
      expect(((await handler(get(path, { 'if-none-match': '"stale"' }))) as APIGatewayProxyStructuredResultV2).statusCode).toBe(200);
    });

    it('links to the other pages, the OpenAPI document and the console', async () => {
      const body = String(((await handler(get(path))) as APIGatewayProxyStructuredResultV2).body);
      for (const href of ['/', '/docs', '/openapi.json', '/console']) expect(body).toContain(`<a href="${href}"`);
      expect(body).toContain(`<a href="${path}" aria-current="page"`);
    });
  });
}

describe('the home page\'s first call', () => {
  it('calls only routes of the route table, with the auth each takes', () => {
    const route = createRouter(routeList);
    const calls = [...FIRST_CALL.matchAll(/curl -s (?:-X (\w+) )?"\$BASE([^"?]+)[^"]*"(.*)/g)].map((m) => ({ method: m[1] ?? 'GET', path: m[2]!, rest: m[3]! }));
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /api/arthr/apiKeys/issue', 'GET /api/arthr/apiKeys']);
    for (const call of calls) {
      const found = route(call.method, call.path);
      expect(found.kind, call.path).toBe('found');
      const auth = found.kind === 'found' ? found.route.auth : undefined;
      expect(call.rest).toContain(auth === 'apiKey' ? 'X-API-Key: $KEY' : 'Authorization: Bearer $TOKEN');
    }
  });
});
