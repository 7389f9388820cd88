import { beforeAll, describe, expect, inject, it } from 'vitest';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { adminToken, call, expireItem, finalStatus, issueToken, keyWith, pageUntil } from './client.js';
import { passkeyJourney } from './journeys.js';

/**
 * Passkeys over the API, the browser and authenticator played by a software authenticator whose
 * responses the real @simplewebauthn/server verifies (the browser test uses Chromium's virtual
 * authenticator instead).
 */
let token: string;
let other: string;
const fresh = () => Math.random().toString(36).slice(2, 10);
const base = '/api/identity-store';
const RP = 'bank.example';
const ORIGIN = 'https://www.bank.example';

beforeAll(async () => {
  token = await adminToken();
  other = await issueToken(inject('otherKey'), 'other');
});

const CONFIG = {
  rpId: RP,
  rpName: 'Bank',
  allowedOrigins: [ORIGIN],
  registrationPolicies: { default: { authenticatorSelection: { residentKey: 'required', userVerification: 'required' } } },
  authenticationPolicies: { default: { userVerification: 'required' } },
};

async function storeWithPasskeys(t = token, tenant: string | undefined = undefined, name = `pk-${fresh()}`): Promise<string> {
  const opts = tenant ? { token: t, tenant } : { token: t };
  expect((await call('POST', `${base}/stores`, { ...opts, body: { name } })).status).toBe(201);
  const res = await call('POST', `${base}/stores/${name}/passkeyConfig`, { ...opts, body: CONFIG });
  expect(res.status, res.text).toBe(201);
  return name;
}

async function newUser(store: string): Promise<{ id: string; externalId: string }> {
  const res = await call('POST', `${base}/stores/${store}/users`, { token, body: { externalId: `ext-${fresh()}` } });
  expect(res.status).toBe(201);
  return res.json;
}

const startReg = (store: string, userId: string) => call('POST', `${base}/stores/${store}/users/${userId}/passkeys/relyingParties/${RP}/registrations/default`, { token, body: {} });
const completeReg = (store: string, sessionId: string, response: unknown, t = token) =>
  call('POST', `${base}/stores/${store}/passkeys/registrations/sessions/${sessionId}`, { token: t, body: { response } });
const startAuth = (store: string, userId?: string) =>
  call('POST', userId ? `${base}/stores/${store}/users/${userId}/passkeys/relyingParties/${RP}/authentications/default` : `${base}/stores/${store}/passkeys/relyingParties/${RP}/authentications/default`, { token, body: {} });
const completeAuth = (store: string, sessionId: string, response: unknown) => call('POST', `${base}/stores/${store}/passkeys/authentications`, { token, body: { sessionId, response } });

async function registered(store: string, user: { id: string }, device = new SoftAuthenticator()) {
  const started = await startReg(store, user.id);
  expect(started.status, started.text).toBe(201);
  const done = await completeReg(store, started.json.sessionId, device.createCredential(started.json.publicKey, ORIGIN));
  expect(done.status, done.text).toBe(200);
  return { device, passkey: done.json.passkey };
}

describe('passkey configuration', () => {
  it('is kept per relying party, and refuses what WebAuthn could not use', async () => {
    const store = await storeWithPasskeys();
    const read = await call('GET', `${base}/stores/${store}`, { token });
    expect(read.json.passkeyConfig[RP]).toMatchObject({ rpName: 'Bank', allowedOrigins: [ORIGIN] });
    const updated = await call('POST', `${base}/stores/${store}/passkeyConfig/${RP}`, { token, body: { rpName: 'Bank 2', allowedOrigins: [ORIGIN, 'http://localhost:3000'] } });
    expect(updated.status).toBe(200);
    expect(updated.json.passkeyConfig[RP].rpName).toBe('Bank 2');
    for (const bad of [{ ...CONFIG, rpId: 'Bank.Example' }, { ...CONFIG, allowedOrigins: ['https://www.bank.example/path'] }, { ...CONFIG, allowedOrigins: [] }, { ...CONFIG, rpName: { n: 1 } }]) {
      expect((await call('POST', `${base}/stores/${store}/passkeyConfig`, { token, body: bad })).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await call('POST', `${base}/stores/nostore-${fresh()}/passkeyConfig`, { token, body: CONFIG })).status).toBe(404);
    const user = await newUser(store);
    expect((await call('POST', `${base}/stores/${store}/users/${user.id}/passkeys/relyingParties/other.example/registrations/default`, { token, body: {} })).json.code).toBe('RELYING_PARTY_NOT_FOUND');
    expect((await call('POST', `${base}/stores/${store}/users/${user.id}/passkeys/relyingParties/${RP}/registrations/nopolicy`, { token, body: {} })).json.code).toBe('POLICY_NOT_FOUND');
  });
});

