import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { apiError } from '../../errors.js';
import { newId26 } from '../../shared/ids.js';
import { newEvent } from '../events/events.js';
import { IdentityStoreNotFoundError, PolicyNotFoundError } from '../stores/stores.js';
import { ExternalIdNotUniqueError, findUser, newUser, userView } from '../users/users.js';
import type { AuthenticationRecord, IdentityStoreRecord, IdentityUserRecord, PasskeyRecord, PasskeyRpConfig, PasskeySession, PasskeyStores, UserRef } from '../model.js';
import { own } from '../../shared/own.js';
import { keyedPage } from '../../shared/keyed-list.js';

export type { AuthenticationRecord, PasskeyAuthenticationPolicy, PasskeyRecord, PasskeyRegistrationPolicy, PasskeyRpConfig, PasskeySession, PasskeyStore, PasskeyStores } from '../model.js';

export class RelyingPartyNotFoundError extends apiError('RELYING_PARTY_NOT_FOUND') {}

export class PasskeySessionNotFoundError extends apiError('PASSKEY_SESSION_NOT_FOUND') {}

export class PasskeyVerificationError extends apiError('PASSKEY_VERIFICATION_FAILED') {}

export class CredentialExistsError extends apiError('CREDENTIAL_EXISTS') {}

export class PasskeyNotFoundError extends apiError('PASSKEY_NOT_FOUND') {}

export class NoPendingSessionError extends apiError('PASSKEY_SESSION_NOT_FOUND') {
  constructor() {
    super('The user has no passkey registration in progress.');
  }
}

const SESSION_SECONDS_MIN = 60;

function rpOf(store: IdentityStoreRecord, rpId: string): PasskeyRpConfig {
  const rp = own(store.passkeyConfig, rpId);
  if (!rp) throw new RelyingPartyNotFoundError(`Store ${store.name} has no passkey configuration for relying party ${rpId}.`);
  return rp;
}

/** The store, and the user when one is named: one read of each (404 for either missing). */
async function storeAndUser(s: PasskeyStores, tenantId: string, storeName: string, ref: UserRef | undefined): Promise<{ store: IdentityStoreRecord; user?: IdentityUserRecord }> {
  if (ref) return findUser(s, tenantId, storeName, ref);
  const store = await s.stores.get(tenantId, storeName);
  if (!store) throw new IdentityStoreNotFoundError(storeName);
  return { store };
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const expiry = (now: Date, seconds: number) => Math.floor(now.getTime() / 1000) + Math.max(seconds, SESSION_SECONDS_MIN);

/**
 * Starts a passkey registration: for a user of the store (by id or external id), or without one
 * (the user is made, with `externalId`, when the registration completes). Existing passkeys of
 * the user are excluded, so an authenticator cannot register twice.
 */
export async function startPasskeyRegistration(
  s: PasskeyStores,
  input: { tenantId: string; storeName: string; rpId: string; policyName: string; user?: UserRef; newUserExternalId?: string; now: Date },
) {
  const { store, user } = await storeAndUser(s, input.tenantId, input.storeName, input.user);
  const rp = rpOf(store, input.rpId);
  const policy = own(rp.registrationPolicies, input.policyName);
  if (!policy) throw new PolicyNotFoundError(`Relying party ${input.rpId} has no registration policy ${input.policyName}.`);
  let userId: string;
  let username: string;
  let exclude: { id: string; transports?: string[] }[] = [];
  if (user) {
    userId = user.id;
    username = user.externalId;
    exclude = (await s.passkeys.listPasskeys(input.tenantId, input.storeName, user.id))
      .filter((p) => p.rpId === input.rpId)
      .map((p) => ({ id: p.credentialId, transports: p.transports }));
  } else {
    const externalId = input.newUserExternalId!;
    if (await s.users.get(input.tenantId, input.storeName, { externalId })) throw new ExternalIdNotUniqueError(externalId);
    userId = newUser({ tenantId: input.tenantId, storeName: input.storeName, externalId, actor: '', now: input.now }).id;
    username = externalId;
  }
  const { generateRegistrationOptions } = await import('@simplewebauthn/server');
  const options: PublicKeyCredentialCreationOptionsJSON = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userName: username,
    userDisplayName: username,
    // The user handle: the internal user id, so a discoverable login names the user.
    userID: new TextEncoder().encode(userId),
    attestationType: policy.attestation,
    // A copy: the library adds requireResidentKey to the object it is given.
    authenticatorSelection: { ...policy.authenticatorSelection },
    excludeCredentials: exclude,
    timeout: policy.timeoutSeconds * 1000,
    // ES256, RS256 (Windows Hello), EdDSA.
    supportedAlgorithmIDs: [-7, -257, -8],
  });
  const session: PasskeySession = {
    tenantId: input.tenantId,
    storeName: input.storeName,
    sessionId: newId26(),
    kind: 'registration',
    rpId: rp.rpId,
    policyName: input.policyName,
    challenge: options.challenge,
    userId,
    ...(input.user ? {} : { newUserExternalId: username }),
    username,
    authenticatorSelection: policy.authenticatorSelection,
    userVerification: policy.authenticatorSelection.userVerification,
    createdDtm: input.now.toISOString(),
    expiresAt: expiry(input.now, policy.timeoutSeconds),
  };
  await s.passkeys.saveSession(session);
  return {
    sessionId: session.sessionId,
    username,
    authenticatorSelection: policy.authenticatorSelection,
    publicKey: options,
    expiresDtm: new Date(session.expiresAt * 1000).toISOString(),
  };
}

