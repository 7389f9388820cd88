import { describe, expect, it } from 'vitest';
import {
  PASSCODE_REGISTRATION_TTL_SECONDS,
  completePasscodeRegistration,
  deregisterPasscode,
  finishPasscodeLogin,
  loginChallenge,
  stagePasscodeRegistration,
  startPasscodeLogin,
  startPasscodeRegistration,
} from '../../functions/identity-store/passcodes/passcodes.js';
import { DEFAULT_REQUIREMENTS, createStore, newStore, type PasscodeRequirements } from '../../functions/identity-store/stores/stores.js';
import { addUser } from '../../functions/identity-store/users/users.js';
import { SRP_ALGORITHM, clientLogin, clientRegistration } from '../../functions/identity-store/passcodes/srp.js';
import { ID26_PATTERN } from '../../functions/shared/ids.js';
import { FakeIdentityStorage } from '../support/identity-store-fake.js';

const t0 = new Date('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const actor = 'apikey:k1';

/** A tenant's store with a `login` policy (and `pin`, with a history rule of two), and one user. */
async function setup(requirements: Partial<PasscodeRequirements> = {}) {
  const fake = new FakeIdentityStorage();
  await createStore(
    fake.stores,
    newStore({
      tenantId: 'acme',
      name: 'customers',
      actor: 'apikey:admin',
      now: t0,
      passcodePolicies: {
        login: { requirements: { ...DEFAULT_REQUIREMENTS, ...requirements } },
        pin: { requirements: { ...DEFAULT_REQUIREMENTS, minimumLength: 4, passcodeHistory: 2 } },
      },
    }),
  );
  const user = await addUser(fake.all, { tenantId: 'acme', storeName: 'customers', externalId: 'cust-42', actor, now: t0 });
  return { fake, user, s: fake.all };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Registers `passcode` under `policyName` as a client does: the verifier and, under a history rule, the proofs. */
async function register({ s, user }: Setup, passcode: string, policyName = 'login', now = t0, proofs = true) {
  const started = await startPasscodeRegistration(s, { tenantId: 'acme', storeName: 'customers', user: { userId: user.id }, policyName, now });
  const p = started.algorithmInfo.parameters;
  const verifier = await clientRegistration({ identity: p.identity, password: passcode, salt: p.salt });
  const historyVerifiers = proofs ? await Promise.all(p.historySalts.map((salt) => clientRegistration({ identity: p.identity, password: passcode, salt }))) : undefined;
  return completePasscodeRegistration(s, { tenantId: 'acme', storeName: 'customers', sessionId: p.i, verifier, historyVerifiers, now, actor });
}

/** An SRP login with `passcode`, answered once per challenge until it ends. */
async function login({ s, fake, user }: Setup, passcodes: string[], now = t0, policyName = 'login') {
  const { sessionId } = await startPasscodeLogin(s, { tenantId: 'acme', storeName: 'customers', user: { userId: user.id }, policyName, now });
  const outcomes = [];
  for (const passcode of passcodes) {
    const session = (await fake.passcodes.getLogin('acme', 'customers', sessionId, now))!;
    const challenge = loginChallenge(session);
    const client = await clientLogin({ identity: challenge.identity, password: passcode, salt: challenge.salt, B: challenge.B });
    const outcome = await finishPasscodeLogin(s, { tenantId: 'acme', storeName: 'customers', sessionId, A: client.A, M1: client.M1, actor, now });
    outcomes.push({ ...outcome, expectedM2: client.expectedM2, B: challenge.B, attemptsLeft: challenge.attemptsLeft });
    if (outcome.result !== 'RETRY') break;
  }
  return outcomes;
}

describe('startPasscodeRegistration', () => {
  it("answers the policy's requirements and the SRP parameters: a session id, a 32-byte salt, the user id as identity", async () => {
    const env = await setup({ minimumLength: 10 });
    const started = await startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { externalId: 'cust-42' }, policyName: 'login', now: t0 });
    expect(started.passcodeRequirements.minimumLength).toBe(10);
    expect(started.algorithmInfo).toMatchObject({ type: 'SRP', parameters: { ...SRP_ALGORITHM, identity: env.user.id, historySalts: [] } });
    expect(started.algorithmInfo.parameters.i).toMatch(ID26_PATTERN);
    expect(Buffer.from(started.algorithmInfo.parameters.salt, 'base64')).toHaveLength(32);
    expect(started.expiresDtm).toBe(at(PASSCODE_REGISTRATION_TTL_SECONDS).toISOString());
  });

  it('rejects when the store has no such policy, or the user is unknown', async () => {
    const env = await setup();
    await expect(startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'nope', now: t0 })).rejects.toMatchObject({
      statusCode: 404,
      code: 'POLICY_NOT_FOUND',
    });
    await expect(startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { externalId: 'cust-0' }, policyName: 'login', now: t0 })).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
  });
});