describe('passkey registration', () => {
  it('gives creation options and a pending session, registers once, and keeps an audit', async () => {
    const store = await storeWithPasskeys();
    const user = await newUser(store);
    const started = await startReg(store, user.id);
    expect(started.status).toBe(201);
    expect(started.json.authenticatorSelection).toEqual({ residentKey: 'required', userVerification: 'required' });
    expect(started.json.publicKey).toMatchObject({ rp: { id: RP, name: 'Bank' }, user: { name: user.externalId }, excludeCredentials: [] });
    const pending = await call('GET', `${base}/stores/${store}/users/${user.id}/sessions`, { token });
    expect(pending.json).toMatchObject({ sessionId: started.json.sessionId, username: user.externalId, authenticatorSelection: { residentKey: 'required' } });
    expect((await call('GET', `${base}/stores/${store}/users/${user.externalId}/sessions/ext`, { token })).json.username).toBe(user.externalId);

    const device = new SoftAuthenticator({ aaguid: '01020304-0506-0708-090a-0b0c0d0e0f10' });
    const response = device.createCredential(started.json.publicKey, ORIGIN);
    const done = await completeReg(store, started.json.sessionId, response);
    expect(done.status, done.text).toBe(200);
    expect(done.json.user.id).toBe(user.id);
    expect(done.json.passkey).toMatchObject({ credentialId: response.id, rpId: RP, counter: 0 });
    // The challenge is spent: the same response again is refused, and nothing is pending.
    expect((await completeReg(store, started.json.sessionId, response)).json.code).toBe('PASSKEY_SESSION_NOT_FOUND');
    expect((await call('GET', `${base}/stores/${store}/users/${user.id}/sessions`, { token })).status).toBe(404);

    const audit = await call('GET', `${base}/stores/${store}/users/${user.id}/passkeys/${done.json.passkey.id}/registrationAudit`, { token });
    expect(audit.json).toMatchObject({ aaguid: '01020304-0506-0708-090a-0b0c0d0e0f10', attestationFormat: 'none', origin: ORIGIN, userVerified: true, registrationPolicy: 'default' });
    expect((await call('GET', `${base}/stores/${store}/users/${user.externalId}/passkeys/${done.json.passkey.id}/registrationAudit/ext`, { token })).status).toBe(200);
    expect((await call('GET', `${base}/stores/${store}/users/${user.id}/passkeys/${'0'.repeat(26)}/registrationAudit`, { token })).json.code).toBe('PASSKEY_NOT_FOUND');

    // The next registration excludes the passkey the user has: the same authenticator refuses.
    const again = await call('POST', `${base}/stores/${store}/users/${user.externalId}/passkeys/relyingParties/${RP}/registrations/default/ext`, { token, body: {} });
    expect(again.json.publicKey.excludeCredentials).toEqual([expect.objectContaining({ id: response.id })]);
    expect(() => device.createCredential(again.json.publicKey, ORIGIN)).toThrow();
  });

  it('refuses a credential id registered before, a wrong origin or challenge, and an expired session', async () => {
    const store = await storeWithPasskeys();
    const ann = await newUser(store);
    const { passkey } = await registered(store, ann);
    const bob = await newUser(store);
    const s1 = await startReg(store, bob.id);
    const dup = await completeReg(store, s1.json.sessionId, new SoftAuthenticator().createCredential(s1.json.publicKey, ORIGIN, { credentialId: passkey.credentialId }));
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('CREDENTIAL_EXISTS');

    const s2 = await startReg(store, bob.id);
    const evil = await completeReg(store, s2.json.sessionId, new SoftAuthenticator().createCredential(s2.json.publicKey, ORIGIN, { origin: 'https://evil.example' }));
    expect(evil.status).toBe(400);
    expect(evil.json.code).toBe('PASSKEY_VERIFICATION_FAILED');
    // A failed attempt spends the challenge too.
    expect((await completeReg(store, s2.json.sessionId, new SoftAuthenticator().createCredential(s2.json.publicKey, ORIGIN))).status).toBe(404);

    const s3 = await startReg(store, bob.id);
    expect((await completeReg(store, s3.json.sessionId, new SoftAuthenticator().createCredential(s3.json.publicKey, ORIGIN, { challenge: 'AAAA' }))).status).toBe(400);
    const s4 = await startReg(store, bob.id);
    expect((await completeReg(store, s4.json.sessionId, new SoftAuthenticator({ userVerification: false }).createCredential(s4.json.publicKey, ORIGIN))).status).toBe(400);

    const s5 = await startReg(store, bob.id);
    await expireItem(`TNT#demo#IDS#${store}#PKSESS#${s5.json.sessionId}`, 'PKSESS');
    expect((await completeReg(store, s5.json.sessionId, new SoftAuthenticator().createCredential(s5.json.publicKey, ORIGIN))).status).toBe(404);
  });

  it('without a user makes the user when it completes, its external id unique', async () => {
    const store = await storeWithPasskeys();
    const externalId = `new-${fresh()}`;
    const started = await call('POST', `${base}/stores/${store}/passkeys/relyingParties/${RP}/registrations/default`, { token, body: { externalId } });
    expect(started.status).toBe(201);
    expect(started.json.authenticatorSelection).toBeDefined();
    const done = await completeReg(store, started.json.sessionId, new SoftAuthenticator().createCredential(started.json.publicKey, ORIGIN));
    expect(done.status, done.text).toBe(200);
    expect(done.json.user.externalId).toBe(externalId);
    expect((await call('GET', `${base}/stores/${store}/users/${externalId}/ext`, { token })).json.id).toBe(done.json.user.id);
    expect((await call('POST', `${base}/stores/${store}/passkeys/relyingParties/${RP}/registrations/default`, { token, body: { externalId } })).json.code).toBe('EXTERNAL_ID_NOT_UNIQUE');
  });

  it('keeps ceremonies to their tenant and needs its permissions', async () => {
    const store = await storeWithPasskeys();
    await storeWithPasskeys(other, 'other', store);
    const user = await newUser(store);
    const started = await startReg(store, user.id);
    const response = new SoftAuthenticator().createCredential(started.json.publicKey, ORIGIN);
    const foreign = await call('POST', `${base}/stores/${store}/passkeys/registrations/sessions/${started.json.sessionId}`, { token: other, tenant: 'other', body: { response } });
    expect(foreign.status).toBe(404);
    const reader = await issueToken((await keyWith(['IdentityStore:getUser'])).secret);
    expect((await completeReg(store, started.json.sessionId, response, reader)).status).toBe(403);
    expect((await call('POST', `${base}/stores/${store}/passkeyConfig`, { token: reader, body: CONFIG })).status).toBe(403);
    expect((await completeReg(store, started.json.sessionId, response)).status).toBe(200);
  });
});