/**
 * Completes a registration with the browser's response (@simplewebauthn/browser's
 * `startRegistration` result): the challenge, origin, RP id and user verification are checked
 * by @simplewebauthn/server; the challenge is then spent, success or not.
 */
export async function completePasskeyRegistration(
  s: PasskeyStores,
  input: { tenantId: string; storeName: string; sessionId: string; response: RegistrationResponseJSON; actor: string; now: Date },
) {
  const session = await s.passkeys.getSession(input.tenantId, input.storeName, input.sessionId, input.now);
  if (!session || session.kind !== 'registration' || !session.userId) throw new PasskeySessionNotFoundError();
  const isNewUser = session.newUserExternalId !== undefined;
  const { store, user: existing } = await storeAndUser(s, input.tenantId, input.storeName, isNewUser ? undefined : { userId: session.userId });
  const rp = rpOf(store, session.rpId);
  const { verifyRegistrationResponse } = await import('@simplewebauthn/server');
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: session.challenge,
      expectedOrigin: rp.allowedOrigins,
      expectedRPID: rp.rpId,
      requireUserVerification: session.userVerification === 'required',
    });
  } catch (err) {
    await s.passkeys.dropSession(session);
    throw new PasskeyVerificationError(`The passkey registration could not be verified: ${(err as Error).message}`);
  }
  if (!verified.verified) {
    await s.passkeys.dropSession(session);
    throw new PasskeyVerificationError('The passkey registration could not be verified.');
  }
  const info = verified.registrationInfo;
  const at = input.now.toISOString();
  const user: IdentityUserRecord = existing
    ? { ...existing, lastUpdatedDtm: at }
    : { ...newUser({ tenantId: input.tenantId, storeName: input.storeName, externalId: session.newUserExternalId!, actor: input.actor, now: input.now }), id: session.userId };
  const passkey: PasskeyRecord = {
    tenantId: input.tenantId,
    storeName: input.storeName,
    userId: user.id,
    id: newId26(),
    credentialId: info.credential.id,
    publicKey: b64url(info.credential.publicKey),
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    rpId: rp.rpId,
    aaguid: info.aaguid,
    fmt: info.fmt,
    credentialDeviceType: info.credentialDeviceType,
    credentialBackedUp: info.credentialBackedUp,
    userVerified: info.userVerified,
    origin: info.origin,
    registrationPolicy: session.policyName,
    registeredDtm: at,
  };
  const event = newEvent({
    tenantId: input.tenantId,
    type: 'PASSKEY_REGISTERED',
    storeName: input.storeName,
    userId: user.id,
    externalId: user.externalId,
    actor: input.actor,
    details: { rpId: rp.rpId, passkeyId: passkey.id, policyName: session.policyName, aaguid: info.aaguid },
    now: input.now,
  });
  const { outcome } = await s.passkeys.register(session, passkey, user, isNewUser, event);
  if (outcome === 'sessionGone') throw new PasskeySessionNotFoundError();
  if (outcome === 'credentialTaken') throw new CredentialExistsError();
  if (outcome === 'externalIdTaken') throw new ExternalIdNotUniqueError(user.externalId);
  return { user: userView(user), passkey: passkeyView(passkey) };
}

