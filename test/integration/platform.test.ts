import { describe, expect, inject, it } from 'vitest';
import { routeList } from '../../functions/routes.js';
import { adminToken, call } from './client.js';

describe('GET /openapi.json', () => {
  it('serves an OpenAPI 3.1 document with exactly the routes of the route table', async () => {
    const res = await call('GET', '/openapi.json', { tenant: null });
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
    const documented = Object.entries(res.json.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routeList.map((r) => `${r.method} ${r.path}`).sort());
  });
});

describe('the local gateway', () => {
  it('serves every route of the route table (none answers ROUTE_NOT_FOUND)', async () => {
    for (const route of routeList) {
      const path = route.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const res = await call(route.method, path, { body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
      expect(res.json?.code, `${route.method} ${route.path}`).not.toBe('ROUTE_NOT_FOUND');
      expect(res.status, `${route.method} ${route.path}`).toBeLessThan(500);
    }
  });

  it('answers an unknown path with 404 and a wrong method with 405, both in the error format', async () => {
    const missing = await call('GET', '/api/nothing/here');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: 'ROUTE_NOT_FOUND', message: expect.any(String) });
    const wrong = await call('PUT', '/api/arthr/apiKeys');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toContain('GET');
  });

  it('refuses tenant routes on a host without a tenant or of another region', async () => {
    const token = await adminToken();
    const bare = await call('GET', '/api/arthr/apiKeys', { tenant: null, token });
    expect(bare.status).toBe(400);
    expect(bare.json.code).toBe('INVALID_HOST');
    // The exact URL to call, with the port this runtime listens on (and never the query).
    const port = inject('port');
    expect(bare.json.message).toBe(
      `Tenant routes are served on http://{tenantId}.fir.localhost:${port}, your tenant's id in place of {tenantId}: call http://{tenantId}.fir.localhost:${port}/api/arthr/apiKeys.`,
    );
    const issue = await call('POST', '/api/arthr/apiKeys/issue?secret=x', { host: `127.0.0.1:${port}`, body: {} });
    expect(issue.json.message).toContain(`call http://{tenantId}.fir.localhost:${port}/api/arthr/apiKeys/issue.`);
    const gum = await call('POST', '/api/arthr/apiKeys/issue', { host: `demo.gum.localhost:${port}`, body: {} });
    expect(gum.status).toBe(400);
    expect(gum.json.message).toBe(`This deployment serves region fir; call http://demo.fir.localhost:${port}/api/arthr/apiKeys/issue.`);
    const nested = await call('POST', '/api/arthr/apiKeys/issue', { host: 'a.demo.fir.localhost', body: {} });
    expect(nested.status).toBe(400);
  });

  it('sends security headers and a request id on every answer', async () => {
    const res = await call('GET', '/api/arthr/apiKeys', { token: await adminToken() });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['content-type']).toContain('application/json');
  });

  it('publishes discovery with the jwks_uri the JWT authorizer reads', async () => {
    const disco = await call('GET', '/.well-known/openid-configuration', { tenant: null });
    expect(disco.status).toBe(200);
    expect(disco.json.jwks_uri).toBe(`${disco.json.issuer}/.well-known/jwks.json`);
    const jwks = await call('GET', '/.well-known/jwks.json', { tenant: null });
    expect(jwks.json.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(jwks.json.keys[0].d).toBeUndefined();
  });
});
