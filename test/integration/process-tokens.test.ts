import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { adminToken, call, issueToken, keyWith, storedInstance } from './client.js';

const BASE = '/api/process-manager/processTokens';
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const fresh = () => `pt-${Math.random().toString(36).slice(2, 10)}`;
const base = () => ({ name: fresh(), processDefnName: 'identity-check', processDefnVersion: '1' });

describe('POST /api/process-manager/processTokens', () => {
  it('creates a token with every field, a start link carrying pt=<id>, and reads it back', async () => {
    const body = {
      ...base(),
      description: 'onboarding',
      type: 'MULTI_USE_COUNT_LIMITED',
      maxCount: 5,
      parameters: { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', phoneNumber: '+441234', _redirectUrl: 'https://rp.example/done' },
      processInstanceInit: { externalSources: { faceUploads: { passport: { imageFormat: 'JPEG' } } } },
    };
    const res = await call('POST', BASE, { token, body });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: body.name,
      status: 'ACTIVE',
      type: 'MULTI_USE_COUNT_LIMITED',
      maxCount: 5,
      counter: 0,
      processDefnName: 'identity-check',
      processDefnVersion: '1',
      parameters: body.parameters,
      processInstanceInit: body.processInstanceInit,
      maxProcessDuration: null,
    });
    expect(res.json.startProcessAddress).toMatch(new RegExp(`/api/process-manager/processInstances/create\\?pt=${res.json.id}$`));
    expect(res.json.uiUrl).toMatch(/^http:\/\/demo\.fir\.localhost:\d+\/journey$/);
    expect(res.json.warnings).toBeUndefined();
    const read = await call('GET', `${BASE}/${res.json.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.json.id).toBe(res.json.id);
  });

  it('reads a null parameter as absent: dropped at creation, in no read, never stored, never on the instance', async () => {
    const body = { ...base(), parameters: { firstName: 'Ann', middleName: null, phoneNumber: null, _redirectUrl: null, age: 42 } };
    const res = await call('POST', BASE, { token, body });
    expect(res.status, res.text).toBe(201);
    expect(res.json.parameters).toEqual({ firstName: 'Ann', age: '42' });
    expect((await call('GET', `${BASE}/${res.json.id}`, { token })).json.parameters).toEqual({ firstName: 'Ann', age: '42' });
    const made = await call('POST', `/api/process-manager/processInstances/create?pt=${res.json.id}`, { token });
    expect(made.status, made.text).toBe(201);
    const id = made.json.processInstanceId;
    const read = await call('GET', `/api/process-manager/processInstances/${id}/withParameters`, { token });
    expect(read.json.processTokenParameters).toEqual({ firstName: 'Ann', age: '42' });
    expect(read.json).not.toHaveProperty('phoneNumber');
    expect((await storedInstance('demo', id))?.parameters).toEqual({ firstName: 'Ann', age: '42' });
    // A templated creation's null leaves the token's own value, and adds nothing.
    const templated = await call('POST', '/api/process-manager/processInstances', { token, body: { processTokenId: res.json.id, parameters: { firstName: null, lastName: 'Lee', middleName: null } } });
    expect(templated.status, templated.text).toBe(201);
    const withParameters = await call('GET', `/api/process-manager/processInstances/${templated.json.processInstanceId}/withParameters`, { token });
    expect(withParameters.json.processTokenParameters).toEqual({ firstName: 'Ann', age: '42', lastName: 'Lee' });
  });

  it("takes a uiUrl on its own host at /web/trustweb (the family's hosted-UI link) or /journey, a trailing slash either way, and echoes it as given", async () => {
    const origin = (await call('POST', BASE, { token, body: base() })).json.uiUrl.replace(/\/journey$/, '');
    for (const uiUrl of [`${origin}/web/trustweb`, `${origin}/web/trustweb/`, `${origin}/journey/`, `${origin.replace('demo.fir', 'DEMO.fir')}/web/trustweb`]) {
      const res = await call('POST', BASE, { token, body: { ...base(), uiUrl } });
      expect(res.status, uiUrl).toBe(201);
      expect(res.json.uiUrl, uiUrl).toBe(uiUrl);
      expect((await call('GET', `${BASE}/${res.json.id}`, { token })).json.uiUrl).toBe(uiUrl);
    }
    for (const uiUrl of [`${origin}/web`, `${origin}/web/trustweb/x`, `${origin}/`, `${origin}/api/process-manager/processTokens`, origin.replace('demo.fir', 'other.fir') + '/web/trustweb', `https://evil.example/web/trustweb`]) {
      const res = await call('POST', BASE, { token, body: { ...base(), uiUrl } });
      expect(res.status, uiUrl).toBe(400);
      expect(res.json.details.map((d: { location: string }) => d.location)).toContain('body.uiUrl');
    }
  });

  it('accepts X-API-Key directly as well as a bearer token', async () => {
    const res = await call('POST', BASE, { apiKey: inject('demoKey'), body: base() });
    expect(res.status).toBe(201);
    expect(res.json.createdBy).toMatch(/^apikey:/);
  });

  it('refuses a key without the permission, a key of another tenant, and no credentials', async () => {
    const { secret } = await keyWith(['ArthrServer:getFromTenant']);
    expect((await call('POST', BASE, { apiKey: secret, body: base() })).status).toBe(403);
    expect((await call('POST', BASE, { apiKey: inject('otherKey'), body: base() })).status).toBe(401);
    expect((await call('POST', BASE, { token: await issueToken(secret), body: base() })).status).toBe(403);
    expect((await call('POST', BASE, { body: base() })).status).toBe(401);
    expect((await call('POST', BASE, { token: `${token}x`, body: base() })).status).toBe(401);
  });

  it('refuses a key whose permittedOperations leave out direct token creation', async () => {
    const { secret } = await keyWith(['ProcessManager:addProcessToken'], { permittedOperations: ['issueToken'] });
    const res = await call('POST', BASE, { apiKey: secret, body: base() });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('API_KEY_OPERATION_NOT_PERMITTED');
    expect((await call('POST', BASE, { token: await issueToken(secret), body: base() })).status).toBe(201);
  });

  it('marks maxProcessDuration deprecated in the response', async () => {
    const res = await call('POST', BASE, { token, body: { ...base(), maxProcessDuration: 'PT1H' } });
    expect(res.status).toBe(201);
    expect(res.headers.deprecation).toBeTruthy();
    expect(res.json.maxProcessDuration).toBe('PT1H');
    expect(res.json.warnings[0]).toContain('deprecated');
  });

  it('keeps names unique in the tenant', async () => {
    const body = base();
    expect((await call('POST', BASE, { token, body })).status).toBe(201);
    const again = await call('POST', BASE, { token, body });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('PROCESS_TOKEN_NAME_TAKEN');
  });

  it('binds a token by tag instead of name and version', async () => {
    const defs = (await call('GET', '/api/process-manager/processDefinitions?name=identity-check', { token })).json.content;
    const tag = `t-${fresh()}`;
    await call('POST', `/api/process-manager/processDefinitions/${defs[0].id}/tags`, { token, body: { tags: [tag] } });
    const res = await call('POST', BASE, { token, body: { name: fresh(), processDefnTag: tag } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ processDefnTag: tag, processDefnName: null, processDefnVersion: null });
  });

  it.each([
    ['both name + version and a tag', { processDefnTag: 'x' }, 'body.processDefnTag'],
    ['an unknown definition', { processDefnName: 'no-such-journey' }, 'body.processDefnName'],
    ['an unknown version', { processDefnVersion: '99' }, 'body.processDefnName'],
    ['a version that is not a positive integer', { processDefnVersion: '1.5' }, 'body.processDefnVersion'],
    ['a name without a version', { processDefnVersion: undefined }, 'body.processDefnVersion'],
    ['count-limited without maxCount', { type: 'MULTI_USE_COUNT_LIMITED' }, 'body.maxCount'],
    ['maxCount 0', { type: 'MULTI_USE_COUNT_LIMITED', maxCount: 0 }, 'body.maxCount'],
    ['maxCount on an unlimited token', { maxCount: 3 }, 'body.maxCount'],
    ['time-limited without validToDtm', { type: 'MULTI_USE_TIME_LIMITED' }, 'body.validToDtm'],
    ['a window that ends before it starts', { type: 'MULTI_USE_TIME_LIMITED', validFromDtm: '2030-01-02T00:00:00Z', validToDtm: '2030-01-01T00:00:00Z' }, 'body.validToDtm'],
    ['an unknown type', { type: 'FOREVER' }, 'body.type'],
    ['an unknown status', { status: 'PAUSED' }, 'body.status'],
    ['a _redirectUrl that is not a URL', { parameters: { _redirectUrl: 'javascript:alert(1)' } }, 'body.parameters._redirectUrl'],
    ['a parameter value that is an object', { parameters: { age: { years: 42 } } }, 'body.parameters.age'],
    ['a maxCount that is no plain number', { type: 'MULTI_USE_COUNT_LIMITED', maxCount: '1e3' }, 'body.maxCount'],
    ['a tenantId naming another tenant', { tenantId: 'other' }, 'body.tenantId'],
    ['an external source other than faceUploads', { processInstanceInit: { externalSources: { nfc: {} } } }, 'body.processInstanceInit.externalSources.faceUploads'],
    ['an unknown image format', { processInstanceInit: { externalSources: { faceUploads: { a: { imageFormat: 'GIF' } } } } }, 'body.processInstanceInit.externalSources.faceUploads.a.imageFormat'],
    ["a uiUrl that is not the service's own", { uiUrl: 'https://evil.example/ui' }, 'body.uiUrl'],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, 'body.name'],
  ])('refuses %s with 400 naming the field', async (_what, patch, location) => {
    const body: Record<string, unknown> = { ...base(), ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete body[k];
    const res = await call('POST', BASE, { token, body });
    expect(res.status).toBe(400);
    expect(res.json.details.map((d: { location: string }) => d.location)).toContain(location);
  });

  it('takes a maxCount of 1 and a time window in the future', async () => {
    expect((await call('POST', BASE, { token, body: { ...base(), type: 'MULTI_USE_COUNT_LIMITED', maxCount: 1 } })).status).toBe(201);
    const validToDtm = new Date(Date.now() + 86_400_000).toISOString();
    const res = await call('POST', BASE, { token, body: { ...base(), type: 'MULTI_USE_TIME_LIMITED', validToDtm } });
    expect(res.status).toBe(201);
    expect(res.json.validToDtm).toBe(validToDtm);
    expect(res.json.validFromDtm).toBeTruthy();
  });
});