describe('passkey authentication', () => {
  it('for a user, discoverable, with the counter moving on; a replay and a cloned authenticator are refused', async () => {
    const store = await storeWithPasskeys();
    const user = await newUser(store);
    const { device, passkey } = await registered(store, user);

    const s1 = await startAuth(store, user.id);
    expect(s1.status).toBe(201);
    expect(s1.json.publicKey.allowCredentials).toEqual([expect.objectContaining({ id: passkey.credentialId })]);
    const clone = device.exportCredential(passkey.credentialId);
    const assertion = device.getAssertion(s1.json.publicKey, ORIGIN);
    const ok = await completeAuth(store, s1.json.sessionId, assertion);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toMatchObject({ verified: true, user: { id: user.id }, passkey: { id: passkey.id, counter: 1 } });
    // The same assertion again: its challenge is spent.
    expect((await completeAuth(store, s1.json.sessionId, assertion)).status).toBe(404);

    // Discoverable: no credentials listed; the authenticator's user handle names the user.
    const s2 = await call('POST', `${base}/stores/${store}/passkeys/relyingParties/${RP}/authentications/default`, { token, body: {} });
    expect(s2.json.publicKey.allowCredentials ?? []).toEqual([]);
    const found = await completeAuth(store, s2.json.sessionId, device.getAssertion(s2.json.publicKey, ORIGIN));
    expect(found.status, found.text).toBe(200);
    expect(found.json.user.externalId).toBe(user.externalId);
    expect(found.json.passkey.counter).toBe(2);

    // A copy of the authenticator from before: its counter has not moved past the stored one.
    const cloned = new SoftAuthenticator();
    cloned.importCredential(clone);
    const s3 = await call('POST', `${base}/stores/${store}/users/${user.externalId}/passkeys/relyingParties/${RP}/authentications/default/ext`, { token, body: {} });
    const replayed = await completeAuth(store, s3.json.sessionId, cloned.getAssertion(s3.json.publicKey, ORIGIN));
    expect(replayed.status).toBe(400);
    expect(replayed.json.code).toBe('PASSKEY_VERIFICATION_FAILED');

    const list = await call('GET', `${base}/stores/${store}/users/${user.id}/authentications?size=10`, { token });
    expect(list.json.content).toHaveLength(2);
    expect(list.json.content[0]).toMatchObject({ method: 'PASSKEY', rpId: RP, passkeyId: passkey.id });
    expect((await call('GET', `${base}/stores/${store}/users/${user.externalId}/authentications/ext`, { token })).json.totalElements).toBe(2);
    // By cursor, one a page, newest first; the cursor is bound to this user (the /ext route names the same one).
    const one = (await call('GET', `${base}/stores/${store}/users/${user.id}/authentications?size=1`, { token })).json;
    expect(one.content[0].id).toBe(list.json.content[0].id);
    const cursor = encodeURIComponent(one.nextCursor);
    const next = await call('GET', `${base}/stores/${store}/users/${user.externalId}/authentications/ext?size=1&page=1&cursor=${cursor}`, { token });
    expect(next.json).toMatchObject({ number: 1, last: true, nextCursor: null, totalElements: 2 });
    expect(next.json.content[0].id).toBe(list.json.content[1].id);
    const bad = await call('GET', `${base}/stores/${store}/users/${user.id}/authentications?size=1&cursor=${cursor}x`, { token });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('INVALID_CURSOR');

    const q = await call('POST', `${base}/events/queries/start`, { token, body: { storeName: store, userId: user.id } });
    const types = (await call('GET', `${base}/events/queries/${q.json.executionId}/result`, { token })).json.events.map((e: { type: string }) => e.type);
    expect(types).toEqual(['USER_ADDED', 'PASSKEY_REGISTERED', 'PASSKEY_AUTHENTICATED', 'PASSKEY_AUTHENTICATED', 'PASSKEY_AUTHENTICATION_FAILED']);
  });

  it("refuses another user's passkey, an unknown credential and a wrong origin", async () => {
    const store = await storeWithPasskeys();
    const ann = await newUser(store);
    const bob = await newUser(store);
    const annKey = await registered(store, ann);
    await registered(store, bob);
    const s1 = await startAuth(store, bob.id);
    const wrongUser = await completeAuth(store, s1.json.sessionId, annKey.device.getAssertion({ ...s1.json.publicKey, allowCredentials: [] }, ORIGIN));
    expect(wrongUser.status).toBe(400);
    const s2 = await startAuth(store, ann.id);
    expect((await completeAuth(store, s2.json.sessionId, new SoftAuthenticator().getAssertion.bind(annKey.device)(s2.json.publicKey, ORIGIN, { origin: 'https://evil.example' }))).status).toBe(400);
    const s3 = await startAuth(store, ann.id);
    const unknown = annKey.device.getAssertion(s3.json.publicKey, ORIGIN);
    expect((await completeAuth(store, s3.json.sessionId, { ...unknown, id: 'AAAA', rawId: 'AAAA' })).status).toBe(400);
    const noPasskeys = await newUser(store);
    expect((await startAuth(store, noPasskeys.id)).json.code).toBe('PASSKEY_NOT_FOUND');
  });
});

