import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { adminToken, call, keyWith } from './client.js';

const ISSUE = '/api/arthr/apiKeys/issue';

async function jwks() {
  const res = await call('GET', '/.well-known/jwks.json', { tenant: null });
  expect(res.status).toBe(200);
  return res.json;
}

describe('POST /api/arthr/apiKeys/issue', () => {
  it('exchanges the key for an RS256 token carrying tenant, key id and permissions (in scope)', async () => {
    const res = await call('POST', ISSUE, { apiKey: inject('demoKey'), body: {} });
    expect(res.status).toBe(200);
    expect(res.json.ttl).toBe(3600);
    expect(Object.keys(res.json).sort()).toEqual(['token', 'ttl']);
    const header = decodeProtectedHeader(res.json.token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const disco = await call('GET', '/.well-known/openid-configuration', { tenant: null });
    const { payload } = await jwtVerify(res.json.token, createLocalJWKSet(await jwks()), {
      issuer: disco.json.issuer,
      audience: 'arthr-api',
    });
    expect(payload.tid).toBe('demo');
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(String(payload.scope).split(' ')).toContain('ArthrServer:listTenantApiKeys');
    expect(String(payload.scope).split(' ')).toContain('ArthrServer:createTenantApiKey');
    // Not repeated with the tenant prefix: `tid` and `scope` say it (and KMS signs a digest).
    expect(payload).not.toHaveProperty('permissions');
    expect(payload.sub).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(['X-API-Key', 'X-Api-Key', 'X-ApiKey'])('accepts the key in the %s header', async (name) => {
    const res = await call('POST', ISSUE, { headers: { [name]: inject('demoKey') }, body: {} });
    expect(res.status).toBe(200);
  });

  it('accepts an absent body as {}, ignores fields it does not know, and refuses a tenantId of another tenant', async () => {
    expect((await call('POST', ISSUE, { apiKey: inject('demoKey') })).status).toBe(200);
    expect((await call('POST', ISSUE, { apiKey: inject('demoKey'), body: { tenant: 'other', tenantId: 'demo' } })).status).toBe(200);
    const bad = await call('POST', ISSUE, { apiKey: inject('demoKey'), body: { tenantId: 'other' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ location: 'body.tenantId' }] });
    expect((await call('POST', ISSUE, { apiKey: inject('demoKey'), body: ['x'] })).status).toBe(400);
  });

  it('stamps lastIssuedAtDtm on the key', async () => {
    const { id, secret } = await keyWith([]);
    const admin = await adminToken();
    expect((await call('GET', `/api/arthr/apiKeys/${id}`, { token: admin })).json.lastIssuedAtDtm).toBeNull();
    const before = Date.now();
    expect((await call('POST', ISSUE, { apiKey: secret, body: {} })).status).toBe(200);
    const after = await call('GET', `/api/arthr/apiKeys/${id}`, { token: admin });
    expect(Date.parse(after.json.lastIssuedAtDtm)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('issues tokens that can be reused until they expire', async () => {
    const { secret } = await keyWith(['ArthrServer:listTenantApiKeys']);
    const token = (await call('POST', ISSUE, { apiKey: secret, body: {} })).json.token;
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/arthr/apiKeys', { token })).status).toBe(200);
  });

  it('refuses a missing key with 401 and a code', async () => {
    const res = await call('POST', ISSUE, { body: {} });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ code: 'INVALID_API_KEY' });
    expect(res.json.message).toBeTruthy();
  });

  it('refuses an unknown, malformed or altered key with the same 401', async () => {
    const { secret } = await keyWith([]);
    const altered = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    const unknown = 'ak_00000000000000000000000000000000_' + 'A'.repeat(43);
    for (const key of [altered, unknown, 'not-a-key', secret + 'x']) {
      const res = await call('POST', ISSUE, { apiKey: key, body: {} });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe('INVALID_API_KEY');
    }
  });

  it('refuses a BLOCKED key, and issues again once it is ACTIVE', async () => {
    const { id, secret } = await keyWith([]);
    const admin = await adminToken();
    await call('POST', `/api/arthr/apiKeys/${id}`, { token: admin, body: { status: 'BLOCKED' } });
    const res = await call('POST', ISSUE, { apiKey: secret, body: {} });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('API_KEY_BLOCKED');
    await call('POST', `/api/arthr/apiKeys/${id}`, { token: admin, body: { status: 'ACTIVE' } });
    expect((await call('POST', ISSUE, { apiKey: secret, body: {} })).status).toBe(200);
  });

  it('refuses an ARCHIVED key', async () => {
    const { id, secret } = await keyWith([]);
    await call('POST', `/api/arthr/apiKeys/${id}`, { token: await adminToken(), body: { status: 'ARCHIVED' } });
    const res = await call('POST', ISSUE, { apiKey: secret, body: {} });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('API_KEY_ARCHIVED');
  });

  it('refuses an expired key, and caps the token ttl at the key expiry before that', async () => {
    const expiringDtm = new Date(Date.now() + 3000).toISOString();
    const { secret } = await keyWith([], { type: 'SESSION', expiringDtm });
    const first = await call('POST', ISSUE, { apiKey: secret, body: {} });
    expect(first.status).toBe(200);
    expect(first.json.ttl).toBeGreaterThanOrEqual(1);
    expect(first.json.ttl).toBeLessThanOrEqual(3);
    expect(decodeJwt(first.json.token).exp! * 1000).toBeLessThanOrEqual(Date.parse(expiringDtm));
    await new Promise((r) => setTimeout(r, 3200));
    const res = await call('POST', ISSUE, { apiKey: secret, body: {} });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('API_KEY_EXPIRED');
  });

  it('refuses a deleted key', async () => {
    const { id, secret } = await keyWith([]);
    expect((await call('DELETE', `/api/arthr/apiKeys/${id}`, { token: await adminToken() })).status).toBe(204);
    const res = await call('POST', ISSUE, { apiKey: secret, body: {} });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('INVALID_API_KEY');
  });

  it("refuses a tenant's key on another tenant's host", async () => {
    const res = await call('POST', ISSUE, { tenant: 'other', apiKey: inject('demoKey'), body: {} });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('INVALID_API_KEY');
    expect((await call('POST', ISSUE, { tenant: 'other', apiKey: inject('otherKey'), body: {} })).status).toBe(200);
  });
});
