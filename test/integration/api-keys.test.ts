import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { adminToken, call, issueToken, keyWith } from './client.js';

const BASE = '/api/arthr/apiKeys';
const FIELDS = [
  'id', 'type', 'code', 'name', 'description', 'status', 'permissions', 'permittedOperations',
  'expiringDtm', 'lastIssuedAtDtm', 'createdDtm', 'lastUpdatedDtm', 'createdBy', 'lastUpdatedBy',
].sort();

let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const create = (body: unknown) => call('POST', BASE, { token, body });

describe('POST /api/arthr/apiKeys', () => {
  it('creates a key and returns its secret once, with every field of the spec', async () => {
    const res = await create({ name: 'backend', description: 'the bank backend', permissions: ['TNT#demo#ArthrServer:getFromTenant'] });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${BASE}/${res.json.id}`);
    expect(Object.keys(res.json).sort()).toEqual([...FIELDS, 'secret'].sort());
    expect(res.json).toMatchObject({
      type: 'PERMANENT',
      status: 'ACTIVE',
      name: 'backend',
      description: 'the bank backend',
      permittedOperations: [],
      expiringDtm: null,
      lastIssuedAtDtm: null,
      code: res.json.secret.slice(-4),
    });
    expect(res.json.createdBy).toMatch(/^apikey:/);
    const read = await call('GET', `${BASE}/${res.json.id}`, { token });
    expect(read.status).toBe(200);
    expect(Object.keys(read.json).sort()).toEqual(FIELDS);
    expect(read.text).not.toContain(res.json.secret);
    expect((await call('GET', BASE, { token, headers: {} })).text).not.toContain(res.json.secret);
  });

  it('takes names of 1 and 255 characters and descriptions of 0 and 255', async () => {
    expect((await create({ name: 'a', description: '' })).status).toBe(201);
    expect((await create({ name: 'n'.repeat(255), description: 'd'.repeat(255) })).status).toBe(201);
    expect((await create({ name: '😀'.repeat(255) })).status).toBe(201);
  });

  it.each([
    ['an empty name', { name: '' }, 'body.name'],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, 'body.name'],
    ['a description of 256 characters', { name: 'x', description: 'd'.repeat(256) }, 'body.description'],
    ['a missing name', { description: 'x' }, 'body.name'],
    ['an object for a name', { name: { first: 'x' } }, 'body.name'],
    ['an unknown type', { name: 'x', type: 'FOREVER' }, 'body.type'],
    ['an unknown status', { name: 'x', status: 'ENABLED' }, 'body.status'],
    ['permissions that are not an array', { name: 'x', permissions: 'TNT#demo#ArthrServer:getFromTenant' }, 'body.permissions'],
    ['an unknown permission', { name: 'x', permissions: ['TNT#demo#ArthrServer:doAnything'] }, 'body.permissions[0]'],
    ['a permission of another tenant', { name: 'x', permissions: ['TNT#other#ArthrServer:getFromTenant'] }, 'body.permissions[0]'],
    ['a bare permission name', { name: 'x', permissions: ['ArthrServer:getFromTenant'] }, 'body.permissions[0]'],
    ['an unknown operation', { name: 'x', permittedOperations: ['deleteEverything'] }, 'body.permittedOperations.0'],
    ['a date that is not a date-time', { name: 'x', expiringDtm: 'tomorrow' }, 'body.expiringDtm'],
    ['an expiry in the past', { name: 'x', expiringDtm: '2020-01-01T00:00:00Z' }, 'body.expiringDtm'],
    ['a SESSION key without expiry', { name: 'x', type: 'SESSION' }, 'body.expiringDtm'],
  ])('refuses %s with 400 naming the field', async (_what, body, location) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('VALIDATION_FAILED');
    expect(res.json.details.map((d: { location: string }) => d.location)).toContain(location);
  });

  it('ignores read-only fields sent back, such as id and createdDtm', async () => {
    const res = await create({ name: 'echo', id: 'mine', createdDtm: '2000-01-01T00:00:00Z', lastIssuedAtDtm: 'x' });
    expect(res.status).toBe(201);
    expect(res.json.id).not.toBe('mine');
    expect(res.json.createdDtm).not.toBe('2000-01-01T00:00:00Z');
  });

  it('refuses malformed JSON, a wrong content type and an oversized body with a 4xx, not a 500', async () => {
    const malformed = await call('POST', BASE, { token, rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.code).toBe('MALFORMED_JSON');
    const notJson = await call('POST', BASE, { token, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(notJson.status).toBe(415);
    const big = await call('POST', BASE, { token, body: { name: 'x', description: 'd'.repeat(70_000) } });
    expect(big.status).toBe(413);
    expect(big.json.code).toBe('PAYLOAD_TOO_LARGE');
    const array = await call('POST', BASE, { token, body: [] });
    expect(array.status).toBe(400);
    const nul = await call('POST', BASE, { token, rawBody: 'null', headers: { 'content-type': 'application/json' } });
    expect(nul.status).toBe(400);
  });

  it('refuses to grant a permission the caller does not hold', async () => {
    const { secret } = await keyWith(['ArthrServer:createTenantApiKey']);
    const limited = await issueToken(secret);
    const res = await call('POST', BASE, {
      token: limited,
      body: { name: 'escalate', permissions: ['TNT#demo#ArthrServer:deleteFromTenant'] },
    });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('PERMISSION_ESCALATION');
    const ok = await call('POST', BASE, { token: limited, body: { name: 'same', permissions: ['TNT#demo#ArthrServer:createTenantApiKey'] } });
    expect(ok.status).toBe(201);
  });
});

describe('GET /api/arthr/apiKeys/{apiKeyId}', () => {
  it('returns 404 for an unknown id and 400 for a malformed one', async () => {
    const missing = await call('GET', `${BASE}/00000000-0000-4000-8000-000000000000`, { token });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('API_KEY_NOT_FOUND');
    const bad = await call('GET', `${BASE}/not-an-id`, { token });
    expect(bad.status).toBe(400);
  });

  it("does not show another tenant's key", async () => {
    const theirs = await keyWith([], {}, 'other');
    expect((await call('GET', `${BASE}/${theirs.id}`, { token })).status).toBe(404);
    expect((await call('POST', `${BASE}/${theirs.id}`, { token, body: { status: 'BLOCKED' } })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${theirs.id}`, { token })).status).toBe(404);
    // Still intact and usable in its own tenant.
    expect((await call('POST', `${BASE}/issue`, { tenant: 'other', apiKey: theirs.secret, body: {} })).status).toBe(200);
  });
});