describe('completePasscodeRegistration', () => {
  it("registers the passcode: the user's summary shows it, PASSCODE_REGISTERED is recorded, no secret is returned", async () => {
    const env = await setup();
    const { user } = await register(env, 'correct horse 1');
    expect(user.passcodes).toEqual([{ policyName: 'login', registeredDtm: t0.toISOString() }]);
    expect(JSON.stringify(user)).not.toMatch(/verifier|salt/);
    expect(env.fake.eventsOf('PASSCODE_REGISTERED')).toEqual([
      expect.objectContaining({ tenantId: 'acme', storeName: 'customers', userId: env.user.id, externalId: 'cust-42', actor, details: { policyName: 'login' } }),
    ]);
  });

  it('rejects when the session was already completed', async () => {
    const env = await setup();
    const started = await startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'login', now: t0 });
    const p = started.algorithmInfo.parameters;
    const verifier = await clientRegistration({ identity: p.identity, password: 'correct horse 1', salt: p.salt });
    const complete = () => completePasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: p.i, verifier, now: t0, actor });
    await complete();
    await expect(complete()).rejects.toMatchObject({ statusCode: 404, code: 'PASSCODE_REGISTRATION_NOT_FOUND' });
    expect(env.fake.eventsOf('PASSCODE_REGISTERED')).toHaveLength(1);
  });

  it('rejects when the session expired (10 minutes), or is of another tenant or store, and accepts it a second before', async () => {
    const env = await setup();
    const started = await startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'login', now: t0 });
    const p = started.algorithmInfo.parameters;
    const verifier = await clientRegistration({ identity: p.identity, password: 'correct horse 1', salt: p.salt });
    const complete = (tenantId: string, storeName: string, now: Date) => completePasscodeRegistration(env.s, { tenantId, storeName, sessionId: p.i, verifier, now, actor });
    await expect(complete('acme', 'customers', at(PASSCODE_REGISTRATION_TTL_SECONDS))).rejects.toMatchObject({ code: 'PASSCODE_REGISTRATION_NOT_FOUND' });
    await expect(complete('globex', 'customers', t0)).rejects.toMatchObject({ code: 'PASSCODE_REGISTRATION_NOT_FOUND' });
    await expect(complete('acme', 'staff', t0)).rejects.toMatchObject({ code: 'PASSCODE_REGISTRATION_NOT_FOUND' });
    await expect(complete('acme', 'customers', at(PASSCODE_REGISTRATION_TTL_SECONDS - 1))).resolves.toBeDefined();
  });

  it('rejects when the verifier is not base64 of 1 < v < N, or none is sent', async () => {
    const env = await setup();
    const started = await startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'login', now: t0 });
    const complete = (verifier: string | undefined) => completePasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: started.algorithmInfo.parameters.i, verifier, now: t0, actor });
    await expect(complete('AQ==')).rejects.toMatchObject({ statusCode: 400, code: 'INVALID_VERIFIER' });
    await expect(complete(SRP_ALGORITHM.n)).rejects.toMatchObject({ statusCode: 400, code: 'INVALID_VERIFIER' });
    await expect(complete(undefined)).rejects.toMatchObject({ statusCode: 400, code: 'PASSCODE_NOT_GIVEN' });
    expect(env.fake.eventsOf('PASSCODE_REGISTERED')).toEqual([]);
  });
});

describe('completePasscodeRegistration under a history rule', () => {
  it('rejects when the new passcode is the current one or the one before, and accepts the third one back', async () => {
    const env = await setup();
    await register(env, 'first-1', 'pin');
    await register(env, 'second-2', 'pin');
    await expect(register(env, 'second-2', 'pin')).rejects.toMatchObject({ statusCode: 400, code: 'PASSCODE_REUSED' });
    await expect(register(env, 'first-1', 'pin')).rejects.toMatchObject({ statusCode: 400, code: 'PASSCODE_REUSED' });
    await register(env, 'third-3', 'pin');
    // passcodeHistory 2: third-3 and second-2 are refused; first-1 is three back.
    await expect(register(env, 'second-2', 'pin')).rejects.toMatchObject({ code: 'PASSCODE_REUSED' });
    await expect(register(env, 'first-1', 'pin')).resolves.toBeDefined();
  });

  it('hands out the salts of the last passcodes, newest first, as many as the rule covers', async () => {
    const env = await setup();
    const salts: string[] = [];
    for (const passcode of ['one-1', 'two-2', 'three-3']) {
      await register(env, passcode, 'pin');
      salts.unshift(env.fake.passcode('acme', 'customers', env.user.id, 'pin')!.current!.salt);
    }
    const started = await startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'pin', now: t0 });
    expect(started.algorithmInfo.parameters.historySalts).toEqual(salts.slice(0, 2));
  });

  it('rejects when the client sends no history proofs', async () => {
    const env = await setup();
    await register(env, 'first-1', 'pin');
    await expect(register(env, 'second-2', 'pin', t0, false)).rejects.toMatchObject({ statusCode: 400, code: 'PASSCODE_HISTORY_PROOF_REQUIRED' });
  });

  it('does not refuse an earlier passcode under a policy without a history rule', async () => {
    const env = await setup();
    await register(env, 'same passcode');
    await expect(register(env, 'same passcode')).resolves.toBeDefined();
  });
});

