import { beforeAll, describe, expect, inject, it } from 'vitest';
import { SRP_GROUP, clientRegistration } from '../../functions/identity-store/passcodes/srp.js';
import { adminToken, call, expireItem, issueToken, keyWith } from './client.js';

let token: string;
let other: string;
const fresh = () => Math.random().toString(36).slice(2, 10);
const base = '/api/identity-store';
const b64 = (n: bigint) => {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Buffer.from(hex, 'hex').toString('base64');
};

beforeAll(async () => {
  token = await adminToken();
  other = await issueToken(inject('otherKey'), 'other');
});

const POLICY = {
  requirements: {
    minimumLength: 8,
    maximumLength: 32,
    digitCount: 1,
    upperCaseCount: 1,
    characterVariety: 3,
    passcodeHistory: 2,
    disallowedRegExes: [{ pattern: '(.)\\1\\1', error: 'No character three times in a row.' }],
  },
};

async function newStore(policies: Record<string, unknown> = { pin: POLICY }): Promise<string> {
  const name = `store-${fresh()}`;
  const res = await call('POST', `${base}/stores`, { token, body: { name, description: 'test', passcodePolicies: policies } });
  expect(res.status, res.text).toBe(201);
  return name;
}

async function newUser(store: string, externalId = `ext-${fresh()}`): Promise<{ id: string; externalId: string }> {
  const res = await call('POST', `${base}/stores/${store}/users`, { token, body: { externalId } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const start = (store: string, userId: string, policy = 'pin', t = token) =>
  call('POST', `${base}/stores/${store}/users/${userId}/passcodes/registrations/${policy}`, { token: t, body: {} });
const complete = (store: string, sessionId: string, srpRegistrationData: Record<string, unknown>, t = token) =>
  call('POST', `${base}/stores/${store}/passcodes/registrations/sessions/${sessionId}`, { token: t, body: { srpRegistrationData } });

/** Registers `passcode` the way a client does: start, make the verifier (and the history proofs), complete. */
async function register(store: string, userId: string, passcode: string) {
  const started = await start(store, userId);
  expect(started.status, started.text).toBe(201);
  const p = started.json.algorithmInfo.parameters;
  const verifier = await clientRegistration({ identity: p.identity, password: passcode, salt: p.salt });
  const historyVerifiers = await Promise.all(
    (p.historySalts as string[]).map((salt) => clientRegistration({ identity: p.identity, password: passcode, salt })),
  );
  return complete(store, p.i, { verifier, ...(historyVerifiers.length ? { historyVerifiers } : {}) });
}

describe('identity stores', () => {
  it('are created, read, listed and updated, each name once per tenant', async () => {
    const name = await newStore();
    const read = await call('GET', `${base}/stores/${name}`, { token });
    expect(read.json).toMatchObject({ name, description: 'test', type: 'STANDARD' });
    expect(read.json.passcodePolicies.pin.requirements).toEqual({
      minimumLength: 8,
      maximumLength: 32,
      digitCount: 1,
      symbolCount: 0,
      lowerCaseCount: 0,
      upperCaseCount: 1,
      characterVariety: 3,
      passcodeHistory: 2,
      requiredRegExes: [],
      allowedRegExes: [],
      disallowedRegExes: [{ pattern: '(.)\\1\\1', error: 'No character three times in a row.' }],
    });
    expect((await call('POST', `${base}/stores`, { token, body: { name } })).json.code).toBe('STORE_EXISTS');
    const list = await call('GET', `${base}/stores?size=1000`, { token });
    expect(list.json.content.map((s: { name: string }) => s.name)).toContain(name);
    const updated = await call('POST', `${base}/stores/${name}`, { token, body: { description: 'changed' } });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ description: 'changed' });
    expect(updated.json.passcodePolicies.pin).toBeDefined();
  });

  it('refuses policies that cannot be met or run', async () => {
    const bad = [
      { pin: { requirements: { minimumLength: 10, maximumLength: 9 } } },
      { pin: { requirements: { maximumLength: 4, digitCount: 3, upperCaseCount: 2 } } },
      { pin: { requirements: { requiredRegExes: [{ pattern: '(', error: 'x' }] } } },
      { pin: { requirements: { characterVariety: 5 } } },
      { pin: { requirements: { passcodeHistory: 25 } } },
      { pin: { requirements: { minimumLength: 0 } } },
      { pin: { requirements: { minimumLength: '4x' } } },
      { 'bad name!': { requirements: {} } },
    ];
    for (const passcodePolicies of bad) {
      const res = await call('POST', `${base}/stores`, { token, body: { name: `s-${fresh()}`, passcodePolicies } });
      expect(res.status, JSON.stringify(passcodePolicies)).toBe(400);
    }
    expect((await call('POST', `${base}/stores`, { token, body: { name: 'has space' } })).status).toBe(400);
    expect((await call('POST', `${base}/stores`, { token, body: { name: 'x'.repeat(65) } })).status).toBe(400);
    expect((await call('POST', `${base}/stores`, { token, body: { name: 'x'.repeat(64) } })).status).toBe(201);
  });

  it('belong to their tenant alone', async () => {
    const name = await newStore();
    expect((await call('GET', `${base}/stores/${name}`, { token: other, tenant: 'other' })).status).toBe(404);
    const list = await call('GET', `${base}/stores?size=1000`, { token: other, tenant: 'other' });
    expect(list.json.content.map((s: { name: string }) => s.name)).not.toContain(name);
    expect((await call('POST', `${base}/stores/${name}/users`, { token: other, tenant: 'other', body: { externalId: 'x' } })).status).toBe(404);
    // The same name in another tenant is another store.
    expect((await call('POST', `${base}/stores`, { token: other, tenant: 'other', body: { name } })).status).toBe(201);
  });

  it('need their permissions', async () => {
    const name = await newStore();
    const reader = await issueToken((await keyWith(['IdentityStore:getStores'])).secret);
    expect((await call('GET', `${base}/stores/${name}`, { token: reader })).status).toBe(200);
    expect((await call('POST', `${base}/stores`, { token: reader, body: { name: `s-${fresh()}` } })).status).toBe(403);
    expect((await call('POST', `${base}/stores/${name}`, { token: reader, body: { description: 'x' } })).status).toBe(403);
    expect((await call('POST', `${base}/stores/${name}/users`, { token: reader, body: { externalId: 'x' } })).status).toBe(403);
    const user = await newUser(name);
    expect((await start(name, user.id, 'pin', reader)).status).toBe(403);
  });
});

describe('identity store users', () => {
  it('get an internal id, and an external id unique in their store', async () => {
    const store = await newStore();
    const user = await newUser(store, 'customer-1');
    expect(user.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(user).toMatchObject({ externalId: 'customer-1', storeName: store, status: 'ACTIVE', passcodes: [] });
    const again = await call('POST', `${base}/stores/${store}/users`, { token, body: { externalId: 'customer-1' } });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('EXTERNAL_ID_NOT_UNIQUE');
    // Another store may have the same external id.
    await newUser(await newStore(), 'customer-1');
    expect((await call('GET', `${base}/stores/${store}/users/${user.id}`, { token })).json).toEqual(user);
    expect((await call('GET', `${base}/stores/${store}/users/customer-1/ext`, { token })).json).toEqual(user);
    expect((await call('GET', `${base}/stores/${store}/users/nobody/ext`, { token })).json.code).toBe('USER_NOT_FOUND');
    expect((await call('GET', `${base}/stores/${store}/users/${'0'.repeat(26)}`, { token })).status).toBe(404);
    expect((await call('GET', `${base}/stores/${store}/users/not-an-id`, { token })).status).toBe(400);
    expect((await call('GET', `${base}/stores/nostore-${fresh()}/users/${user.id}`, { token })).json.code).toBe('STORE_NOT_FOUND');
    expect((await call('POST', `${base}/stores/${store}/users`, { token, body: { externalId: '' } })).status).toBe(400);
    expect((await call('POST', `${base}/stores/${store}/users`, { token, body: { externalId: 'x'.repeat(256) } })).status).toBe(400);
  });
});

describe('passcodes with SRP-6a', () => {
  it('start with the requirements and the SRP parameters, and complete with a verifier', async () => {
    const store = await newStore();
    const user = await newUser(store);
    const started = await start(store, user.id);
    expect(started.status).toBe(201);
    expect(started.json.passcodeRequirements).toMatchObject({ minimumLength: 8, maximumLength: 32, digitCount: 1, passcodeHistory: 2 });
    for (const k of ['minimumLength', 'maximumLength', 'digitCount', 'symbolCount', 'lowerCaseCount', 'upperCaseCount', 'characterVariety', 'passcodeHistory', 'requiredRegExes', 'allowedRegExes', 'disallowedRegExes']) {
      expect(started.json.passcodeRequirements, k).toHaveProperty(k);
    }
    const p = started.json.algorithmInfo.parameters;
    expect(started.json.algorithmInfo.type).toBe('SRP');
    expect(p.i).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Buffer.from(p.n, 'base64').toString('hex')).toBe(SRP_GROUP.N.toString(16).padStart(512, '0'));
    expect(p).toMatchObject({ hash: 'SHA-256', identity: user.id, historySalts: [] });
    expect(Buffer.from(p.salt, 'base64').length).toBeGreaterThanOrEqual(16);

    const verifier = await clientRegistration({ identity: p.identity, password: 'Secret-pass1', salt: p.salt });
    const done = await complete(store, p.i, { verifier });
    expect(done.status, done.text).toBe(200);
    expect(done.json.user).toMatchObject({ id: user.id, passcodes: [{ policyName: 'pin' }] });
    expect(JSON.stringify(done.json)).not.toContain(verifier);
    // A session completes once.
    const replay = await complete(store, p.i, { verifier });
    expect(replay.status).toBe(404);
    expect(replay.json.code).toBe('PASSCODE_REGISTRATION_NOT_FOUND');
  });

  it('start by external id, and answer 404 for an unknown store, user or policy', async () => {
    const store = await newStore();
    const user = await newUser(store);
    const byExt = await call('POST', `${base}/stores/${store}/users/${user.externalId}/passcodes/registrations/pin/ext`, { token, body: {} });
    expect(byExt.status).toBe(201);
    expect(byExt.json.algorithmInfo.parameters.identity).toBe(user.id);
    expect((await start(`nostore-${fresh()}`, user.id)).json.code).toBe('STORE_NOT_FOUND');
    expect((await start(store, '0'.repeat(26))).json.code).toBe('USER_NOT_FOUND');
    expect((await start(store, user.id, 'nopolicy')).json.code).toBe('POLICY_NOT_FOUND');
    expect((await call('POST', `${base}/stores/${store}/users/nobody/passcodes/registrations/pin/ext`, { token, body: {} })).status).toBe(404);
    expect((await call('POST', `${base}/stores/${store}/users/${user.id}/passcodes/registrations/pin`, { token, body: ['x'] })).status).toBe(400);
  });

  it('refuse a verifier outside 1 < v < N, at its edges, and what is not base64', async () => {
    const store = await newStore({ pin: { requirements: {} } });
    const user = await newUser(store);
    const N = SRP_GROUP.N;
    for (const [what, v] of [
      ['0', b64(0n)],
      ['1', b64(1n)],
      ['N', b64(N)],
      ['N+1', b64(N + 1n)],
      ['garbage', 'not base64!'],
      ['over-long', Buffer.alloc(300, 1).toString('base64')],
    ] as const) {
      const s = (await start(store, user.id)).json.algorithmInfo.parameters;
      const res = await complete(store, s.i, { verifier: v });
      expect(res.status, what).toBe(400);
      expect(res.json.code, what).toBe('INVALID_VERIFIER');
      // A refused verifier leaves the session usable.
      const ok = await complete(store, s.i, { verifier: b64(2n) });
      expect(ok.status, `${what}: then 2`).toBe(200);
    }
    const last = (await start(store, user.id)).json.algorithmInfo.parameters;
    expect((await complete(store, last.i, { verifier: b64(N - 1n) })).status).toBe(200);
  });

  it('refuse an expired session and one of another tenant or store', async () => {
    const store = await newStore();
    const user = await newUser(store);
    const s = (await start(store, user.id)).json.algorithmInfo.parameters;
    const verifier = await clientRegistration({ identity: s.identity, password: 'Secret-pass1', salt: s.salt });
    // The other tenant, with a store of the same name: the session is not theirs.
    await call('POST', `${base}/stores`, { token: other, tenant: 'other', body: { name: store, passcodePolicies: { pin: POLICY } } });
    // Another tenant's token on this tenant's host is refused before anything is read.
    expect((await complete(store, s.i, { verifier }, other)).status).toBe(401);
    expect((await call('POST', `${base}/stores/${store}/passcodes/registrations/sessions/${s.i}`, { token: other, tenant: 'other', body: { srpRegistrationData: { verifier } } })).status).toBe(404);
    expect((await complete(await newStore(), s.i, { verifier })).status).toBe(404);
    await expireItem(`TNT#demo#IDS#${store}#PCREG#${s.i}`, 'PCREG');
    expect((await complete(store, s.i, { verifier })).json.code).toBe('PASSCODE_REGISTRATION_NOT_FOUND');
    expect((await call('GET', `${base}/stores/${store}/users/${user.id}`, { token })).json.passcodes).toEqual([]);
  });

  it("keep the policy's history: a passcode used before is refused, a new one taken", async () => {
    const store = await newStore();
    const user = await newUser(store);
    expect((await register(store, user.id, 'First-pass1')).status).toBe(200);
    expect((await register(store, user.id, 'Second-pass2')).status).toBe(200);
    const reused = await register(store, user.id, 'First-pass1');
    expect(reused.status).toBe(400);
    expect(reused.json.code).toBe('PASSCODE_REUSED');
    // Without the proofs the history rule needs, refused.
    const s = (await start(store, user.id)).json.algorithmInfo.parameters;
    expect(s.historySalts).toHaveLength(2);
    const verifier = await clientRegistration({ identity: s.identity, password: 'Third-pass3', salt: s.salt });
    expect((await complete(store, s.i, { verifier })).json.code).toBe('PASSCODE_HISTORY_PROOF_REQUIRED');
    expect((await register(store, user.id, 'Third-pass3')).status).toBe(200);
    // Only the last two count: the first is allowed again.
    expect((await register(store, user.id, 'First-pass1')).status).toBe(200);
  });

  it('deregister by id and by external id, once', async () => {
    const store = await newStore();
    const user = await newUser(store);
    expect((await register(store, user.id, 'First-pass1')).status).toBe(200);
    const dereg = await call('POST', `${base}/stores/${store}/users/${user.id}/passcodes/deregistrations/pin`, { token, body: {} });
    expect(dereg.status).toBe(200);
    expect(dereg.json.user.passcodes).toEqual([]);
    const again = await call('POST', `${base}/stores/${store}/users/${user.id}/passcodes/deregistrations/pin`, { token, body: {} });
    expect(again.status).toBe(404);
    expect(again.json.code).toBe('PASSCODE_REGISTRATION_NOT_FOUND');
    expect((await call('POST', `${base}/stores/${store}/users/${user.id}/passcodes/deregistrations/nopolicy`, { token, body: {} })).json.code).toBe('POLICY_NOT_FOUND');
    expect((await register(store, user.id, 'Second-pass2')).status).toBe(200);
    const byExt = await call('POST', `${base}/stores/${store}/users/${user.externalId}/passcodes/deregistrations/pin/ext`, { token, body: {} });
    expect(byExt.status).toBe(200);
    expect(byExt.json.user).toMatchObject({ id: user.id, passcodes: [] });
  });

  it('take each operation under its own permission', async () => {
    const store = await newStore();
    const user = await newUser(store);
    const startOnly = await issueToken((await keyWith(['createPasscodeRegistrationForUser'])).secret);
    const s = await start(store, user.id, 'pin', startOnly);
    expect(s.status).toBe(201);
    const p = s.json.algorithmInfo.parameters;
    const verifier = await clientRegistration({ identity: p.identity, password: 'Secret-pass1', salt: p.salt });
    expect((await complete(store, p.i, { verifier }, startOnly)).status).toBe(403);
    expect((await call('POST', `${base}/stores/${store}/users/${user.externalId}/passcodes/registrations/pin/ext`, { token: startOnly, body: {} })).status).toBe(403);
    const completer = await issueToken((await keyWith(['completePasscodeRegistration'])).secret);
    expect((await complete(store, p.i, { verifier }, completer)).status).toBe(200);
    expect((await call('POST', `${base}/stores/${store}/users/${user.id}/passcodes/deregistrations/pin`, { token: completer, body: {} })).status).toBe(403);
  });
});

describe('the identity store event log', () => {
  it('records each registration and deregistration, and pages through them with filters', async () => {
    const store = await newStore();
    const from = new Date().toISOString();
    // Bounds are inclusive to the millisecond: the events come a clear millisecond after `from`,
    // or a fast localhost call can stamp the first one in the same millisecond (seen once).
    await new Promise((r) => setTimeout(r, 3));
    const ann = await newUser(store);
    const bob = await newUser(store);
    expect((await register(store, ann.id, 'First-pass1')).status).toBe(200);
    expect((await call('POST', `${base}/stores/${store}/users/${ann.id}/passcodes/deregistrations/pin`, { token, body: {} })).status).toBe(200);
    expect((await register(store, bob.id, 'First-pass1')).status).toBe(200);

    const q = await call('POST', `${base}/events/queries/start`, { token, body: { storeName: store, size: 2 } });
    expect(q.status).toBe(201);
    const all: { type: string; userId: string }[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const page = await call('GET', `${base}/events/queries/${q.json.executionId}/result${next ? `?nextToken=${next}` : ''}`, { token });
      expect(page.status).toBe(200);
      expect(page.json.events.length).toBeLessThanOrEqual(2);
      all.push(...page.json.events);
      next = page.json.nextToken;
      pages += 1;
    } while (next);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(all.map((e) => [e.type, e.userId])).toEqual([
      ['USER_ADDED', ann.id],
      ['USER_ADDED', bob.id],
      ['PASSCODE_REGISTERED', ann.id],
      ['PASSCODE_DEREGISTERED', ann.id],
      ['PASSCODE_REGISTERED', bob.id],
    ]);
    expect(all[2]).toMatchObject({ storeName: store, details: { policyName: 'pin' }, actor: expect.stringContaining('') });

    const annOnly = await call('POST', `${base}/events/queries/start`, { token, body: { userId: ann.id, eventTypes: ['PASSCODE_REGISTERED', 'PASSCODE_DEREGISTERED'], from } });
    const annPage = await call('GET', `${base}/events/queries/${annOnly.json.executionId}/result?size=10`, { token });
    expect(annPage.json.events.map((e: { type: string }) => e.type)).toEqual(['PASSCODE_REGISTERED', 'PASSCODE_DEREGISTERED']);
    expect(annPage.json.nextToken).toBeUndefined();
    const byExt = await call('POST', `${base}/events/queries/start`, { token, body: { externalId: bob.externalId } });
    expect((await call('GET', `${base}/events/queries/${byExt.json.executionId}/result`, { token })).json.events).toHaveLength(2);
    const before = await call('POST', `${base}/events/queries/start`, { token, body: { storeName: store, to: from } });
    expect((await call('GET', `${base}/events/queries/${before.json.executionId}/result`, { token })).json.events).toEqual([]);
  });

  it('keeps queries and events to their tenant, and refuses bad input', async () => {
    const store = await newStore();
    await newUser(store);
    const q = await call('POST', `${base}/events/queries/start`, { token, body: { storeName: store } });
    expect((await call('GET', `${base}/events/queries/${q.json.executionId}/result`, { token: other, tenant: 'other' })).status).toBe(404);
    const theirs = await call('POST', `${base}/events/queries/start`, { token: other, tenant: 'other', body: { storeName: store } });
    expect((await call('GET', `${base}/events/queries/${theirs.json.executionId}/result`, { token: other, tenant: 'other' })).json.events).toEqual([]);
    const forged = Buffer.from(JSON.stringify({ s: 'TNT#other#x' })).toString('base64url');
    expect((await call('GET', `${base}/events/queries/${q.json.executionId}/result?nextToken=${forged}`, { token })).status).toBe(400);
    for (const body of [{ size: 0 }, { size: 1001 }, { eventTypes: ['NOPE'] }, { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, { size: '1e3' }]) {
      expect((await call('POST', `${base}/events/queries/start`, { token, body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call('POST', `${base}/events/queries/start`, { token, body: { size: 1000 } })).status).toBe(201);
    expect((await call('GET', `${base}/events/queries/${q.json.executionId}/result?size=1001`, { token })).status).toBe(400);
    expect((await call('GET', `${base}/events/queries/${'0'.repeat(26)}/result`, { token })).status).toBe(404);
    const reader = await issueToken((await keyWith(['IdentityStore:getStores'])).secret);
    expect((await call('POST', `${base}/events/queries/start`, { token: reader, body: {} })).status).toBe(403);
  });
});