/**
 * Starts a passkey authentication: for a user (only their passkeys of this relying party are
 * allowed), or discoverable (none are listed; the authenticator picks one and names its user).
 */
export async function startPasskeyAuthentication(
  s: PasskeyStores,
  input: { tenantId: string; storeName: string; rpId: string; policyName: string; user?: UserRef; now: Date },
) {
  const { store, user } = await storeAndUser(s, input.tenantId, input.storeName, input.user);
  const rp = rpOf(store, input.rpId);
  const policy = own(rp.authenticationPolicies, input.policyName);
  if (!policy) throw new PolicyNotFoundError(`Relying party ${input.rpId} has no authentication policy ${input.policyName}.`);
  let userId: string | undefined;
  let allow: { id: string; transports?: string[] }[] = [];
  if (user) {
    userId = user.id;
    allow = (await s.passkeys.listPasskeys(input.tenantId, input.storeName, user.id))
      .filter((p) => p.rpId === input.rpId)
      .map((p) => ({ id: p.credentialId, transports: p.transports }));
    if (!allow.length) throw new PasskeyNotFoundError();
  }
  const { generateAuthenticationOptions } = await import('@simplewebauthn/server');
  const options: PublicKeyCredentialRequestOptionsJSON = await generateAuthenticationOptions({
    rpID: rp.rpId,
    allowCredentials: allow,
    userVerification: policy.userVerification,
    timeout: policy.timeoutSeconds * 1000,
  });
  const session: PasskeySession = {
    tenantId: input.tenantId,
    storeName: input.storeName,
    sessionId: newId26(),
    kind: 'authentication',
    rpId: rp.rpId,
    policyName: input.policyName,
    challenge: options.challenge,
    ...(userId ? { userId } : {}),
    userVerification: policy.userVerification,
    createdDtm: input.now.toISOString(),
    expiresAt: expiry(input.now, policy.timeoutSeconds),
  };
  await s.passkeys.saveSession(session);
  return { sessionId: session.sessionId, publicKey: options, expiresDtm: new Date(session.expiresAt * 1000).toISOString() };
}

/**
 * Completes an authentication: the credential must be a passkey of this store (and of the
 * session's user, when it has one, and of the user its handle names); the signature, challenge,
 * origin, RP id, user verification and a counter that moved on are checked by
 * @simplewebauthn/server; the counter is then written only over the value read.
 */
export async function completePasskeyAuthentication(
  s: PasskeyStores,
  input: { tenantId: string; storeName: string; sessionId: string; response: AuthenticationResponseJSON; actor: string; now: Date },
) {
  const session = await s.passkeys.getSession(input.tenantId, input.storeName, input.sessionId, input.now);
  if (!session || session.kind !== 'authentication') throw new PasskeySessionNotFoundError();
  const fail = async (reason: string, passkey?: PasskeyRecord, externalId?: string) => {
    await s.passkeys.dropSession(session);
    const userId = passkey?.userId ?? session.userId;
    await s.events.put(
      newEvent({
        tenantId: input.tenantId,
        type: 'PASSKEY_AUTHENTICATION_FAILED',
        storeName: input.storeName,
        ...(userId ? { userId } : {}),
        ...(externalId ? { externalId } : {}),
        actor: input.actor,
        details: { rpId: session.rpId, reason, ...(passkey ? { passkeyId: passkey.id } : {}) },
        now: input.now,
      }),
    );
    return new PasskeyVerificationError(`The passkey authentication could not be verified: ${reason}`);
  };
  const passkey = await s.passkeys.findByCredentialId(input.tenantId, input.storeName, String(input.response?.id ?? ''));
  if (!passkey || passkey.rpId !== session.rpId) throw await fail('unknown credential');
  if (session.userId && passkey.userId !== session.userId) throw await fail('credential of another user', passkey);
  const handle = input.response.response?.userHandle;
  if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== passkey.userId) throw await fail('user handle does not match', passkey);
  const { store, user } = await findUser(s, input.tenantId, input.storeName, { userId: passkey.userId });
  const rp = rpOf(store, session.rpId);
  const { verifyAuthenticationResponse } = await import('@simplewebauthn/server');
  let newCounter: number;
  try {
    const verified = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: session.challenge,
      expectedOrigin: rp.allowedOrigins,
      expectedRPID: rp.rpId,
      credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: session.userVerification === 'required',
    });
    if (!verified.verified) throw new Error('not verified');
    newCounter = verified.authenticationInfo.newCounter;
  } catch (err) {
    throw await fail((err as Error).message, passkey, user.externalId);
  }
  const at = input.now.toISOString();
  const record: AuthenticationRecord = {
    tenantId: input.tenantId,
    storeName: input.storeName,
    userId: user.id,
    at,
    id: newId26(),
    method: 'PASSKEY',
    rpId: rp.rpId,
    passkeyId: passkey.id,
    policyName: session.policyName,
  };
  const event = newEvent({
    tenantId: input.tenantId,
    type: 'PASSKEY_AUTHENTICATED',
    storeName: input.storeName,
    userId: user.id,
    externalId: user.externalId,
    actor: input.actor,
    details: { rpId: rp.rpId, passkeyId: passkey.id, policyName: session.policyName },
    now: input.now,
  });
  const updated: PasskeyRecord = { ...passkey, counter: newCounter, lastUsedDtm: at };
  if (!(await s.passkeys.authenticated(session, updated, passkey.counter, record, event))) {
    // The session was spent, or the counter moved meanwhile: a parallel use of the same credential.
    throw new PasskeySessionNotFoundError();
  }
  return { verified: true, user: userView(user), passkey: passkeyView(updated) };
}

