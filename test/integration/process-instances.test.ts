import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { adminToken, call, expireItem, finalStatus, issueToken, keyWith } from './client.js';

const TOKENS = '/api/process-manager/processTokens';
const CREATE = '/api/process-manager/processInstances/create';
const INSTANCES = '/api/process-manager/processInstances';
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const fresh = () => `pi-${Math.random().toString(36).slice(2, 10)}`;

async function processToken(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call('POST', TOKENS, {
    token,
    body: { name: fresh(), processDefnName: 'identity-check', processDefnVersion: '1', parameters: { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', _redirectUrl: 'https://rp.example/done' }, ...extra },
  });
  expect(res.status).toBe(201);
  return res.json.id;
}

describe('POST /api/process-manager/processInstances/create', () => {
  it('creates a PENDING instance and returns a redirect URL with an unguessable capability', async () => {
    const pt = await processToken();
    const res = await call('POST', `${CREATE}?pt=${pt}`, { token });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(['processInstanceId', 'redirectUrl']);
    const url = new URL(res.json.redirectUrl);
    expect(url.pathname).toBe(`/journey/${res.json.processInstanceId}`);
    expect(url.searchParams.get('c')).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    // The redirect URL takes an appended &lang=.
    expect(new URL(`${res.json.redirectUrl}&lang=de`).searchParams.get('lang')).toBe('de');

    const read = await call('GET', `${INSTANCES}/${res.json.processInstanceId}`, { token });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      id: res.json.processInstanceId,
      tenantId: 'demo',
      processDefnName: 'identity-check',
      processDefnVersion: 1,
      status: 'PENDING',
      firstName: 'Ann',
      lastName: 'Lee',
      email: 'ann@example.com',
      retentionDays: 90,
    });
    expect(Date.parse(read.json.expiringDtm) - Date.parse(read.json.createdAt)).toBe(90 * 86_400_000);
    expect(read.text).not.toContain(url.searchParams.get('c')!);

    const withParameters = await call('GET', `${INSTANCES}/${res.json.processInstanceId}/withParameters`, { token });
    expect(withParameters.status).toBe(200);
    expect(withParameters.json.retentionDays).toBe(90);
    expect(withParameters.json.processTokenParameters).toEqual({ firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', _redirectUrl: 'https://rp.example/done' });
  });

  it('accepts X-API-Key directly', async () => {
    const pt = await processToken();
    expect((await call('POST', `${CREATE}?pt=${pt}`, { apiKey: inject('demoKey') })).status).toBe(201);
  });

  it('gives exactly maxCount instances to 50 concurrent creations and a clear refusal to the rest', async () => {
    const pt = await processToken({ type: 'MULTI_USE_COUNT_LIMITED', maxCount: 5 });
    const results = await Promise.all(Array.from({ length: 50 }, () => call('POST', `${CREATE}?pt=${pt}`, { token })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(45);
    for (const r of results.filter((x) => x.status === 409)) expect(r.json.code).toBe('PROCESS_TOKEN_EXHAUSTED');
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.json.processInstanceId)).size).toBe(5);
    expect((await call('GET', `${TOKENS}/${pt}`, { token })).json.counter).toBe(5);
  });

  it('lets a maxCount 1 token be used once', async () => {
    const pt = await processToken({ type: 'MULTI_USE_COUNT_LIMITED', maxCount: 1 });
    expect((await call('POST', `${CREATE}?pt=${pt}`, { token })).status).toBe(201);
    const second = await call('POST', `${CREATE}?pt=${pt}`, { token });
    expect(second.status).toBe(409);
    expect(second.json.code).toBe('PROCESS_TOKEN_EXHAUSTED');
  });

  it('creates nothing from an INACTIVE token, or outside a time window', async () => {
    const inactive = await processToken({ status: 'INACTIVE' });
    const res = await call('POST', `${CREATE}?pt=${inactive}`, { token });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('PROCESS_TOKEN_INACTIVE');
    const later = await processToken({ type: 'MULTI_USE_TIME_LIMITED', validFromDtm: '2099-01-01T00:00:00Z', validToDtm: '2099-02-01T00:00:00Z' });
    expect((await call('POST', `${CREATE}?pt=${later}`, { token })).json.code).toBe('PROCESS_TOKEN_NOT_YET_VALID');
    const now = await processToken({ type: 'MULTI_USE_TIME_LIMITED', validToDtm: new Date(Date.now() + 60_000).toISOString() });
    expect((await call('POST', `${CREATE}?pt=${now}`, { token })).status).toBe(201);
  });

  it('answers a retried request with the same Idempotency-Key with the first response', async () => {
    const pt = await processToken({ type: 'MULTI_USE_COUNT_LIMITED', maxCount: 3 });
    const key = `retry-${fresh()}`;
    const first = await call('POST', `${CREATE}?pt=${pt}`, { token, headers: { 'idempotency-key': key } });
    const again = await call('POST', `${CREATE}?pt=${pt}`, { token, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect((await call('GET', `${TOKENS}/${pt}`, { token })).json.counter).toBe(1);
    const otherPt = await processToken();
    const reused = await call('POST', `${CREATE}?pt=${otherPt}`, { token, headers: { 'idempotency-key': key } });
    expect(reused.status).toBe(409);
    expect(reused.json.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await call('POST', `${CREATE}?pt=${pt}`, { token, headers: { 'idempotency-key': 'has space' } })).status).toBe(400);
  });

  it('refuses a missing or malformed pt, an unknown token and another tenant\'s token', async () => {
    expect((await call('POST', CREATE, { token })).status).toBe(400);
    expect((await call('POST', `${CREATE}?pt=abc`, { token })).status).toBe(400);
    expect((await call('POST', `${CREATE}?pt=00000000-0000-4000-8000-000000000000`, { token })).status).toBe(404);
    const pt = await processToken();
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('POST', `${CREATE}?pt=${pt}`, { tenant: 'other', token: theirs })).status).toBe(404);
  });

  it('needs the createProcessInstance permission', async () => {
    const pt = await processToken();
    const { secret } = await keyWith(['ProcessManager:getProcessInstance']);
    expect((await call('POST', `${CREATE}?pt=${pt}`, { apiKey: secret })).status).toBe(403);
  });
});

