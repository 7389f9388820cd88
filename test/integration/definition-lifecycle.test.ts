import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminToken, call, exampleNamed, keyWith, issueToken } from './client.js';

const BASE = '/api/process-manager/processDefinitions';
const TOKENS = '/api/process-manager/processTokens';
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const fresh = () => `lc-${Math.random().toString(36).slice(2, 10)}`;

async function publish(name: string, version: number): Promise<string> {
  const res = await call('POST', BASE, { token, body: exampleNamed(name, version) });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

const status = (id: string, to: string, t = token, tenant = 'demo') => call('POST', `${BASE}/${id}/status/${to}`, { token: t, tenant });
const tokenFor = (name: string, version: number) =>
  call('POST', TOKENS, { token, body: { name: `${name}-v${version}-${Math.random().toString(36).slice(2, 8)}`, processDefnName: name, processDefnVersion: String(version) } });

describe('the lifecycle of a definition version', () => {
  it('publishes active, and reads the status, processDefinitionId and themeId back', async () => {
    const name = fresh();
    const id = await publish(name, 1);
    const read = await call('GET', `${BASE}/${id}`, { token });
    expect(read.json).toMatchObject({ id, processDefinitionId: id, status: 'DEPLOYED_ACTIVE', themeId: null, name, version: 1 });
  });

  it('takes process tokens and starts journeys only while DEPLOYED_ACTIVE', async () => {
    const name = fresh();
    const id = await publish(name, 1);
    const pt = await tokenFor(name, 1);
    expect(pt.status).toBe(201);

    expect((await status(id, 'DEPLOYED_INACTIVE')).json.status).toBe('DEPLOYED_INACTIVE');
    const refused = await tokenFor(name, 1);
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('PROCESS_DEFINITION_NOT_ACTIVE');
    // A token made while it was active starts nothing while it is inactive.
    const start = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(start.status).toBe(409);
    expect(start.json.code).toBe('PROCESS_DEFINITION_NOT_ACTIVE');

    expect((await status(id, 'DEPLOYED_ACTIVE')).status).toBe(200);
    expect((await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token })).status).toBe(201);
  });

  it('takes EDITABLE, the family\u2019s draft, on create: it reads EDITABLE, takes no token until activated, then runs', async () => {
    const name = fresh();
    const made = await call('POST', BASE, { token, body: { ...exampleNamed(name, 1), status: 'EDITABLE' } });
    expect(made.status, made.text).toBe(201);
    expect(made.json.status).toBe('EDITABLE');
    const id = made.json.id as string;
    expect((await call('GET', `${BASE}/${id}`, { token })).json.status).toBe('EDITABLE');
    expect((await call('GET', `${BASE}/${name}/versions`, { token })).json.content[0]).toMatchObject({ id, status: 'EDITABLE' });
    // A draft: no tokens, and the lifecycle of a DRAFT.
    const early = await tokenFor(name, 1);
    expect(early.status).toBe(409);
    expect(early.json.code).toBe('PROCESS_DEFINITION_NOT_ACTIVE');
    expect(early.json.message).toContain('EDITABLE');
    expect((await status(id, 'EDITABLE')).json.status).toBe('EDITABLE');
    for (const to of ['DRAFT', 'DEPLOYED_INACTIVE']) {
      const res = await status(id, to);
      expect(res.status, to).toBe(400);
      expect(res.json.code).toBe('INVALID_STATUS_TRANSITION');
    }
    const activated = await status(id, 'DEPLOYED_ACTIVE');
    expect(activated.status, activated.text).toBe(200);
    expect(activated.json.status).toBe('DEPLOYED_ACTIVE');
    const pt = await tokenFor(name, 1);
    expect(pt.status, pt.text).toBe(201);
    expect((await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token })).status).toBe(201);
    // Deployed, it does not go back to a draft under either name.
    expect((await status(id, 'EDITABLE')).json.code).toBe('INVALID_STATUS_TRANSITION');
  });

  it('takes DRAFT and DEPLOYED_INACTIVE on create too, and refuses ARCHIVED or an unknown status', async () => {
    const draft = await call('POST', BASE, { token, body: { ...exampleNamed(fresh(), 1), status: 'DRAFT' } });
    expect(draft.json.status).toBe('DRAFT');
    const inactive = await call('POST', BASE, { token, body: { ...exampleNamed(fresh(), 1), status: 'DEPLOYED_INACTIVE' } });
    expect(inactive.json.status).toBe('DEPLOYED_INACTIVE');
    expect((await status(inactive.json.id, 'DEPLOYED_ACTIVE')).json.status).toBe('DEPLOYED_ACTIVE');
    for (const bad of ['ARCHIVED', 'LIVE', 'editable']) {
      const res = await call('POST', BASE, { token, body: { ...exampleNamed(fresh(), 1), status: bad } });
      expect(res.status, bad).toBe(400);
      expect(res.json.details.map((d: { location: string }) => d.location), bad).toContain('body.status');
    }
  });

  it('allows only the lifecycle\u2019s transitions: ARCHIVED is final, and a repeat changes nothing', async () => {
    const id = await publish(fresh(), 1);
    const again = await status(id, 'DEPLOYED_ACTIVE');
    expect(again.status).toBe(200);
    expect(again.json.status).toBe('DEPLOYED_ACTIVE');
    const toDraft = await status(id, 'DRAFT');
    expect(toDraft.status).toBe(400);
    expect(toDraft.json.code).toBe('INVALID_STATUS_TRANSITION');
    expect((await status(id, 'ARCHIVED')).json.status).toBe('ARCHIVED');
    for (const to of ['DEPLOYED_ACTIVE', 'DEPLOYED_INACTIVE', 'DRAFT']) {
      const res = await status(id, to);
      expect(res.status, to).toBe(400);
      expect(res.json.code).toBe('INVALID_STATUS_TRANSITION');
    }
    const bogus = await status(id, 'LIVE');
    expect(bogus.status).toBe(400);
    expect(bogus.json.code).toBe('VALIDATION_FAILED');
  });

  it('decides racing changes exactly: of two moves from the same status one wins, the other is refused', async () => {
    const id = await publish(fresh(), 1);
    const [a, b] = await Promise.all([status(id, 'DEPLOYED_INACTIVE'), status(id, 'ARCHIVED')]);
    const codes = [a, b].map((r) => r.status).sort();
    // The loser either lost the write (409) or read the winner's status and was refused (400) or repeated it (200).
    expect(codes).toContain(200);
    const read = await call('GET', `${BASE}/${id}`, { token });
    expect(['DEPLOYED_INACTIVE', 'ARCHIVED']).toContain(read.json.status);
  });

  it('is 404 for another tenant\u2019s version, and needs the publishing permission', async () => {
    const id = await publish(fresh(), 1);
    const other = await issueToken(inject('otherKey'), 'other');
    expect((await status(id, 'DEPLOYED_INACTIVE', other, 'other')).status).toBe(404);
    const reader = await issueToken((await keyWith(['ProcessManager:getProcessDefinitions'])).secret);
    const denied = await status(id, 'DEPLOYED_INACTIVE', reader);
    expect(denied.status).toBe(403);
    expect((await call('GET', `${BASE}/${id}`, { token })).json.status).toBe('DEPLOYED_ACTIVE');
  });
});

