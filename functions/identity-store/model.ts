/**
 * The identity store's model: what it stores (stores, users, passcodes, passkeys, sessions,
 * events) and the storage it needs, which `store/identity-store.ts` implements over DynamoDB.
 * Types and plain constants only: `store/` imports this file and must get no domain logic with it.
 */
import type { PasscodeRequirements } from './passcodes/passcode-rules.js';
import type { KeyedSource } from '../shared/keyed-list.js';

// ---------------------------------------------------------------------------------------------
// Stores and their policies

export interface PasscodePolicy {
  description?: string;
  requirements: PasscodeRequirements;
}

export type StoreType = 'STANDARD' | 'APPKEY';

export interface IdentityStoreRecord {
  tenantId: string;
  name: string;
  description: string;
  type: StoreType;
  passcodePolicies: Record<string, PasscodePolicy>;
  /** Per WebAuthn relying party id. */
  passkeyConfig: Record<string, PasskeyRpConfig>;
  createdDtm: string;
  createdBy: string;
  lastUpdatedDtm: string;
  lastUpdatedBy: string;
  /** Optimistic lock: every update is written only over the version it read. */
  version: number;
}

export interface IdentityStoreStore {
  /** False when the name is taken. */
  create(record: IdentityStoreRecord): Promise<boolean>;
  get(tenantId: string, name: string): Promise<IdentityStoreRecord | undefined>;
  /** The tenant's stores by name (their sort keys, `STORE#{name}`), as a paged list: a page is one Query. */
  byName(tenantId: string): KeyedSource<IdentityStoreRecord>;
  /** False when the stored version is no longer `expectedVersion`. */
  replace(record: IdentityStoreRecord, expectedVersion: number): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Users

/**
 * A user of an identity store: an internal id the service makes (26 characters, Crockford base
 * 32) and the relying party's external id, unique in the store. The user item also summarises
 * the user's credentials (never their secrets: a passcode's verifier lives in its own item).
 */
export interface IdentityUserRecord {
  tenantId: string;
  storeName: string;
  id: string;
  externalId: string;
  status: 'ACTIVE';
  /** Per passcode policy the user has a passcode under: when it was registered. */
  passcodes: Record<string, { registeredDtm: string }>;
  createdDtm: string;
  createdBy: string;
  lastUpdatedDtm: string;
}

/** How a caller names a user: by internal id, or by external id (the `/ext` paths). */
export type UserRef = { userId: string } | { externalId: string };

export interface IdentityUserStore {
  /** With its USER_ADDED event, in one transaction; `externalIdTaken` when another user of the store has the external id. */
  create(record: IdentityUserRecord, event: IdentityEvent): Promise<{ outcome: 'created' } | { outcome: 'externalIdTaken' }>;
  get(tenantId: string, storeName: string, ref: UserRef): Promise<IdentityUserRecord | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Passkeys

/** How passkeys are made: the WebAuthn authenticator selection, attestation and time allowed. */
export interface PasskeyRegistrationPolicy {
  authenticatorSelection: {
    residentKey: 'required' | 'preferred' | 'discouraged';
    userVerification: 'required' | 'preferred' | 'discouraged';
    authenticatorAttachment?: 'platform' | 'cross-platform';
  };
  attestation: 'none' | 'direct';
  timeoutSeconds: number;
}

export interface PasskeyAuthenticationPolicy {
  userVerification: 'required' | 'preferred' | 'discouraged';
  timeoutSeconds: number;
}

/** A store's passkey configuration for one WebAuthn relying party. */
export interface PasskeyRpConfig {
  rpId: string;
  rpName: string;
  /** The origins a ceremony may come from (scheme, host, port), e.g. `https://www.bank.example`. */
  allowedOrigins: string[];
  registrationPolicies: Record<string, PasskeyRegistrationPolicy>;
  authenticationPolicies: Record<string, PasskeyAuthenticationPolicy>;
}

/** A registered passkey: its public key and counter, bound to its tenant, store and user. */
export interface PasskeyRecord {
  tenantId: string;
  storeName: string;
  userId: string;
  /** The service's id of the passkey (26 characters). */
  id: string;
  /** The WebAuthn credential id, base64url. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  rpId: string;
  aaguid: string;
  fmt: string;
  credentialDeviceType: string;
  credentialBackedUp: boolean;
  userVerified: boolean;
  origin: string;
  registrationPolicy: string;
  registeredDtm: string;
  lastUsedDtm?: string;
}

/** A WebAuthn ceremony in progress: its challenge is good once, until `expiresAt`. */
export interface PasskeySession {
  tenantId: string;
  storeName: string;
  sessionId: string;
  kind: 'registration' | 'authentication';
  rpId: string;
  policyName: string;
  challenge: string;
  /** The user: known (user-bound ceremonies), or made at completion (a registration without a user). */
  userId?: string;
  newUserExternalId?: string;
  username?: string;
  authenticatorSelection?: PasskeyRegistrationPolicy['authenticatorSelection'];
  userVerification: 'required' | 'preferred' | 'discouraged';
  createdDtm: string;
  expiresAt: number;
}

/** One authentication of a user (the paged `authentications` read). */
export interface AuthenticationRecord {
  tenantId: string;
  storeName: string;
  userId: string;
  at: string;
  id: string;
  method: 'PASSKEY' | 'PASSCODE';
  rpId?: string;
  passkeyId?: string;
  policyName: string;
}

export interface PasskeyStore {
  saveSession(session: PasskeySession): Promise<void>;
  getSession(tenantId: string, storeName: string, sessionId: string, now: Date): Promise<PasskeySession | undefined>;
  /** The user's newest pending registration, for the `sessions` read. */
  latestRegistration(tenantId: string, storeName: string, userId: string, now: Date): Promise<PasskeySession | undefined>;
  /** Ends a ceremony that failed: its challenge cannot be tried again. */
  dropSession(session: PasskeySession): Promise<void>;
  listPasskeys(tenantId: string, storeName: string, userId: string): Promise<PasskeyRecord[]>;
  getPasskey(tenantId: string, storeName: string, userId: string, passkeyId: string): Promise<PasskeyRecord | undefined>;
  /** The passkey a credential id belongs to in this store. */
  findByCredentialId(tenantId: string, storeName: string, credentialId: string): Promise<PasskeyRecord | undefined>;
  /**
   * In one transaction: the session consumed (only if still there), the credential id claimed
   * (only if no passkey of the store has it), the passkey and the user (and, for a new user, its
   * external id) written, the event recorded.
   */
  register(
    session: PasskeySession,
    passkey: PasskeyRecord,
    user: IdentityUserRecord,
    isNewUser: boolean,
    event: IdentityEvent,
  ): Promise<{ outcome: 'registered' } | { outcome: 'sessionGone' } | { outcome: 'credentialTaken' } | { outcome: 'externalIdTaken' }>;
  /** In one transaction: the session consumed, the counter moved only from the value read, the authentication and event recorded. */
  authenticated(session: PasskeySession, passkey: PasskeyRecord, previousCounter: number, record: AuthenticationRecord, event: IdentityEvent): Promise<boolean>;
  /**
   * A user's authentications, newest first, as a paged list: a page is one Query of its own
   * items in the user's partition (their sort key is `AUTHN#{at}#{id}`), never the whole partition.
   */
  authenticationsOf(tenantId: string, storeName: string, userId: string): KeyedSource<AuthenticationRecord>;
}

export interface PasskeyStores {
  stores: IdentityStoreStore;
  users: IdentityUserStore;
  passkeys: PasskeyStore;
  events: { put(event: IdentityEvent): Promise<void> };
}

// ---------------------------------------------------------------------------------------------
// Passcodes

/** A passcode registration in progress; its id is the `i` of `algorithmInfo.parameters`. */
export interface PasscodeRegistrationSession {
  tenantId: string;
  storeName: string;
  sessionId: string;
  userId: string;
  externalId: string;
  policyName: string;
  salt: string;
  /** Salts of the user's earlier passcodes under this policy, newest first (for the history rule). */
  historySalts: string[];
  createdDtm: string;
  expiresAt: number;
  /** What the journey's passcode form sent (the verifier, in its stored form), for Complete Passcode Registration. */
  staged?: { verifier: string; historyVerifiers: string[] };
}

/** An SRP login in progress (a journey's passcode authentication): `b` is the server's secret, kept here only. */
export interface PasscodeLoginSession {
  tenantId: string;
  storeName: string;
  sessionId: string;
  userId: string;
  externalId: string;
  policyName: string;
  identity: string;
  salt: string;
  b: string;
  B: string;
  /** Failed proofs so far; each gets a fresh b. */
  attempts: number;
  createdDtm: string;
  expiresAt: number;
}

/** A user's passcode under one policy: the SRP verifier and salt, and earlier ones for the history rule. */
export interface PasscodeRecord {
  tenantId: string;
  storeName: string;
  userId: string;
  policyName: string;
  current?: { verifier: string; salt: string; registeredDtm: string };
  history: { verifier: string; salt: string }[];
  /** Wrong passcodes in a row, over every journey and session, and the lockout they earned (passcodes/passcodes.ts). */
  guard?: PasscodeGuard;
}

export interface PasscodeGuard {
  failures: number;
  lockedUntil?: string;
}

/**
 * The user's passcode guard after a proof: written only over the count read (so two guesses at
 * once are two failures), or removed (`next: null`) after a right passcode.
 */
export interface GuardChange {
  expectedFailures: number;
  next: PasscodeGuard | null;
}

export interface PasscodeStore {
  get(tenantId: string, storeName: string, userId: string, policyName: string): Promise<PasscodeRecord | undefined>;
  saveSession(session: PasscodeRegistrationSession): Promise<void>;
  getSession(tenantId: string, storeName: string, sessionId: string, now: Date): Promise<PasscodeRegistrationSession | undefined>;
  /**
   * In one transaction: the session is consumed (only if it is still there and unexpired), the
   * passcode written, the user's summary updated and the event recorded. False when the session
   * was consumed or expired meanwhile.
   */
  completeRegistration(session: PasscodeRegistrationSession, passcode: PasscodeRecord, user: IdentityUserRecord, event: IdentityEvent, now: Date): Promise<boolean>;
  /**
   * In one transaction: the passcode written without its current verifier (which went into its
   * history), only if it still had one; the user updated; the event recorded. False when there was none.
   */
  deregister(passcode: PasscodeRecord, user: IdentityUserRecord, event: IdentityEvent): Promise<boolean>;
  /** Keeps what the passcode form sent on its (unexpired) registration session; false when it is gone. */
  stage(session: PasscodeRegistrationSession, staged: NonNullable<PasscodeRegistrationSession['staged']>, now: Date): Promise<boolean>;
  saveLogin(session: PasscodeLoginSession): Promise<void>;
  getLogin(tenantId: string, storeName: string, sessionId: string, now: Date): Promise<PasscodeLoginSession | undefined>;
  /** A failed proof: the new b, B and count, written only over the attempt count read (one guess at a time), with the event. */
  retryLogin(session: PasscodeLoginSession, expectedAttempts: number, events: IdentityEvent[], guard: GuardChange): Promise<boolean>;
  /** The login is over (proved, or out of attempts): the session goes, only if unchanged, with the events (and, proved, the user's authentication record). */
  endLogin(session: PasscodeLoginSession, expectedAttempts: number, events: IdentityEvent[], guard: GuardChange | undefined, authentication?: AuthenticationRecord): Promise<boolean>;
}

export interface IdentityStores {
  stores: IdentityStoreStore;
  users: IdentityUserStore;
  passcodes: PasscodeStore;
}

// ---------------------------------------------------------------------------------------------
// Events

/** What the identity store records: every registration, authentication and deregistration. */
export const IDENTITY_EVENT_TYPES = [
  'USER_ADDED',
  'PASSCODE_REGISTERED',
  'PASSCODE_DEREGISTERED',
  'PASSCODE_AUTHENTICATED',
  'PASSCODE_AUTHENTICATION_FAILED',
  'PASSCODE_LOCKED',
  'PASSKEY_REGISTERED',
  'PASSKEY_AUTHENTICATED',
  'PASSKEY_AUTHENTICATION_FAILED',
] as const;
export type IdentityEventType = (typeof IDENTITY_EVENT_TYPES)[number];

export interface IdentityEvent {
  eventId: string;
  tenantId: string;
  type: IdentityEventType;
  storeName: string;
  userId?: string;
  externalId?: string;
  at: string;
  /** Who did it: an API key (`apikey:{id}`), or a journey (`journey:{processInstanceId}`). */
  actor: string;
  /** The policy, credential, relying party or reason, as the event type has them. */
  details: Record<string, string>;
}

export interface EventFilters {
  storeName?: string | undefined;
  userId?: string | undefined;
  externalId?: string | undefined;
  types?: IdentityEventType[] | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A started query: its filters and page size, kept for an hour so its result can be paged. */
export interface EventQueryRecord {
  tenantId: string;
  executionId: string;
  filters: EventFilters;
  size: number;
  createdDtm: string;
  expiresAt: number;
}

export interface EventPage {
  events: IdentityEvent[];
  /** Where the next page starts; absent on the last page. */
  nextToken?: string;
}

export interface IdentityEventStore {
  put(event: IdentityEvent): Promise<void>;
  saveQuery(query: EventQueryRecord): Promise<void>;
  getQuery(tenantId: string, executionId: string, now: Date): Promise<EventQueryRecord | undefined>;
  /** A page of events; `invalidPageToken` when `nextToken` is not one this query handed out. */
  page(
    tenantId: string,
    filters: EventFilters,
    size: number,
    nextToken: string | undefined,
  ): Promise<({ outcome: 'page' } & EventPage) | { outcome: 'invalidPageToken' }>;
}
