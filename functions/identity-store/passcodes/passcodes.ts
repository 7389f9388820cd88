import { timingSafeEqual } from 'node:crypto';
import { apiError } from '../../errors.js';
import { newId26 } from '../../shared/ids.js';
import { newEvent } from '../events/events.js';
import { MAX_PASSCODE_HISTORY, PolicyNotFoundError, type PasscodeRequirements } from '../stores/stores.js';
import { findUser, userView } from '../users/users.js';
import { SRP_ALGORITHM, finishLogin, newSalt, parseVerifier, startLogin, verifierToBase64 } from './srp.js';
import type { AuthenticationRecord, IdentityStoreStore, IdentityStores, IdentityUserRecord, PasscodeLoginSession, PasscodeRecord, PasscodeRegistrationSession, UserRef } from '../model.js';
import { own } from '../../shared/own.js';

export type { IdentityStores, PasscodeLoginSession, PasscodeRecord, PasscodeRegistrationSession, PasscodeStore } from '../model.js';

/** How long a started registration can be completed. */
export const PASSCODE_REGISTRATION_TTL_SECONDS = 600;

export class PasscodeRegistrationNotFoundError extends apiError('PASSCODE_REGISTRATION_NOT_FOUND') {}

export class PasscodeReusedError extends apiError('PASSCODE_REUSED') {}

export class PasscodeNotGivenError extends apiError('PASSCODE_NOT_GIVEN') {}

export class PasscodeHistoryProofError extends apiError('PASSCODE_HISTORY_PROOF_REQUIRED') {}

function policyOf(store: Awaited<ReturnType<IdentityStoreStore['get']>> & object, policyName: string): PasscodeRequirements {
  const policy = own(store.passcodePolicies, policyName);
  if (!policy) throw new PolicyNotFoundError(`Passcode policy ${policyName} was not found in store ${store.name}.`);
  return policy.requirements;
}

/**
 * Starts a passcode registration: the requirements of the policy and what a client needs to
 * make an SRP-6a verifier of the passcode (group, generator, hash, salt, and the session id
 * `i`). The passcode itself never reaches the service.
 */
export async function startPasscodeRegistration(
  s: IdentityStores,
  input: { tenantId: string; storeName: string; user: UserRef; policyName: string; now: Date },
) {
  const { store, user } = await findUser(s, input.tenantId, input.storeName, input.user);
  const requirements = policyOf(store, input.policyName);
  const existing = await s.passcodes.get(input.tenantId, input.storeName, user.id, input.policyName);
  const earlier = earlierPasscodes(existing);
  const session: PasscodeRegistrationSession = {
    tenantId: input.tenantId,
    storeName: input.storeName,
    sessionId: newId26(),
    userId: user.id,
    externalId: user.externalId,
    policyName: input.policyName,
    salt: newSalt(),
    historySalts: earlier.slice(0, requirements.passcodeHistory).map((h) => h.salt),
    createdDtm: input.now.toISOString(),
    expiresAt: Math.floor(input.now.getTime() / 1000) + PASSCODE_REGISTRATION_TTL_SECONDS,
  };
  await s.passcodes.saveSession(session);
  return {
    passcodeRequirements: requirements,
    algorithmInfo: {
      type: 'SRP' as const,
      parameters: {
        i: session.sessionId,
        ...SRP_ALGORITHM,
        salt: session.salt,
        identity: user.id,
        historySalts: session.historySalts,
      },
    },
    expiresDtm: new Date(session.expiresAt * 1000).toISOString(),
  };
}