describe('stagePasscodeRegistration', () => {
  it("keeps the form's verifier for a completion that sends none, checked by the same history rule", async () => {
    const env = await setup();
    await register(env, 'first-1', 'pin');
    const started = await startPasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'pin', now: t0 });
    const p = started.algorithmInfo.parameters;
    const proofsOf = (passcode: string) => Promise.all(p.historySalts.map((salt) => clientRegistration({ identity: p.identity, password: passcode, salt })));
    const stage = async (passcode: string) =>
      stagePasscodeRegistration(env.s, {
        tenantId: 'acme',
        storeName: 'customers',
        sessionId: p.i,
        verifier: await clientRegistration({ identity: p.identity, password: passcode, salt: p.salt }),
        historyVerifiers: await proofsOf(passcode),
        now: t0,
      });
    await expect(stage('first-1')).rejects.toMatchObject({ code: 'PASSCODE_REUSED' });
    await stage('second-2');
    await completePasscodeRegistration(env.s, { tenantId: 'acme', storeName: 'customers', sessionId: p.i, now: t0, actor });
    const [outcome] = await login(env, ['second-2'], t0, 'pin');
    expect(outcome?.result).toBe('PASS');
  });
});

describe('finishPasscodeLogin', () => {
  it('proves the right passcode: PASS with the M2 the client expects, PASSCODE_AUTHENTICATED and an authentication record', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    const [outcome] = await login(env, ['correct horse 1']);
    expect(outcome).toMatchObject({ result: 'PASS', policyName: 'login', attempts: 1 });
    expect(outcome?.result === 'PASS' && outcome.M2).toBe(outcome?.expectedM2);
    expect(env.fake.eventsOf('PASSCODE_AUTHENTICATED')).toEqual([expect.objectContaining({ userId: env.user.id, actor, details: { policyName: 'login' } })]);
    expect(env.fake.authenticationItems).toEqual([expect.objectContaining({ userId: env.user.id, method: 'PASSCODE', policyName: 'login' })]);
  });

  it('rejects when the passcode is wrong: a fresh challenge, then FAIL after three, each recorded as failed', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    const outcomes = await login(env, ['wrong 1', 'wrong 2', 'wrong 3', 'correct horse 1']);
    expect(outcomes.map((o) => o.result)).toEqual(['RETRY', 'RETRY', 'FAIL']);
    expect(outcomes.map((o) => o.attemptsLeft)).toEqual([3, 2, 1]);
    expect(new Set(outcomes.map((o) => o.B)).size).toBe(3);
    expect(env.fake.eventsOf('PASSCODE_AUTHENTICATION_FAILED').map((e) => e.details)).toEqual(Array(3).fill({ policyName: 'login', reason: 'BAD_PROOF' }));
    expect(env.fake.eventsOf('PASSCODE_AUTHENTICATED')).toEqual([]);
    expect(env.fake.authenticationItems).toEqual([]);
  });

  it('accepts the right passcode after a wrong one in the same login', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    expect((await login(env, ['wrong', 'correct horse 1'])).map((o) => o.result)).toEqual(['RETRY', 'PASS']);
  });

  it('rejects when the login already ended', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    const { sessionId } = await startPasscodeLogin(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'login', now: t0 });
    const session = (await env.fake.passcodes.getLogin('acme', 'customers', sessionId, t0))!;
    const client = await clientLogin({ identity: session.identity, password: 'correct horse 1', salt: session.salt, B: session.B });
    const finish = () => finishPasscodeLogin(env.s, { tenantId: 'acme', storeName: 'customers', sessionId, A: client.A, M1: client.M1, actor, now: t0 });
    await finish();
    await expect(finish()).rejects.toMatchObject({ code: 'PASSCODE_REGISTRATION_NOT_FOUND' });
  });
});