describe("GET /web/trustweb?pt= (the family's hosted-UI link)", () => {
  it("starts an instance of the token's journey as startProcessAddress does, from the token's own uiUrl", async () => {
    const origin = new URL((await call('POST', TOKENS, { token, body: { name: fresh(), processDefnName: 'identity-check', processDefnVersion: '1' } })).json.uiUrl).origin;
    const made = await call('POST', TOKENS, {
      token,
      body: { name: fresh(), processDefnName: 'identity-check', processDefnVersion: '1', type: 'MULTI_USE_COUNT_LIMITED', maxCount: 2, uiUrl: `${origin}/web/trustweb`, parameters: { firstName: 'Ann' } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.json.uiUrl).toBe(`${origin}/web/trustweb`);
    const link = new URL(`${made.json.uiUrl}?pt=${made.json.id}`);

    const res = await call('GET', `${link.pathname}${link.search}`, { token });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(['processInstanceId', 'redirectUrl']);
    expect(new URL(res.json.redirectUrl).pathname).toBe(`/journey/${res.json.processInstanceId}`);
    const read = await call('GET', `${INSTANCES}/${res.json.processInstanceId}`, { token });
    expect(read.json).toMatchObject({ status: 'PENDING', processTokenId: made.json.id, processDefnName: 'identity-check', firstName: 'Ann' });
    // The journey link opens as any other.
    const page = await call('GET', `${new URL(res.json.redirectUrl).pathname}${new URL(res.json.redirectUrl).search}`);
    expect(page.status).toBe(200);

    // The token's use is counted the same way: one left, then none.
    expect((await call('GET', `${link.pathname}${link.search}`, { apiKey: inject('demoKey') })).status).toBe(201);
    const spent = await call('GET', `${link.pathname}${link.search}`, { token });
    expect(spent.status).toBe(409);
    expect(spent.json.code).toBe('PROCESS_TOKEN_EXHAUSTED');
    expect((await call('GET', `${TOKENS}/${made.json.id}`, { token })).json.counter).toBe(2);
  });

  it('gives face uploads and keeps an Idempotency-Key as startProcessAddress does', async () => {
    const pt = await processToken({ processInstanceInit: { externalSources: { faceUploads: { passport: { imageFormat: 'JPEG' } } } } });
    const key = `link-${fresh()}`;
    const first = await call('GET', `/web/trustweb?pt=${pt}`, { token, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(201);
    expect(first.json.externalSources.faceUploads.passport).toMatchObject({ imageFormat: 'JPEG', uploadUrl: expect.any(String) });
    const again = await call('GET', `/web/trustweb?pt=${pt}`, { token, headers: { 'idempotency-key': key } });
    expect(again.json.processInstanceId).toBe(first.json.processInstanceId);
  });

  it('needs the same credentials and permission, and refuses a missing, malformed or unknown pt', async () => {
    const pt = await processToken();
    expect((await call('GET', `/web/trustweb?pt=${pt}`)).status).toBe(401);
    const { secret } = await keyWith(['ProcessManager:getProcessInstance']);
    expect((await call('GET', `/web/trustweb?pt=${pt}`, { apiKey: secret })).status).toBe(403);
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `/web/trustweb?pt=${pt}`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('GET', '/web/trustweb', { token })).status).toBe(400);
    expect((await call('GET', '/web/trustweb?pt=nope', { token })).status).toBe(400);
    const unknown = await call('GET', '/web/trustweb?pt=00000000-0000-4000-8000-000000000000', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('PROCESS_TOKEN_NOT_FOUND');
  });
});

describe('POST /api/process-manager/processInstances (templated token)', () => {
  it('creates an instance whose parameters come from the request body over the token\'s', async () => {
    const pt = await processToken();
    const res = await call('POST', INSTANCES, { token, body: { processTokenId: pt, parameters: { firstName: 'Bo', customerRef: 'C-9' } } });
    expect(res.status).toBe(201);
    const read = await call('GET', `${INSTANCES}/${res.json.processInstanceId}/withParameters`, { token });
    expect(read.json.processTokenParameters).toMatchObject({ firstName: 'Bo', lastName: 'Lee', customerRef: 'C-9' });
    expect((await call('POST', INSTANCES, { token, body: { processTokenId: pt, parameters: { _redirectUrl: 'ftp://x' } } })).status).toBe(400);
  });
});

describe('statusMapped and elapsedMilliseconds', () => {
  it('reads a running instance as Pending with the time so far, on every read and list row', async () => {
    const pt = await processToken();
    const before = Date.now();
    const id = (await call('POST', `${CREATE}?pt=${pt}`, { token })).json.processInstanceId;
    await new Promise((r) => setTimeout(r, 50));
    const read = await call('GET', `${INSTANCES}/${id}`, { token });
    expect(read.json).toMatchObject({ status: 'PENDING', statusMapped: 'Pending' });
    expect(Number.isInteger(read.json.elapsedMilliseconds)).toBe(true);
    expect(read.json.elapsedMilliseconds).toBeGreaterThanOrEqual(50);
    expect(read.json.elapsedMilliseconds).toBeLessThanOrEqual(Date.now() - before + 1000);
    // Still running: the count goes on.
    await new Promise((r) => setTimeout(r, 50));
    const later = await call('GET', `${INSTANCES}/${id}/withParameters`, { token });
    expect(later.json.statusMapped).toBe('Pending');
    expect(later.json.elapsedMilliseconds).toBeGreaterThan(read.json.elapsedMilliseconds);
    const row = (await call('GET', `${INSTANCES}/search?searchString=${id}`, { token })).json.content[0];
    expect(row).toMatchObject({ id, statusMapped: 'Pending' });
    expect(Number.isInteger(row.elapsedMilliseconds)).toBe(true);
  });

  it('reads an ended instance with its label and the time from creation to its end, the same on every read', async () => {
    const name = fresh();
    const published = await call('POST', '/api/process-manager/processDefinitions', {
      token,
      body: { name, version: 1, startActivityId: 'review', activities: { review: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } } } },
    });
    expect(published.status, published.text).toBe(201);
    const pt = await call('POST', TOKENS, { token, body: { name: fresh(), processDefnName: name, processDefnVersion: '1' } });
    const id = (await call('POST', `${CREATE}?pt=${pt.json.id}`, { token })).json.processInstanceId;
    expect(await finalStatus(id, token)).toBe('REVIEW');
    const read = await call('GET', `${INSTANCES}/${id}`, { token });
    expect(read.json).toMatchObject({ status: 'REVIEW', statusMapped: 'Review' });
    const elapsed = read.json.elapsedMilliseconds;
    expect(Number.isInteger(elapsed)).toBe(true);
    expect(elapsed).toBeLessThanOrEqual(Date.parse(read.json.lastUpdatedAt) - Date.parse(read.json.createdAt));
    await new Promise((r) => setTimeout(r, 100));
    expect((await call('GET', `${INSTANCES}/${id}`, { token })).json.elapsedMilliseconds).toBe(elapsed);
    const row = (await call('GET', `${INSTANCES}/search?searchString=${id}`, { token })).json.content[0];
    expect(row).toMatchObject({ id, status: 'REVIEW', statusMapped: 'Review', elapsedMilliseconds: elapsed });
  });
});

describe('GET /api/process-manager/processInstances/{id}', () => {
  it("returns 404 for an unknown id, another tenant's instance, and without the permission 403", async () => {
    const pt = await processToken();
    const id = (await call('POST', `${CREATE}?pt=${pt}`, { token })).json.processInstanceId;
    expect((await call('GET', `${INSTANCES}/00000000-0000-4000-8000-000000000000`, { token })).status).toBe(404);
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `${INSTANCES}/${id}`, { tenant: 'other', token: theirs })).status).toBe(404);
    const { secret } = await keyWith(['ProcessManager:addProcessToken']);
    expect((await call('GET', `${INSTANCES}/${id}`, { token: await issueToken(secret) })).status).toBe(403);
  });

  it('answers 404 once the instance is past its expiringDtm, before DynamoDB deletes it', async () => {
    const pt = await processToken();
    const id = (await call('POST', `${CREATE}?pt=${pt}`, { token })).json.processInstanceId;
    expect((await call('GET', `${INSTANCES}/${id}`, { token })).status).toBe(200);
    await expireItem(`TNT#demo#PI#${id}`, 'PI');
    expect((await call('GET', `${INSTANCES}/${id}`, { token })).status).toBe(404);
    expect((await call('GET', `${INSTANCES}/${id}/withParameters`, { token })).status).toBe(404);
  });
});