export function passkeyView(p: PasskeyRecord) {
  return {
    id: p.id,
    credentialId: p.credentialId,
    rpId: p.rpId,
    counter: p.counter,
    transports: p.transports,
    credentialDeviceType: p.credentialDeviceType,
    credentialBackedUp: p.credentialBackedUp,
    registeredDtm: p.registeredDtm,
    ...(p.lastUsedDtm ? { lastUsedDtm: p.lastUsedDtm } : {}),
  };
}

/** What was established when the passkey was registered (the `registrationAudit` read). */
export function registrationAuditView(p: PasskeyRecord) {
  return {
    ...passkeyView(p),
    aaguid: p.aaguid,
    attestationFormat: p.fmt,
    userVerified: p.userVerified,
    origin: p.origin,
    registrationPolicy: p.registrationPolicy,
  };
}

export async function getPasskeyAudit(s: PasskeyStores, tenantId: string, storeName: string, ref: UserRef, passkeyId: string) {
  const { user } = await findUser(s, tenantId, storeName, ref);
  const passkey = await s.passkeys.getPasskey(tenantId, storeName, user.id, passkeyId);
  if (!passkey) throw new PasskeyNotFoundError();
  return registrationAuditView(passkey);
}

/** The user's pending registration: the username and authenticator selection a client shows. */
export async function getPendingSession(s: PasskeyStores, tenantId: string, storeName: string, ref: UserRef, now: Date) {
  const { user } = await findUser(s, tenantId, storeName, ref);
  const session = await s.passkeys.latestRegistration(tenantId, storeName, user.id, now);
  if (!session) throw new NoPendingSessionError();
  return {
    sessionId: session.sessionId,
    username: session.username ?? user.externalId,
    authenticatorSelection: session.authenticatorSelection,
    rpId: session.rpId,
    expiresDtm: new Date(session.expiresAt * 1000).toISOString(),
  };
}

/**
 * A page of the user's authentications, newest first (docs/lists.md): one Query of the page's
 * own items, by `cursor` or by number; `totalElements` counted by the first page (at most
 * 10,000) and carried in its cursor, which is bound to this user.
 */
export async function listUserAuthentications(
  s: PasskeyStores,
  tenantId: string,
  storeName: string,
  ref: UserRef,
  query: { page: number; size: number; cursor?: string | undefined },
) {
  const { user } = await findUser(s, tenantId, storeName, ref);
  return keyedPage(s.passkeys.authenticationsOf(tenantId, storeName, user.id), {
    binding: { tenantId, list: 'userAuthentications', scope: [storeName, user.id] },
    page: query.page,
    size: query.size,
    cursor: query.cursor,
    descending: true,
    sorted: true,
    view: (records) =>
      records.map((r) => ({ id: r.id, at: r.at, method: r.method, policyName: r.policyName, ...(r.rpId ? { rpId: r.rpId } : {}), ...(r.passkeyId ? { passkeyId: r.passkeyId } : {}) })),
  });
}
