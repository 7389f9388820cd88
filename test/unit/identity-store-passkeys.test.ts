import { describe, expect, it } from 'vitest';
import {
  completePasskeyAuthentication,
  completePasskeyRegistration,
  getPasskeyAudit,
  getPendingSession,
  listUserAuthentications,
  startPasskeyAuthentication,
  startPasskeyRegistration,
} from '../../functions/identity-store/passkeys/passkeys.js';
import { PasskeyConfigSchema } from '../../functions/identity-store/schemas.js';
import { changeStore, createStore, newStore, withPasskeyConfig } from '../../functions/identity-store/stores/stores.js';
import { addUser } from '../../functions/identity-store/users/users.js';
import type { PasskeyRpConfig } from '../../functions/identity-store/model.js';
import { FakeIdentityStorage } from '../support/identity-store-fake.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const t0 = new Date('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const actor = 'apikey:k1';
const origin = 'https://www.bank.example';
const rpId = 'bank.example';

const bank: PasskeyRpConfig = {
  rpId,
  rpName: 'Bank',
  allowedOrigins: [origin],
  registrationPolicies: {
    default: { authenticatorSelection: { residentKey: 'required', userVerification: 'required' }, attestation: 'none', timeoutSeconds: 120 },
    lenient: { authenticatorSelection: { residentKey: 'preferred', userVerification: 'discouraged' }, attestation: 'none', timeoutSeconds: 120 },
  },
  authenticationPolicies: { default: { userVerification: 'required', timeoutSeconds: 120 } },
};

/** The tenants' `customers` stores with the bank's relying party, and a user in each. */
async function setup() {
  const fake = new FakeIdentityStorage();
  const users: Record<string, Awaited<ReturnType<typeof addUser>>> = {};
  for (const tenantId of ['acme', 'globex']) {
    await createStore(fake.stores, newStore({ tenantId, name: 'customers', actor: 'apikey:admin', now: t0 }));
    await changeStore(fake.stores, tenantId, 'customers', (c) => withPasskeyConfig(c, bank, 'apikey:admin', t0));
    users[tenantId] = await addUser(fake.all, { tenantId, storeName: 'customers', externalId: 'cust-42', actor, now: t0 });
  }
  const bob = await addUser(fake.all, { tenantId: 'acme', storeName: 'customers', externalId: 'cust-43', actor, now: t0 });
  return { fake, s: fake.all, user: users['acme']!, other: users['globex']!, bob };
}
type Setup = Awaited<ReturnType<typeof setup>>;

const startReg = (s: Setup['s'], userId: string, extra: { policyName?: string; rpId?: string; tenantId?: string; now?: Date } = {}) =>
  startPasskeyRegistration(s, { tenantId: extra.tenantId ?? 'acme', storeName: 'customers', rpId: extra.rpId ?? rpId, policyName: extra.policyName ?? 'default', user: { userId }, now: extra.now ?? t0 });

/** Registers a passkey of `authenticator` for the user. */
async function registerPasskey(env: Setup, authenticator: SoftAuthenticator, userId = env.user.id, tenantId = 'acme') {
  const started = await startReg(env.s, userId, { tenantId });
  const response = authenticator.createCredential(started.publicKey, origin);
  return completePasskeyRegistration(env.s, { tenantId, storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 });
}

const startAuth = (s: Setup['s'], user?: { userId: string }, tenantId = 'acme') =>
  startPasskeyAuthentication(s, { tenantId, storeName: 'customers', rpId, policyName: 'default', ...(user ? { user } : {}), now: t0 });