describe('passcode lockout', () => {
  it('locks after five wrong passcodes in a row over two logins, for a minute, and records PASSCODE_LOCKED', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    expect((await login(env, ['w1', 'w2', 'w3'])).at(-1)?.result).toBe('FAIL');
    const second = await login(env, ['w4', 'w5', 'w6']);
    expect(second.map((o) => o.result)).toEqual(['RETRY', 'FAIL']);
    expect(second[1]).toMatchObject({ lockedUntil: at(60).toISOString() });
    expect(env.fake.eventsOf('PASSCODE_LOCKED').map((e) => e.details)).toEqual([{ policyName: 'login', failures: '5', lockedUntil: at(60).toISOString() }]);
  });

  it('rejects a new login while locked, and lets the right passcode in once the lock is over', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    await login(env, ['w1', 'w2', 'w3']);
    await login(env, ['w4', 'w5']);
    await expect(login(env, ['correct horse 1'], at(59))).rejects.toMatchObject({ code: 'PASSCODE_LOCKED' });
    expect((await login(env, ['correct horse 1'], at(60)))[0]?.result).toBe('PASS');
    expect(env.fake.passcode('acme', 'customers', env.user.id, 'login')?.guard).toBeUndefined();
  });

  it('doubles the lock with each further wrong passcode after a lock', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    await login(env, ['w1', 'w2', 'w3']);
    await login(env, ['w4', 'w5']);
    const [sixth] = await login(env, ['w6'], at(60));
    expect(sixth).toMatchObject({ result: 'FAIL', lockedUntil: at(60 + 120).toISOString() });
  });

  it('ends a login that was open when another one locked the passcode, without checking its proof', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    await login(env, ['w1', 'w2', 'w3']);
    const { sessionId } = await startPasscodeLogin(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'login', now: t0 });
    await login(env, ['w4', 'w5']);
    const session = (await env.fake.passcodes.getLogin('acme', 'customers', sessionId, t0))!;
    const client = await clientLogin({ identity: session.identity, password: 'correct horse 1', salt: session.salt, B: session.B });
    const outcome = await finishPasscodeLogin(env.s, { tenantId: 'acme', storeName: 'customers', sessionId, A: client.A, M1: client.M1, actor, now: at(1) });
    expect(outcome).toMatchObject({ result: 'FAIL', lockedUntil: at(60).toISOString() });
    expect(env.fake.eventsOf('PASSCODE_AUTHENTICATION_FAILED').at(-1)?.details).toEqual({ policyName: 'login', reason: 'LOCKED' });
  });

  it('starts the count again after a right passcode', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    await login(env, ['w1', 'w2', 'correct horse 1']);
    await login(env, ['w1', 'w2', 'w3']);
    expect(env.fake.passcode('acme', 'customers', env.user.id, 'login')?.guard).toEqual({ failures: 3 });
    expect(env.fake.eventsOf('PASSCODE_LOCKED')).toEqual([]);
  });
});

describe('startPasscodeLogin', () => {
  it('rejects when the user has no passcode under the policy', async () => {
    const env = await setup();
    await expect(startPasscodeLogin(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'login', now: t0 })).rejects.toMatchObject({
      statusCode: 404,
      code: 'PASSCODE_REGISTRATION_NOT_FOUND',
    });
  });
});

describe('deregisterPasscode', () => {
  it("removes the passcode from the user's summary, records PASSCODE_DEREGISTERED, and no login starts after", async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    const { user } = await deregisterPasscode(env.s, { tenantId: 'acme', storeName: 'customers', user: { externalId: 'cust-42' }, policyName: 'login', now: at(5), actor });
    expect(user.passcodes).toEqual([]);
    expect(env.fake.eventsOf('PASSCODE_DEREGISTERED')).toEqual([expect.objectContaining({ userId: env.user.id, details: { policyName: 'login' }, at: at(5).toISOString() })]);
    await expect(login(env, ['correct horse 1'])).rejects.toMatchObject({ code: 'PASSCODE_REGISTRATION_NOT_FOUND' });
  });

  it('rejects when there is no passcode under the policy', async () => {
    const env = await setup();
    await register(env, 'correct horse 1');
    const deregister = () => deregisterPasscode(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'login', now: t0, actor });
    await deregister();
    await expect(deregister()).rejects.toMatchObject({ statusCode: 404, code: 'PASSCODE_REGISTRATION_NOT_FOUND' });
    expect(env.fake.eventsOf('PASSCODE_DEREGISTERED')).toHaveLength(1);
  });

  it('keeps the deregistered passcode in the history, so it cannot come straight back', async () => {
    const env = await setup();
    await register(env, 'first-1', 'pin');
    await deregisterPasscode(env.s, { tenantId: 'acme', storeName: 'customers', user: { userId: env.user.id }, policyName: 'pin', now: t0, actor });
    await expect(register(env, 'first-1', 'pin')).rejects.toMatchObject({ code: 'PASSCODE_REUSED' });
  });
});