describe('GET /api/process-manager/processTokens', () => {
  it("pages through the tenant's tokens, filtered by name", async () => {
    const prefix = fresh();
    for (const n of ['a', 'b', 'c']) await call('POST', BASE, { token, body: { ...base(), name: `${prefix}-${n}` } });
    const res = await call('GET', `${BASE}?name=${prefix}-%25&size=2&sort=name,desc`, { token });
    expect(res.status).toBe(200);
    expect(res.json.totalElements).toBe(3);
    expect(res.json.content.map((t: { name: string }) => t.name)).toEqual([`${prefix}-c`, `${prefix}-b`]);
    const other = await call('GET', `${BASE}?name=${prefix}-%25`, { tenant: 'other', token: await issueToken(inject('otherKey'), 'other') });
    expect(other.json.totalElements).toBe(0);
  });

  it('pages newest first by nextCursor with a name pattern, and refuses the cursor elsewhere', async () => {
    const prefix = fresh();
    for (const n of ['a', 'b', 'c']) await call('POST', BASE, { token, body: { ...base(), name: `${prefix}-${n}` } });
    const q = `name=${prefix}-%25&size=2&sort=createdDtm,desc`;
    const first = (await call('GET', `${BASE}?${q}`, { token })).json;
    expect(first).toMatchObject({ totalElements: 3, last: false, totalElementsCapped: false });
    expect(first.content.map((t: { name: string }) => t.name)).toEqual([`${prefix}-c`, `${prefix}-b`]);
    await call('POST', BASE, { token, body: { ...base(), name: `${prefix}-d` } });
    const cursor = encodeURIComponent(first.nextCursor);
    const second = await call('GET', `${BASE}?${q}&page=1&cursor=${cursor}`, { token });
    expect(second.json.content.map((t: { name: string }) => t.name)).toEqual([`${prefix}-a`]);
    expect(second.json).toMatchObject({ last: true, nextCursor: null, number: 1 });
    const elsewhere = await call('GET', `${BASE}?${q}&cursor=${cursor}`, { tenant: 'other', token: await issueToken(inject('otherKey'), 'other') });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json.code).toBe('INVALID_CURSOR');
  });

  it('accepts X-API-Key directly as well as a bearer token', async () => {
    const res = await call('GET', `${BASE}?size=1`, { apiKey: inject('demoKey') });
    expect(res.status).toBe(200);
    expect(res.json.size).toBe(1);
    expect((await call('GET', BASE, { apiKey: inject('otherKey') })).status).toBe(401);
  });

  it('returns 404 for an unknown or foreign token', async () => {
    const mine = (await call('POST', BASE, { token, body: base() })).json;
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `${BASE}/${mine.id}`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('GET', `${BASE}/00000000-0000-4000-8000-000000000000`, { token })).status).toBe(404);
  });
});