describe('PasskeyConfigSchema', () => {
  const parse = (config: Record<string, unknown>) => PasskeyConfigSchema.safeParse({ rpId, rpName: 'Bank', allowedOrigins: [origin], ...config });

  it('rejects when the rpId is not a lower-case domain name', () => {
    expect(parse({}).success).toBe(true);
    expect(parse({ rpId: 'localhost' }).success).toBe(true);
    for (const bad of ['https://bank.example', 'Bank.Example', 'bank.example/login', 'bank..example', '-bank.example', '']) expect(parse({ rpId: bad }).success).toBe(false);
  });

  it('rejects when an origin is http other than localhost, or has a path', () => {
    for (const good of ['https://www.bank.example', 'https://bank.example:8443', 'http://localhost:3000', 'http://app.localhost']) expect(parse({ allowedOrigins: [good] }).success).toBe(true);
    for (const bad of ['http://www.bank.example', 'https://www.bank.example/', 'https://www.bank.example/login', 'www.bank.example', 'ftp://bank.example'])
      expect(parse({ allowedOrigins: [bad] }).success).toBe(false);
    expect(parse({ allowedOrigins: [] }).success).toBe(false);
  });

  it('fills the policies a configuration leaves out', () => {
    const parsed = PasskeyConfigSchema.parse({ rpId, rpName: 'Bank', allowedOrigins: [origin], registrationPolicies: { p: {} } });
    expect(parsed.registrationPolicies['p']).toEqual({ authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' }, attestation: 'none', timeoutSeconds: 300 });
    expect(parsed.authenticationPolicies).toEqual({});
  });
});

describe('startPasskeyRegistration', () => {
  it("answers creation options for the relying party, named by the external id, with the user id as user handle and the policy's selection", async () => {
    const env = await setup();
    const started = await startReg(env.s, env.user.id);
    expect(started.username).toBe('cust-42');
    expect(started.authenticatorSelection).toEqual(bank.registrationPolicies['default']!.authenticatorSelection);
    expect(started.publicKey).toMatchObject({ rp: { id: rpId, name: 'Bank' }, user: { name: 'cust-42', displayName: 'cust-42' }, timeout: 120_000, attestation: 'none', excludeCredentials: [] });
    expect(Buffer.from(started.publicKey.user.id, 'base64url').toString('utf8')).toBe(env.user.id);
    expect(started.publicKey.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(started.expiresDtm).toBe(at(120).toISOString());
    expect(await getPendingSession(env.s, 'acme', 'customers', { userId: env.user.id }, t0)).toMatchObject({ sessionId: started.sessionId, username: 'cust-42', rpId });
  });

  it('rejects when the store has no such relying party or registration policy', async () => {
    const env = await setup();
    await expect(startReg(env.s, env.user.id, { rpId: 'shop.example' })).rejects.toMatchObject({ statusCode: 404, code: 'RELYING_PARTY_NOT_FOUND' });
    await expect(startReg(env.s, env.user.id, { policyName: 'nope' })).rejects.toMatchObject({ statusCode: 404, code: 'POLICY_NOT_FOUND' });
    await expect(startReg(env.s, env.user.id, { tenantId: 'globex' })).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it("excludes the user's passkeys, so the same authenticator cannot register twice", async () => {
    const env = await setup();
    const authenticator = new SoftAuthenticator();
    const { passkey } = await registerPasskey(env, authenticator);
    const again = await startReg(env.s, env.user.id);
    expect(again.publicKey.excludeCredentials).toEqual([{ id: passkey.credentialId, type: 'public-key', transports: ['internal'] }]);
    expect(() => authenticator.createCredential(again.publicKey, origin)).toThrow(expect.objectContaining({ name: 'InvalidStateError' }));
  });

  it('rejects when, without a user, the external id is taken', async () => {
    const env = await setup();
    await expect(
      startPasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', rpId, policyName: 'default', newUserExternalId: 'cust-42', now: t0 }),
    ).rejects.toMatchObject({ statusCode: 409, code: 'EXTERNAL_ID_NOT_UNIQUE' });
  });
});

describe('completePasskeyRegistration', () => {
  it('registers the passkey for the user and records PASSKEY_REGISTERED with the relying party and policy', async () => {
    const env = await setup();
    const aaguid = '08987058-cadc-4b81-b6e1-30de50dcbe96';
    const { user, passkey } = await registerPasskey(env, new SoftAuthenticator({ aaguid }));
    expect(user.id).toBe(env.user.id);
    expect(passkey).toMatchObject({ rpId, counter: 0, transports: ['internal'], registeredDtm: t0.toISOString() });
    expect(await getPasskeyAudit(env.s, 'acme', 'customers', { externalId: 'cust-42' }, passkey.id)).toMatchObject({
      aaguid,
      attestationFormat: 'none',
      userVerified: true,
      origin,
      registrationPolicy: 'default',
    });
    expect(env.fake.eventsOf('PASSKEY_REGISTERED')).toEqual([
      expect.objectContaining({ userId: env.user.id, externalId: 'cust-42', actor, details: { rpId, passkeyId: passkey.id, policyName: 'default', aaguid } }),
    ]);
  });

  it('rejects when the challenge was already used', async () => {
    const env = await setup();
    const started = await startReg(env.s, env.user.id);
    const response = new SoftAuthenticator().createCredential(started.publicKey, origin);
    const complete = () => completePasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 });
    await complete();
    await expect(complete()).rejects.toMatchObject({ statusCode: 404, code: 'PASSKEY_SESSION_NOT_FOUND' });
    await expect(getPendingSession(env.s, 'acme', 'customers', { userId: env.user.id }, t0)).rejects.toMatchObject({ code: 'PASSKEY_SESSION_NOT_FOUND' });
  });

  it('rejects when the response comes from an origin not allowed, and spends the challenge', async () => {
    const env = await setup();
    const started = await startReg(env.s, env.user.id);
    const authenticator = new SoftAuthenticator();
    const complete = (response: ReturnType<SoftAuthenticator['createCredential']>) =>
      completePasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 });
    await expect(complete(authenticator.createCredential(started.publicKey, origin, { origin: 'https://evil.example' }))).rejects.toMatchObject({
      statusCode: 400,
      code: 'PASSKEY_VERIFICATION_FAILED',
    });
    await expect(complete(authenticator.createCredential(started.publicKey, origin))).rejects.toMatchObject({ code: 'PASSKEY_SESSION_NOT_FOUND' });
    expect(env.fake.passkeyItems.size).toBe(0);
    expect(env.fake.eventsOf('PASSKEY_REGISTERED')).toEqual([]);
  });

  it('rejects when the policy requires user verification and the authenticator did not verify the user', async () => {
    const env = await setup();
    await expect(registerPasskey(env, new SoftAuthenticator({ userVerification: false }))).rejects.toMatchObject({ code: 'PASSKEY_VERIFICATION_FAILED' });
    const lenient = await startReg(env.s, env.user.id, { policyName: 'lenient' });
    const response = new SoftAuthenticator({ userVerification: false }).createCredential(lenient.publicKey, origin);
    await expect(completePasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: lenient.sessionId, response, actor, now: t0 })).resolves.toBeDefined();
  });

  it('rejects when the challenge expired', async () => {
    const env = await setup();
    const started = await startReg(env.s, env.user.id);
    const response = new SoftAuthenticator().createCredential(started.publicKey, origin);
    await expect(completePasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: at(120) })).rejects.toMatchObject({
      code: 'PASSKEY_SESSION_NOT_FOUND',
    });
  });

  it('rejects when the credential id is registered in the store already, even for another user', async () => {
    const env = await setup();
    const { passkey } = await registerPasskey(env, new SoftAuthenticator());
    const started = await startReg(env.s, env.bob.id);
    const response = new SoftAuthenticator().createCredential(started.publicKey, origin, { credentialId: passkey.credentialId });
    await expect(completePasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 })).rejects.toMatchObject({
      statusCode: 409,
      code: 'CREDENTIAL_EXISTS',
    });
  });

  it('makes the user when a registration without one completes', async () => {
    const env = await setup();
    const started = await startPasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', rpId, policyName: 'default', newUserExternalId: 'new-1', now: t0 });
    const response = new SoftAuthenticator().createCredential(started.publicKey, origin);
    const { user } = await completePasskeyRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 });
    expect(user).toMatchObject({ externalId: 'new-1', status: 'ACTIVE' });
    expect(Buffer.from(started.publicKey.user.id, 'base64url').toString('utf8')).toBe(user.id);
    expect(env.fake.eventsOf('PASSKEY_REGISTERED').at(-1)).toMatchObject({ userId: user.id, externalId: 'new-1' });
  });
});