/** Equal verifiers, compared in constant time. */
function sameVerifier(a: string, b: string): boolean {
  const x = Buffer.from(a, 'base64');
  const y = Buffer.from(b, 'base64');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Completes a registration with the verifier the client made. Refused: a verifier outside
 * 1 < v < N (400), a session that is unknown, of another tenant or store, expired or already
 * used (404), and, under a history rule, a passcode the user had before (400; the client proves
 * it is new by sending the new passcode's verifier under each earlier salt).
 */
export async function completePasscodeRegistration(
  s: IdentityStores,
  input: { tenantId: string; storeName: string; sessionId: string; verifier?: string | undefined; historyVerifiers?: string[] | undefined; now: Date; actor: string },
) {
  const session = await s.passcodes.getSession(input.tenantId, input.storeName, input.sessionId, input.now);
  const notFound = () => new PasscodeRegistrationNotFoundError('No such passcode registration: unknown, expired or already completed.');
  if (!session) throw notFound();
  const sent = input.verifier ?? session.staged?.verifier;
  if (sent === undefined) throw new PasscodeNotGivenError('No verifier: send srpRegistrationData.verifier, or let the passcode form send it first.');
  const verifier = parseVerifier(sent);
  const proofs = (input.verifier !== undefined ? (input.historyVerifiers ?? []) : (session.staged?.historyVerifiers ?? [])).map((v) =>
    verifierToBase64(parseVerifier(v)),
  );
  const { user } = await findUser(s, input.tenantId, input.storeName, { userId: session.userId });
  const existing = (await s.passcodes.get(input.tenantId, input.storeName, user.id, session.policyName)) ?? {
    tenantId: input.tenantId,
    storeName: input.storeName,
    userId: user.id,
    policyName: session.policyName,
    history: [],
  };
  checkHistory(session, existing, proofs);
  const at = input.now.toISOString();
  const passcode: PasscodeRecord = {
    ...existing,
    current: { verifier: verifierToBase64(verifier), salt: session.salt, registeredDtm: at },
    history: earlierPasscodes(existing),
  };
  const updated: IdentityUserRecord = { ...user, passcodes: { ...user.passcodes, [session.policyName]: { registeredDtm: at } }, lastUpdatedDtm: at };
  const event = newEvent({
    tenantId: input.tenantId,
    type: 'PASSCODE_REGISTERED',
    storeName: input.storeName,
    userId: user.id,
    externalId: user.externalId,
    actor: input.actor,
    details: { policyName: session.policyName },
    now: input.now,
  });
  if (!(await s.passcodes.completeRegistration(session, passcode, updated, event, input.now))) throw notFound();
  return { user: userView(updated) };
}

/** The user's passcodes under a policy, newest first (the current one too), as many as a history rule can cover. */
function earlierPasscodes(existing: PasscodeRecord | undefined): { verifier: string; salt: string }[] {
  const current = existing?.current ? [{ verifier: existing.current.verifier, salt: existing.current.salt }] : [];
  return [...current, ...(existing?.history ?? [])].slice(0, MAX_PASSCODE_HISTORY);
}

/**
 * Under a history rule, the client proves the new passcode is none of the last ones: the new
 * passcode's verifier under each earlier salt, which must differ from the verifier kept with it.
 */
function checkHistory(session: PasscodeRegistrationSession, existing: PasscodeRecord | undefined, proofs: string[]): void {
  if (!session.historySalts.length) return;
  if (proofs.length !== session.historySalts.length) {
    throw new PasscodeHistoryProofError(
      `This policy refuses the last ${session.historySalts.length} passcode(s): send srpRegistrationData.historyVerifiers, the new passcode's verifier under each of algorithmInfo.parameters.historySalts.`,
    );
  }
  const earlier = earlierPasscodes(existing);
  session.historySalts.forEach((salt, i) => {
    const was = earlier.find((h) => h.salt === salt);
    if (was && sameVerifier(was.verifier, proofs[i]!)) throw new PasscodeReusedError('This passcode was used before; choose another.');
  });
}

/**
 * The journey's passcode form sent its verifier: checked as the completion will check it (a
 * verifier in range, the history rule), then kept on the registration session, out of the
 * journey's session data, for Complete Passcode Registration.
 */
export async function stagePasscodeRegistration(
  s: IdentityStores,
  input: { tenantId: string; storeName: string; sessionId: string; verifier: string; historyVerifiers: string[]; now: Date },
): Promise<void> {
  const session = await s.passcodes.getSession(input.tenantId, input.storeName, input.sessionId, input.now);
  const notFound = () => new PasscodeRegistrationNotFoundError('This passcode registration has expired or was completed.');
  if (!session) throw notFound();
  const verifier = verifierToBase64(parseVerifier(input.verifier));
  const proofs = input.historyVerifiers.map((v) => verifierToBase64(parseVerifier(v)));
  const existing = await s.passcodes.get(input.tenantId, input.storeName, session.userId, session.policyName);
  checkHistory(session, existing, proofs);
  if (!(await s.passcodes.stage(session, { verifier, historyVerifiers: proofs }, input.now))) throw notFound();
}

/** How many wrong passcodes a journey's passcode authentication takes before it fails. */
export const MAX_PASSCODE_ATTEMPTS = 3;

/**
 * Guessing is limited per user and policy, not only per journey (a journey's attempts end, a
 * new journey would start again): after PASSCODE_LOCKOUT.threshold wrong passcodes in a row,
 * over any number of journeys and sessions, the passcode is locked for `firstLockSeconds`,
 * doubling with each further wrong one once the lock is over, up to `maxLockSeconds`. While
 * locked no login starts and no proof is checked (a right passcode gets in no sooner); a lock
 * that starts is recorded as a PASSCODE_LOCKED identity event; a right passcode resets the
 * count. Five guesses, then 1 min, 2, 4, ... a day: about 25 guesses in the first day, far
 * under ASVS 2.2.1's 100 an hour, while a user who mistypes a few times is not held long.
 */
export const PASSCODE_LOCKOUT = { threshold: 5, firstLockSeconds: 60, maxLockSeconds: 86_400 } as const;

/** How long the passcode locks after this many wrong passcodes in a row (0: not yet). */
export function lockSeconds(failures: number): number {
  if (failures < PASSCODE_LOCKOUT.threshold) return 0;
  return Math.min(PASSCODE_LOCKOUT.firstLockSeconds * 2 ** (failures - PASSCODE_LOCKOUT.threshold), PASSCODE_LOCKOUT.maxLockSeconds);
}

function lockedUntil(passcode: PasscodeRecord | undefined, now: Date): Date | undefined {
  const until = passcode?.guard?.lockedUntil;
  return until && new Date(until) > now ? new Date(until) : undefined;
}

export class PasscodeLockedError extends apiError('PASSCODE_LOCKED') {
  constructor(until: Date) {
    super(`Too many wrong passcodes: this passcode is locked until ${until.toISOString()}.`);
  }
}
/** How long a passcode authentication may take. */
export const PASSCODE_LOGIN_TTL_SECONDS = 600;

/**
 * Starts an SRP-6a login for the user's passcode under a policy: b is made and kept on the
 * login session (never in the journey's data); the page gets B, the salt and the identity.
 */
export async function startPasscodeLogin(
  s: IdentityStores,
  input: { tenantId: string; storeName: string; user: UserRef; policyName: string; now: Date },
) {
  const { store, user } = await findUser(s, input.tenantId, input.storeName, input.user);
  policyOf(store, input.policyName);
  const passcode = await s.passcodes.get(input.tenantId, input.storeName, user.id, input.policyName);
  if (!passcode?.current) throw new PasscodeRegistrationNotFoundError(`The user has no passcode under policy ${input.policyName}.`);
  const locked = lockedUntil(passcode, input.now);
  if (locked) throw new PasscodeLockedError(locked);
  const stored = { identity: user.id, salt: passcode.current.salt, verifier: passcode.current.verifier };
  const { b, B } = await startLogin(stored);
  const session: PasscodeLoginSession = {
    tenantId: input.tenantId,
    storeName: input.storeName,
    sessionId: newId26(),
    userId: user.id,
    externalId: user.externalId,
    policyName: input.policyName,
    identity: user.id,
    salt: passcode.current.salt,
    b,
    B,
    attempts: 0,
    createdDtm: input.now.toISOString(),
    expiresAt: Math.floor(input.now.getTime() / 1000) + PASSCODE_LOGIN_TTL_SECONDS,
  };
  await s.passcodes.saveLogin(session);
  return { sessionId: session.sessionId, storeName: input.storeName, policyName: input.policyName, userId: user.id };
}

/** What a login page needs: the public values of the session as it is now (B changes after a wrong passcode). */
export function loginChallenge(session: PasscodeLoginSession) {
  return {
    i: session.sessionId,
    ...SRP_ALGORITHM,
    salt: session.salt,
    identity: session.identity,
    B: session.B,
    attemptsLeft: MAX_PASSCODE_ATTEMPTS - session.attempts,
  };
}

export type PasscodeLoginOutcome =
  | { result: 'PASS'; M2: string; policyName: string; attempts: number }
  | { result: 'RETRY'; session: PasscodeLoginSession }
  | { result: 'FAIL'; policyName: string; attempts: number; lockedUntil?: string };

/**
 * The client's proof (A, M1) checked against the passcode (SRP-6a: aborts on A mod N = 0 and
 * u = 0, M1 compared in constant time). Proved: the session ends with PASSCODE_AUTHENTICATED.
 * Wrong: PASSCODE_AUTHENTICATION_FAILED, and a fresh b for the next try, until the attempts
 * are used up. Two proofs at once cannot both be counted as the same attempt.
 */
export async function finishPasscodeLogin(
  s: IdentityStores,
  input: { tenantId: string; storeName: string; sessionId: string; A: string; M1: string; actor: string; now: Date },
): Promise<PasscodeLoginOutcome> {
  const session = await s.passcodes.getLogin(input.tenantId, input.storeName, input.sessionId, input.now);
  const gone = () => new PasscodeRegistrationNotFoundError('This passcode authentication has expired or ended.');
  if (!session) throw gone();
  const passcode = await s.passcodes.get(input.tenantId, input.storeName, session.userId, session.policyName);
  const event = (type: 'PASSCODE_AUTHENTICATED' | 'PASSCODE_AUTHENTICATION_FAILED' | 'PASSCODE_LOCKED', details: Record<string, string> = {}) =>
    newEvent({
      tenantId: input.tenantId,
      type,
      storeName: input.storeName,
      userId: session.userId,
      externalId: session.externalId,
      actor: input.actor,
      details: { policyName: session.policyName, ...details },
      now: input.now,
    });
  const failures = passcode?.guard?.failures ?? 0;
  // Locked since this login started (another session's guesses): no proof is checked.
  const locked = lockedUntil(passcode, input.now);
  if (locked) {
    if (!(await s.passcodes.endLogin(session, session.attempts, [event('PASSCODE_AUTHENTICATION_FAILED', { reason: 'LOCKED' })], undefined))) throw gone();
    return { result: 'FAIL', policyName: session.policyName, attempts: session.attempts, lockedUntil: locked.toISOString() };
  }
  // The passcode may have been deregistered or changed since the login started: then no proof can hold.
  const outcome =
    passcode?.current && passcode.current.salt === session.salt
      ? await finishLogin({ identity: session.identity, salt: session.salt, verifier: passcode.current.verifier, b: session.b, A: input.A, M1: input.M1 })
      : ({ ok: false, reason: 'BAD_PROOF' } as const);
  if (outcome.ok) {
    const at = input.now.toISOString();
    const record: AuthenticationRecord = {
      tenantId: input.tenantId,
      storeName: input.storeName,
      userId: session.userId,
      at,
      id: newId26(),
      method: 'PASSCODE',
      policyName: session.policyName,
    };
    const reset = passcode?.guard ? { expectedFailures: failures, next: null } : undefined;
    if (!(await s.passcodes.endLogin(session, session.attempts, [event('PASSCODE_AUTHENTICATED')], reset, record))) throw gone();
    return { result: 'PASS', M2: outcome.M2, policyName: session.policyName, attempts: session.attempts + 1 };
  }
  const attempts = session.attempts + 1;
  const failed = event('PASSCODE_AUTHENTICATION_FAILED', { reason: outcome.reason });
  if (!passcode?.current) {
    if (!(await s.passcodes.endLogin(session, session.attempts, [failed], undefined))) throw gone();
    return { result: 'FAIL', policyName: session.policyName, attempts };
  }
  const lock = lockSeconds(failures + 1);
  const until = lock ? new Date(input.now.getTime() + lock * 1000).toISOString() : undefined;
  const guard = { expectedFailures: failures, next: { failures: failures + 1, ...(until ? { lockedUntil: until } : {}) } };
  const loginEvents = until ? [failed, event('PASSCODE_LOCKED', { failures: String(failures + 1), lockedUntil: until })] : [failed];
  // Out of this journey's attempts, or locked now (no further guess could be checked): the login ends.
  if (attempts >= MAX_PASSCODE_ATTEMPTS || until) {
    if (!(await s.passcodes.endLogin(session, session.attempts, loginEvents, guard))) throw gone();
    return { result: 'FAIL', policyName: session.policyName, attempts, ...(until ? { lockedUntil: until } : {}) };
  }
  const fresh = await startLogin({ identity: session.identity, salt: session.salt, verifier: passcode.current.verifier });
  const next: PasscodeLoginSession = { ...session, ...fresh, attempts };
  if (!(await s.passcodes.retryLogin(next, session.attempts, loginEvents, guard))) throw gone();
  return { result: 'RETRY', session: next };
}

/** Removes the user's passcode under a policy (it stays in the history). */
export async function deregisterPasscode(
  s: IdentityStores,
  input: { tenantId: string; storeName: string; user: UserRef; policyName: string; now: Date; actor: string },
) {
  const { store, user } = await findUser(s, input.tenantId, input.storeName, input.user);
  policyOf(store, input.policyName);
  const passcode = await s.passcodes.get(input.tenantId, input.storeName, user.id, input.policyName);
  const notFound = () => new PasscodeRegistrationNotFoundError(`The user has no passcode under policy ${input.policyName}.`);
  if (!passcode?.current) throw notFound();
  const { [input.policyName]: _gone, ...passcodes } = user.passcodes;
  const retired: PasscodeRecord = {
    ...passcode,
    current: undefined,
    history: earlierPasscodes(passcode),
  };
  const updated: IdentityUserRecord = { ...user, passcodes, lastUpdatedDtm: input.now.toISOString() };
  const event = newEvent({
    tenantId: input.tenantId,
    type: 'PASSCODE_DEREGISTERED',
    storeName: input.storeName,
    userId: user.id,
    externalId: user.externalId,
    actor: input.actor,
    details: { policyName: input.policyName },
    now: input.now,
  });
  if (!(await s.passcodes.deregister(retired, updated, event))) throw notFound();
  return { user: userView(updated) };
}