describe('passkeys in a journey (the browser played by the software authenticator)', () => {
  it('creates a passkey for the user the journey added, then signs in with it discoverably', async () => {
    const port = inject('port');
    const rpId = 'demo.fir.localhost';
    const origin = `http://demo.fir.localhost:${port}`;
    const store = `pkj-${fresh()}`;
    expect((await call('POST', `${base}/stores`, { token, body: { name: store } })).status).toBe(201);
    const config = { ...CONFIG, rpId, allowedOrigins: [origin], registrationPolicies: { default: {} }, authenticationPolicies: { default: {} } };
    expect((await call('POST', `${base}/stores/${store}/passkeyConfig`, { token, body: config })).status).toBe(201);
    const name = `pk-journey-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: passkeyJourney(name, store, rpId) })).status).toBe(201);
    const externalId = `ext-${fresh()}`;
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name, processDefnName: name, processDefnVersion: 1, parameters: { externalId } } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const url = new URL(created.json.redirectUrl);
    const path = `${url.pathname}${url.search}&lang=en`;
    const id = created.json.processInstanceId;
    const device = new SoftAuthenticator();
    const q = `${url.search}&lang=en`;
    const ceremony = async (activity: string) => {
      const res = await call('POST', `/journey/${id}/steps/${activity}/passkey/options${q}`);
      expect(res.status, res.text).toBe(200);
      return res.json as { sessionId: string; publicKey: any };
    };
    const submit = (activity: string, sessionId: string, response: unknown) =>
      call('POST', `/journey/${id}/steps/${activity}/passkey${q}`, {
        rawBody: new URLSearchParams({ sessionId, response: JSON.stringify(response) }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

    const reg = await pageUntil(path, 'data-mode="register"');
    expect(reg).toContain('<script src="/journey/assets/passkey.js" defer></script>');
    // Showing the page starts nothing; the button asks for a ceremony.
    expect(reg).not.toContain('challenge');
    const first = await ceremony('createPasskey');
    expect(first.publicKey.rp.id).toBe(rpId);
    // A response for another origin is refused, and the screen comes back.
    const refused = await submit('createPasskey', first.sessionId, new SoftAuthenticator().createCredential(first.publicKey, origin, { origin: 'https://evil.example' }));
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('could not be confirmed');
    // Its challenge is spent.
    expect((await submit('createPasskey', first.sessionId, new SoftAuthenticator().createCredential(first.publicKey, origin))).status).toBe(400);
    const second = await ceremony('createPasskey');
    expect(second.publicKey.challenge).not.toBe(first.publicKey.challenge);
    expect((await submit('createPasskey', second.sessionId, device.createCredential(second.publicKey, origin))).status).toBe(303);
    // The step is done: no more ceremonies for it.
    expect((await call('POST', `/journey/${id}/steps/createPasskey/passkey/options${q}`)).status).toBe(409);

    await pageUntil(path, 'data-mode="authenticate"');
    const auth = await ceremony('signIn');
    expect(auth.publicKey.allowCredentials ?? []).toEqual([]);
    expect((await call('POST', `/journey/${id}/steps/signIn/passkey/options?c=${'A'.repeat(43)}&lang=en`)).status).toBe(404);
    expect((await submit('signIn', auth.sessionId, device.getAssertion(auth.publicKey, origin))).status).toBe(303);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const read = await call('GET', `/api/process-manager/processInstances/${id}`, { token });
    const checks = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${id}/userdata/checks`, { token });
    expect(checks.json.map((c: { checkType: string; result: string }) => `${c.checkType} ${c.result}`)).toEqual(['PASSKEY_REGISTRATION PASS', 'PASSKEY_AUTHENTICATION PASS']);
  });
});