describe('POST /api/arthr/apiKeys/{apiKeyId}', () => {
  it('updates the fields given and keeps the others', async () => {
    const { id } = await keyWith(['ArthrServer:getFromTenant'], { description: 'before' });
    const res = await call('POST', `${BASE}/${id}`, { token, body: { name: 'renamed', status: 'BLOCKED' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'renamed', status: 'BLOCKED', description: 'before', permissions: ['TNT#demo#ArthrServer:getFromTenant'] });
    expect(Date.parse(res.json.lastUpdatedDtm)).toBeGreaterThanOrEqual(Date.parse(res.json.createdDtm));
    expect((await call('GET', `${BASE}/${id}`, { token })).json).toEqual(res.json);
  });

  it('takes back the object it returned (read-only fields ignored)', async () => {
    const { key } = await keyWith([]);
    const { secret: _s, ...view } = key;
    const res = await call('POST', `${BASE}/${key.id}`, { token, body: { ...view, description: 'round trip' } });
    expect(res.status).toBe(200);
    expect(res.json.description).toBe('round trip');
  });

  it('keeps an ARCHIVED key final', async () => {
    const { id } = await keyWith([]);
    expect((await call('POST', `${BASE}/${id}`, { token, body: { status: 'ARCHIVED' } })).status).toBe(200);
    const res = await call('POST', `${BASE}/${id}`, { token, body: { status: 'ACTIVE' } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_STATUS_TRANSITION');
    expect((await call('GET', `${BASE}/${id}`, { token })).json.status).toBe('ARCHIVED');
  });

  it('validates updates as creation does, and leaves the key unchanged on refusal', async () => {
    const { id } = await keyWith([]);
    const before = (await call('GET', `${BASE}/${id}`, { token })).json;
    for (const body of [{ name: '' }, { description: 'd'.repeat(256) }, { status: 'GONE' }, { type: 'SESSION' }, { expiringDtm: '2001-01-01T00:00:00Z' }]) {
      expect((await call('POST', `${BASE}/${id}`, { token, body })).status).toBe(400);
    }
    expect((await call('GET', `${BASE}/${id}`, { token })).json).toEqual(before);
  });
});

describe('DELETE /api/arthr/apiKeys/{apiKeyId}', () => {
  it('deletes for good with 204 and no body', async () => {
    const { id } = await keyWith([]);
    const res = await call('DELETE', `${BASE}/${id}`, { token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await call('GET', `${BASE}/${id}`, { token })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`, { token })).status).toBe(404);
  });
});

describe('GET /api/arthr/apiKeys', () => {
  const prefix = `list-${Date.now()}`;
  beforeAll(async () => {
    for (const n of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) {
      expect((await create({ name: `${prefix}-${n}` })).status).toBe(201);
    }
  });

  it('returns a page with every field the spec names, page 0 of size 10 by default', async () => {
    const res = await call('GET', BASE, { token });
    expect(res.status).toBe(200);
    const page = res.json;
    // The spec's fields, and the two the cursor paging adds (docs/lists.md).
    expect(Object.keys(page).sort()).toEqual(
      [
        ...['content', 'totalElements', 'totalPages', 'first', 'last', 'number', 'size', 'numberOfElements', 'empty', 'sort', 'pageable'],
        ...['nextCursor', 'totalElementsCapped'],
      ].sort(),
    );
    expect(page).toMatchObject({ number: 0, size: 10, first: true, sort: { sorted: false, unsorted: true, empty: true } });
    expect(page.pageable).toEqual({ sort: page.sort, unpaged: false, paged: true, pageSize: 10, pageNumber: 0, offset: 0 });
    expect(page.numberOfElements).toBe(page.content.length);
    expect(page.totalPages).toBe(Math.ceil(page.totalElements / 10));
  });

  it('filters by a name pattern and pages through the matches', async () => {
    const q = `name=${encodeURIComponent(`${prefix}-%a`)}&size=2&sort=name,asc`;
    const p0 = (await call('GET', `${BASE}?${q}&page=0`, { token })).json;
    expect(p0.totalElements).toBe(4); // alpha, beta, gamma, delta
    expect(p0.totalPages).toBe(2);
    expect(p0.content.map((k: { name: string }) => k.name)).toEqual([`${prefix}-alpha`, `${prefix}-beta`]);
    expect(p0.sort).toEqual({ sorted: true, unsorted: false, empty: false });
    const p1 = (await call('GET', `${BASE}?${q}&page=1`, { token })).json;
    expect(p1).toMatchObject({ first: false, last: true, number: 1, numberOfElements: 2 });
    expect(p1.pageable.offset).toBe(2);
    const past = (await call('GET', `${BASE}?${q}&page=5`, { token })).json;
    expect(past).toMatchObject({ empty: true, numberOfElements: 0, totalElements: 4 });
    const one = (await call('GET', `${BASE}?name=${prefix}-b_t_&size=1`, { token })).json;
    expect(one.content.map((k: { name: string }) => k.name)).toEqual([`${prefix}-beta`]);
    const upper = (await call('GET', `${BASE}?name=${prefix.toUpperCase()}-ALPHA`, { token })).json;
    expect(upper.totalElements).toBe(1);
  });

  it('sorts by several orders', async () => {
    const res = await call('GET', `${BASE}?name=${prefix}-%25&sort=name,desc&size=5`, { token });
    expect(res.json.content.map((k: { name: string }) => k.name.split('-').pop())).toEqual(['gamma', 'epsilon', 'delta', 'beta', 'alpha']);
    const two = await call('GET', `${BASE}?name=${prefix}-%25&sort=status&sort=createdDtm,desc`, { token });
    expect(two.status).toBe(200);
  });

  it.each([
    ['size=0', 'query.size'],
    ['size=1001', 'query.size'],
    ['size=ten', 'query.size'],
    ['page=-1', 'query.page'],
    ['page=1.5', 'query.page'],
    ['sort=secretHash,asc', 'query.sort'],
    ['sort=name,sideways', 'query.sort'],
  ])('refuses %s with 400', async (q, location) => {
    const res = await call('GET', `${BASE}?${q}`, { token });
    expect(res.status).toBe(400);
    expect(res.json.details.map((d: { location: string }) => d.location)).toContain(location);
  });

  it('takes the size limits at their edges', async () => {
    expect((await call('GET', `${BASE}?size=1`, { token })).json.content).toHaveLength(1);
    expect((await call('GET', `${BASE}?size=1000`, { token })).status).toBe(200);
  });

  it("lists only the caller's tenant", async () => {
    const theirs = await keyWith([], {}, 'other');
    const all = (await call('GET', `${BASE}?size=1000`, { token })).json;
    expect(all.content.map((k: { id: string }) => k.id)).not.toContain(theirs.id);
    expect(inject('demoKey')).toBeTruthy();
  });

  it('walks every key once by nextCursor, newest first, and refuses a cursor of another tenant or changed by hand', async () => {
    const seen: string[] = [];
    let first: { totalElements: number; nextCursor: string } | undefined;
    for (let cursor: string | null = '', page = 0; cursor !== null; page++) {
      const res = await call('GET', `${BASE}?size=7&sort=createdDtm,desc&page=${page}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      expect(res.status).toBe(200);
      first ??= res.json;
      seen.push(...res.json.content.map((k: { id: string }) => k.id));
      cursor = res.json.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(first!.totalElements);
    const theirs = await issueToken(inject('otherKey'), 'other');
    const elsewhere = await call('GET', `${BASE}?size=7&sort=createdDtm,desc&cursor=${encodeURIComponent(first!.nextCursor)}`, { tenant: 'other', token: theirs });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json).toMatchObject({ code: 'INVALID_CURSOR', details: [{ location: 'query.cursor' }] });
    const forged = await call('GET', `${BASE}?size=7&sort=createdDtm,desc&cursor=c1.${Buffer.from('["APIKEYC#"]').toString('base64url')}.x`, { token });
    expect(forged.json.code).toBe('INVALID_CURSOR');
  });
});
