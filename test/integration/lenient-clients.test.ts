import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { adminToken, call, keyWith } from './client.js';

/**
 * What the family's clients send (DESIGN.md, "Compatibility with the service family"), as they
 * send it: a Spring client's process token, with the tenant in the body, numbers as strings,
 * integers and booleans in parameters, nulls for absent fields and fields this service does not
 * know.
 */
const TOKENS = '/api/process-manager/processTokens';
const fresh = () => `lenient-${Math.random().toString(36).slice(2, 10)}`;
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

describe("the family's clients, read leniently", () => {
  it('creates the process token a Spring client sends, and an instance from it', async () => {
    const body = {
      tenantId: 'demo',
      name: fresh(),
      description: null,
      type: 'MULTI_USE_COUNT_LIMITED',
      maxCount: '2',
      processDefnName: 'identity-check',
      processDefnVersion: 1,
      processDefnTag: null,
      uiUrl: null,
      parameters: { firstName: 'Ann', age: 42, vip: true, score: 1.5 },
      processInstanceInit: null,
      maxProcessDuration: null,
      validFromDtm: null,
      createdBy: 'someone',
      clientVersion: '7.4.1',
      flags: { beta: true },
    };
    const res = await call('POST', TOKENS, { token, body });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      name: body.name,
      description: '',
      maxCount: 2,
      processDefnVersion: '1',
      parameters: { firstName: 'Ann', age: '42', vip: 'true', score: '1.5' },
      processInstanceInit: null,
      createdBy: expect.stringMatching(/^apikey:/),
    });
    expect(res.json).not.toHaveProperty('clientVersion');
    expect(res.json).not.toHaveProperty('flags');
    expect(res.json).not.toHaveProperty('tenantId');
    const read = await call('GET', `${TOKENS}/${res.json.id}`, { token });
    expect(read.json.parameters).toEqual({ firstName: 'Ann', age: '42', vip: 'true', score: '1.5' });

    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${res.json.id}`, { token, body: { tenantId: 'demo' } });
    expect(created.status, created.text).toBe(201);
  });

  it('takes notBeforeDtm and notAfterDtm as the bounds of a time-limited token', async () => {
    const notBefore = new Date(Date.now() + 3_600_000).toISOString();
    const notAfter = new Date(Date.now() + 7_200_000).toISOString();
    const body = { name: fresh(), processDefnName: 'identity-check', processDefnVersion: '1', type: 'MULTI_USE_TIME_LIMITED', notBeforeDtm: notBefore, notAfterDtm: notAfter };
    const res = await call('POST', TOKENS, { token, body });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ validFromDtm: notBefore, validToDtm: notAfter });
    // Not yet valid: its start bound was read, not dropped.
    const early = await call('POST', `/api/process-manager/processInstances/create?pt=${res.json.id}`, { token });
    expect(early.json.code).toBe('PROCESS_TOKEN_NOT_YET_VALID');
  });

  it('refuses two different instants under the two names of one bound, and notAfterDtm in the past', async () => {
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const base = { name: fresh(), processDefnName: 'identity-check', processDefnVersion: '1', type: 'MULTI_USE_TIME_LIMITED' };
    const both = await call('POST', TOKENS, { token, body: { ...base, validToDtm: at(3_600_000), notAfterDtm: at(7_200_000) } });
    expect(both.status).toBe(400);
    expect(both.json.details.map((d: { location: string }) => d.location)).toContain('body.notAfterDtm');
    const end = at(3_600_000);
    const same = await call('POST', TOKENS, { token, body: { ...base, name: fresh(), validToDtm: end.replace('Z', '+00:00'), notAfterDtm: end } });
    expect(same.status, same.text).toBe(201);
    const past = await call('POST', TOKENS, { token, body: { ...base, name: fresh(), notAfterDtm: at(-1000) } });
    expect(past.status).toBe(400);
    expect(past.json.details.map((d: { location: string }) => d.location)).toContain('body.validToDtm');
  });

  it('issues a token with no body and no content type, and with a content type but no body', async () => {
    const key = inject('demoKey');
    const bare = await call('POST', '/api/arthr/apiKeys/issue', { apiKey: key });
    expect(bare.status, bare.text).toBe(200);
    const typed = await call('POST', '/api/arthr/apiKeys/issue', { apiKey: key, headers: { 'content-type': 'application/json' } });
    expect(typed.status, typed.text).toBe(200);
    const withTenant = await call('POST', '/api/arthr/apiKeys/issue', { apiKey: key, body: { tenantId: 'demo' } });
    expect(withTenant.status, withTenant.text).toBe(200);
  });

  it('answers GETs that carry Content-Type: application/json', async () => {
    for (const path of [TOKENS, '/api/arthr/apiKeys', '/api/process-manager/processInstances/search?page=0&size=1', '/api/process-manager/processDefinitions']) {
      const res = await call('GET', path, { token, headers: { 'content-type': 'application/json; charset=UTF-8' } });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
  });

  it('refuses a body naming another tenant, whoever the caller is, and stores nothing', async () => {
    const name = fresh();
    const res = await call('POST', TOKENS, { token, body: { tenantId: 'other', name, processDefnName: 'identity-check', processDefnVersion: '1' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ location: 'body.tenantId' }] });
    const list = await call('GET', `${TOKENS}?name=${name}`, { token });
    expect(list.json.content).toEqual([]);
  });

  it('ignores fields it does not know on API keys, and does not let them in as read-only fields', async () => {
    const res = await call('POST', '/api/arthr/apiKeys', {
      token,
      body: { name: fresh(), tenantId: 'demo', permissions: ['TNT#demo#ArthrServer:getFromTenant'], expiringDtm: null, id: 'mine', createdBy: 'me', owner: 'x' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.id).not.toBe('mine');
    expect(res.json.createdBy).not.toBe('me');
    expect(res.json).not.toHaveProperty('owner');
  });

  it('keeps strictness where it protects: types that cannot be coerced, limits, permissions', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ maxCount: { n: 1 } }, 'body.maxCount'],
      [{ maxCount: '1000001' }, 'body.maxCount'],
      [{ maxCount: '-1' }, 'body.maxCount'],
      [{ maxCount: ' 1' }, 'body.maxCount'],
      [{ name: ['a'] }, 'body.name'],
      [{ parameters: { a: [1] } }, 'body.parameters.a'],
      [{ processDefnVersion: '0' }, 'body.processDefnVersion'],
    ];
    for (const [patch, location] of cases) {
      const body = { name: fresh(), type: 'MULTI_USE_COUNT_LIMITED', maxCount: 1, processDefnName: 'identity-check', processDefnVersion: '1', ...patch };
      const res = await call('POST', TOKENS, { token, body });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.json.details.map((d: { location: string }) => d.location), JSON.stringify(patch)).toContain(location);
    }
    // A key without the permission gets 403, whatever the body says about the tenant.
    const weak = await keyWith(['ArthrServer:getFromTenant']);
    const issued = await call('POST', '/api/arthr/apiKeys/issue', { apiKey: weak.secret });
    const denied = await call('POST', TOKENS, { token: issued.json.token, body: { tenantId: 'demo', name: fresh(), processDefnName: 'identity-check', processDefnVersion: '1' } });
    expect(denied.status).toBe(403);
  });
});