describe('startPasskeyAuthentication', () => {
  it("allows only the user's passkeys, and rejects when the user has none", async () => {
    const env = await setup();
    await expect(startAuth(env.s, { userId: env.user.id })).rejects.toMatchObject({ statusCode: 404, code: 'PASSKEY_NOT_FOUND' });
    const { passkey } = await registerPasskey(env, new SoftAuthenticator());
    await registerPasskey(env, new SoftAuthenticator(), env.bob.id);
    const started = await startAuth(env.s, { userId: env.user.id });
    expect(started.publicKey).toMatchObject({ rpId, userVerification: 'required', timeout: 120_000 });
    expect(started.publicKey.allowCredentials).toEqual([{ id: passkey.credentialId, type: 'public-key', transports: ['internal'] }]);
    expect((await startAuth(env.s)).publicKey.allowCredentials).toEqual([]);
  });
});

describe('completePasskeyAuthentication', () => {
  it('proves the passkey: the counter moves on, PASSKEY_AUTHENTICATED and an authentication record are written', async () => {
    const env = await setup();
    const authenticator = new SoftAuthenticator();
    const { passkey } = await registerPasskey(env, authenticator);
    const started = await startAuth(env.s, { userId: env.user.id });
    const response = authenticator.getAssertion(started.publicKey, origin);
    const done = await completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: at(5) });
    expect(done).toMatchObject({ verified: true, user: { id: env.user.id }, passkey: { id: passkey.id, counter: 1, lastUsedDtm: at(5).toISOString() } });
    expect(env.fake.eventsOf('PASSKEY_AUTHENTICATED')).toEqual([expect.objectContaining({ userId: env.user.id, details: { rpId, passkeyId: passkey.id, policyName: 'default' } })]);
    expect((await listUserAuthentications(env.s, 'acme', 'customers', { userId: env.user.id }, { page: 0, size: 10 })).content).toEqual([
      expect.objectContaining({ method: 'PASSKEY', rpId, passkeyId: passkey.id, policyName: 'default', at: at(5).toISOString() }),
    ]);
  });

  it('names the user from the user handle in a discoverable authentication', async () => {
    const env = await setup();
    const authenticator = new SoftAuthenticator();
    await registerPasskey(env, authenticator, env.bob.id);
    const started = await startAuth(env.s);
    const response = authenticator.getAssertion(started.publicKey, origin);
    const done = await completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 });
    expect(done.user.externalId).toBe('cust-43');
  });

  it('rejects when the response comes from an origin not allowed, records PASSKEY_AUTHENTICATION_FAILED and spends the challenge', async () => {
    const env = await setup();
    const authenticator = new SoftAuthenticator();
    const { passkey } = await registerPasskey(env, authenticator);
    const started = await startAuth(env.s, { userId: env.user.id });
    const complete = (response: ReturnType<SoftAuthenticator['getAssertion']>) =>
      completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 });
    await expect(complete(authenticator.getAssertion(started.publicKey, origin, { origin: 'https://evil.example' }))).rejects.toMatchObject({
      statusCode: 400,
      code: 'PASSKEY_VERIFICATION_FAILED',
    });
    expect(env.fake.eventsOf('PASSKEY_AUTHENTICATION_FAILED')).toEqual([expect.objectContaining({ userId: env.user.id, details: expect.objectContaining({ rpId, passkeyId: passkey.id }) })]);
    await expect(complete(authenticator.getAssertion(started.publicKey, origin))).rejects.toMatchObject({ code: 'PASSKEY_SESSION_NOT_FOUND' });
    expect(env.fake.eventsOf('PASSKEY_AUTHENTICATED')).toEqual([]);
  });

  it("rejects when the passkey is another user's than the session's", async () => {
    const env = await setup();
    await registerPasskey(env, new SoftAuthenticator());
    const bobs = new SoftAuthenticator();
    await registerPasskey(env, bobs, env.bob.id);
    const started = await startAuth(env.s, { userId: env.user.id });
    const response = bobs.getAssertion({ ...started.publicKey, allowCredentials: [] }, origin);
    await expect(completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 })).rejects.toMatchObject({
      code: 'PASSKEY_VERIFICATION_FAILED',
      message: expect.stringContaining('credential of another user'),
    });
  });

  it("rejects when the passkey is of the same store name in another tenant", async () => {
    const env = await setup();
    const authenticator = new SoftAuthenticator();
    await registerPasskey(env, authenticator, env.other.id, 'globex');
    const started = await startAuth(env.s);
    const response = authenticator.getAssertion(started.publicKey, origin);
    await expect(completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.sessionId, response, actor, now: t0 })).rejects.toMatchObject({
      code: 'PASSKEY_VERIFICATION_FAILED',
      message: expect.stringContaining('unknown credential'),
    });
  });

  it('rejects when a cloned authenticator presents a counter that did not move on', async () => {
    const env = await setup();
    const authenticator = new SoftAuthenticator();
    const { passkey } = await registerPasskey(env, authenticator);
    const clone = new SoftAuthenticator();
    clone.importCredential(authenticator.exportCredential(passkey.credentialId));
    const first = await startAuth(env.s, { userId: env.user.id });
    await completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: first.sessionId, response: authenticator.getAssertion(first.publicKey, origin), actor, now: t0 });
    const second = await startAuth(env.s, { userId: env.user.id });
    await expect(
      completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: second.sessionId, response: clone.getAssertion(second.publicKey, origin), actor, now: t0 }),
    ).rejects.toMatchObject({ code: 'PASSKEY_VERIFICATION_FAILED' });
  });

  it('rejects the second of two uses in parallel that read the same counter', async () => {
    const env = await setup();
    const authenticator = new SoftAuthenticator();
    const { passkey } = await registerPasskey(env, authenticator);
    const a = await startAuth(env.s, { userId: env.user.id });
    const b = await startAuth(env.s, { userId: env.user.id });
    const ra = authenticator.getAssertion(a.publicKey, origin);
    const rb = authenticator.getAssertion(b.publicKey, origin);
    const results = await Promise.allSettled([
      completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: a.sessionId, response: ra, actor, now: t0 }),
      completePasskeyAuthentication(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: b.sessionId, response: rb, actor, now: t0 }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    // Not the library's counter check: the write over the counter read is what refuses it.
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'PASSKEY_SESSION_NOT_FOUND' } });
    expect(env.fake.eventsOf('PASSKEY_AUTHENTICATED')).toHaveLength(1);
    expect((await env.fake.passkeys.getPasskey('acme', 'customers', env.user.id, passkey.id))?.counter).toBeGreaterThan(0);
  });
});