describe('GET /api/process-manager/processDefinitions/{name}/versions', () => {
  it('pages one name\u2019s versions; sort=version,desc with size=1 gives the latest, as the family\u2019s tools read it', async () => {
    const name = `${fresh()} with spaces`;
    const ids = [await publish(name, 1), await publish(name, 2), await publish(name, 3)];
    await publish(`${name}x`, 9);
    const latest = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?page=0&size=1&sort=version,desc`, { token });
    expect(latest.status).toBe(200);
    expect(latest.json).toMatchObject({ totalElements: 3, size: 1, number: 0 });
    expect(latest.json.content[0]).toMatchObject({ processDefinitionId: ids[2], version: 3, status: 'DEPLOYED_ACTIVE' });
    const all = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions`, { token });
    expect(all.json.content.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    const none = await call('GET', `${BASE}/nothing-of-that-name/versions`, { token });
    expect(none.json).toMatchObject({ totalElements: 0, content: [] });
    const badSort = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?sort=colour,desc`, { token });
    expect(badSort.status).toBe(400);
  });

  it('pages by nextCursor newest first, a version published meanwhile not shown twice, and refuses a cursor of another tenant or query', async () => {
    const name = fresh();
    for (let v = 1; v <= 3; v++) await publish(name, v);
    const url = (q: string) => `${BASE}/${encodeURIComponent(name)}/versions?size=2&sort=version,desc${q}`;
    const first = await call('GET', url(''), { token });
    expect(first.json).toMatchObject({ totalElements: 3, totalPages: 2, last: false, totalElementsCapped: false });
    expect(first.json.content.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    await publish(name, 4);
    const second = await call('GET', url(`&page=1&cursor=${encodeURIComponent(first.json.nextCursor)}`), { token });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ number: 1, last: true, nextCursor: null });
    expect(second.json.content.map((v: { version: number }) => v.version)).toEqual([1]);

    const cursor = encodeURIComponent(first.json.nextCursor);
    const theirs = await issueToken(inject('otherKey'), 'other');
    const elsewhere = await call('GET', url(`&cursor=${cursor}`), { tenant: 'other', token: theirs });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json).toMatchObject({ code: 'INVALID_CURSOR', details: [{ location: 'query.cursor' }] });
    const otherSort = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?size=2&cursor=${cursor}`, { token });
    expect(otherSort.json.code).toBe('INVALID_CURSOR');
    const forged = await call('GET', url(`&cursor=${encodeURIComponent(first.json.nextCursor.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAA'))}`), { token });
    expect(forged.json.code).toBe('INVALID_CURSOR');
  });
});
