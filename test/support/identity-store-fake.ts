import type {
  AuthenticationRecord,
  EventFilters,
  EventQueryRecord,
  GuardChange,
  IdentityEvent,
  IdentityEventStore,
  IdentityStoreRecord,
  IdentityStoreStore,
  IdentityUserRecord,
  IdentityUserStore,
  PasscodeLoginSession,
  PasscodeRecord,
  PasscodeRegistrationSession,
  PasscodeStore,
  PasskeyRecord,
  PasskeySession,
  PasskeyStore,
} from '../../functions/identity-store/model.js';
import { memorySource } from './keyed-source.js';

/**
 * The identity store's storage (model.ts) in memory, with the conditions store/identity-store.ts
 * writes under: a create fails when the item exists, a store is replaced only over the version
 * read, a transaction writes all of its items or none (so a refused change records no event),
 * sessions are read only until they expire and are consumed once, the passcode guard and the
 * passkey counter move only from the value read. Every key carries the tenant, as the table's do.
 *
 * Records are copied in and out, so a domain function cannot change what is stored by keeping a
 * reference, and a test's `events` is the log a change wrote with it.
 */
export class FakeIdentityStorage {
  readonly storeItems = new Map<string, IdentityStoreRecord>();
  readonly userItems = new Map<string, IdentityUserRecord>();
  /** `{tenant}/{store}/{externalId}` → user id: the external id's uniqueness lock. */
  readonly externalIds = new Map<string, string>();
  readonly passcodeItems = new Map<string, PasscodeRecord>();
  readonly registrations = new Map<string, PasscodeRegistrationSession>();
  readonly logins = new Map<string, PasscodeLoginSession>();
  readonly passkeySessions = new Map<string, PasskeySession>();
  /** `{tenant}/{store}/{userId}` → the user's newest pending passkey registration. */
  readonly pending = new Map<string, PasskeySession>();
  readonly passkeyItems = new Map<string, PasskeyRecord>();
  /** `{tenant}/{store}/{credentialId}` → the passkey that holds it. */
  readonly credentials = new Map<string, { userId: string; passkeyId: string }>();
  readonly authenticationItems: AuthenticationRecord[] = [];
  /** Every event written, in order (the event log and the outbox). */
  readonly events: IdentityEvent[] = [];
  readonly queries = new Map<string, EventQueryRecord>();

  readonly stores: IdentityStoreStore;
  readonly users: IdentityUserStore;
  readonly passcodes: PasscodeStore;
  readonly passkeys: PasskeyStore;
  readonly eventStore: IdentityEventStore;

  constructor() {
    this.stores = this.#storeStore();
    this.users = this.#userStore();
    this.passcodes = this.#passcodeStore();
    this.passkeys = this.#passkeyStore();
    this.eventStore = this.#eventStore();
  }

  /** The stores the domain functions take (`IdentityStores & PasskeyStores`). */
  get all() {
    return { stores: this.stores, users: this.users, passcodes: this.passcodes, passkeys: this.passkeys, events: this.eventStore };
  }

  /** The events of one type, in order. */
  eventsOf(type: IdentityEvent['type']): IdentityEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  passcode(tenantId: string, storeName: string, userId: string, policyName: string): PasscodeRecord | undefined {
    const p = this.passcodeItems.get(key(tenantId, storeName, userId, policyName));
    return p && copy(p);
  }

  #storeStore(): IdentityStoreStore {
    return {
      create: async (record) => {
        const k = key(record.tenantId, record.name);
        if (this.storeItems.has(k)) return false;
        this.storeItems.set(k, copy(record));
        return true;
      },
      get: async (tenantId, name) => copyOf(this.storeItems.get(key(tenantId, name))),
      byName: (tenantId) =>
        memorySource(
          () => [...this.storeItems.values()].filter((r) => r.tenantId === tenantId).map((r) => ({ record: copy(r), at: `STORE#${r.name}` })),
          'STORE#',
        ),
      replace: async (record, expectedVersion) => {
        const k = key(record.tenantId, record.name);
        if (this.storeItems.get(k)?.version !== expectedVersion) return false;
        this.storeItems.set(k, copy(record));
        return true;
      },
    };
  }

  #userStore(): IdentityUserStore {
    return {
      create: async (record, event) => {
        const userKey = key(record.tenantId, record.storeName, record.id);
        const extKey = key(record.tenantId, record.storeName, record.externalId);
        // As the table's: both conditions fail the one transaction; the id is random, so it is the external id.
        if (this.userItems.has(userKey) || this.externalIds.has(extKey)) return { outcome: 'externalIdTaken' };
        this.userItems.set(userKey, copy(record));
        this.externalIds.set(extKey, record.id);
        this.events.push(copy(event));
        return { outcome: 'created' };
      },
      get: async (tenantId, storeName, ref) => {
        const userId = 'userId' in ref ? ref.userId : this.externalIds.get(key(tenantId, storeName, ref.externalId));
        return userId === undefined ? undefined : copyOf(this.userItems.get(key(tenantId, storeName, userId)));
      },
    };
  }

  /** The guard condition of store/identity-store.ts: the failure count is still the one read. */
  #guardHolds(s: PasscodeLoginSession, g: GuardChange): boolean {
    const stored = this.passcodeItems.get(key(s.tenantId, s.storeName, s.userId, s.policyName));
    if (g.expectedFailures === 0) return stored !== undefined && (stored.guard === undefined || stored.guard.failures === 0);
    return stored?.guard?.failures === g.expectedFailures;
  }

  #applyGuard(s: PasscodeLoginSession, g: GuardChange): void {
    const stored = this.passcodeItems.get(key(s.tenantId, s.storeName, s.userId, s.policyName))!;
    if (g.next) stored.guard = copy(g.next);
    else delete stored.guard;
  }

  #passcodeStore(): PasscodeStore {
    const seconds = (now: Date) => Math.floor(now.getTime() / 1000);
    const loginKey = (s: PasscodeLoginSession) => key(s.tenantId, s.storeName, s.sessionId);
    const regKey = (s: PasscodeRegistrationSession) => key(s.tenantId, s.storeName, s.sessionId);
    return {
      get: async (tenantId, storeName, userId, policyName) => copyOf(this.passcodeItems.get(key(tenantId, storeName, userId, policyName))),
      saveSession: async (session) => {
        if (this.registrations.has(regKey(session))) throw new Error('ConditionalCheckFailed: registration session exists');
        this.registrations.set(regKey(session), copy(session));
      },
      getSession: async (tenantId, storeName, sessionId, now) => copyOf(unexpired(this.registrations.get(key(tenantId, storeName, sessionId)), now)),
      completeRegistration: async (session, passcode, user, event, now) => {
        const stored = this.registrations.get(regKey(session));
        if (!stored || !(stored.expiresAt > seconds(now))) return false;
        if (!this.userItems.has(key(user.tenantId, user.storeName, user.id))) return false;
        this.registrations.delete(regKey(session));
        this.passcodeItems.set(key(passcode.tenantId, passcode.storeName, passcode.userId, passcode.policyName), copy(passcode));
        this.userItems.set(key(user.tenantId, user.storeName, user.id), copy(user));
        this.events.push(copy(event));
        return true;
      },
      deregister: async (passcode, user, event) => {
        const k = key(passcode.tenantId, passcode.storeName, passcode.userId, passcode.policyName);
        if (!this.passcodeItems.get(k)?.current) return false;
        if (!this.userItems.has(key(user.tenantId, user.storeName, user.id))) return false;
        this.passcodeItems.set(k, copy(passcode));
        this.userItems.set(key(user.tenantId, user.storeName, user.id), copy(user));
        this.events.push(copy(event));
        return true;
      },
      stage: async (session, staged, now) => {
        const stored = this.registrations.get(regKey(session));
        if (!stored || !(stored.expiresAt > seconds(now))) return false;
        stored.staged = copy(staged);
        return true;
      },
      saveLogin: async (session) => {
        if (this.logins.has(loginKey(session))) throw new Error('ConditionalCheckFailed: login session exists');
        this.logins.set(loginKey(session), copy(session));
      },
      getLogin: async (tenantId, storeName, sessionId, now) => copyOf(unexpired(this.logins.get(key(tenantId, storeName, sessionId)), now)),
      retryLogin: async (session, expectedAttempts, events, guard) => {
        if (this.logins.get(loginKey(session))?.attempts !== expectedAttempts) return false;
        if (!this.#guardHolds(session, guard)) return false;
        this.logins.set(loginKey(session), copy(session));
        this.#applyGuard(session, guard);
        this.events.push(...events.map(copy));
        return true;
      },
      endLogin: async (session, expectedAttempts, events, guard, authentication) => {
        if (this.logins.get(loginKey(session))?.attempts !== expectedAttempts) return false;
        if (guard && !this.#guardHolds(session, guard)) return false;
        this.logins.delete(loginKey(session));
        if (guard) this.#applyGuard(session, guard);
        this.events.push(...events.map(copy));
        if (authentication) this.authenticationItems.push(copy(authentication));
        return true;
      },
    };
  }

  #passkeyStore(): PasskeyStore {
    const sessionKey = (s: PasskeySession) => key(s.tenantId, s.storeName, s.sessionId);
    const store: PasskeyStore = {
      saveSession: async (session) => {
        if (this.passkeySessions.has(sessionKey(session))) throw new Error('passkey session id collision');
        this.passkeySessions.set(sessionKey(session), copy(session));
        if (session.kind === 'registration' && session.userId && session.newUserExternalId === undefined) {
          this.pending.set(key(session.tenantId, session.storeName, session.userId), copy(session));
        }
      },
      getSession: async (tenantId, storeName, sessionId, now) => copyOf(unexpired(this.passkeySessions.get(key(tenantId, storeName, sessionId)), now)),
      latestRegistration: async (tenantId, storeName, userId, now) => {
        const pending = unexpired(this.pending.get(key(tenantId, storeName, userId)), now);
        if (!pending) return undefined;
        return (await store.getSession(tenantId, storeName, pending.sessionId, now)) ? copy(pending) : undefined;
      },
      dropSession: async (session) => {
        this.passkeySessions.delete(sessionKey(session));
      },
      listPasskeys: async (tenantId, storeName, userId) =>
        [...this.passkeyItems.values()].filter((p) => p.tenantId === tenantId && p.storeName === storeName && p.userId === userId).map(copy),
      getPasskey: async (tenantId, storeName, userId, passkeyId) => copyOf(this.passkeyItems.get(key(tenantId, storeName, userId, passkeyId))),
      findByCredentialId: async (tenantId, storeName, credentialId) => {
        if (!credentialId || credentialId.length > 1400) return undefined;
        const lock = this.credentials.get(key(tenantId, storeName, credentialId));
        return lock && store.getPasskey(tenantId, storeName, lock.userId, lock.passkeyId);
      },
      register: async (session, passkey, user, isNewUser, event) => {
        const credKey = key(passkey.tenantId, passkey.storeName, passkey.credentialId);
        const userKey = key(user.tenantId, user.storeName, user.id);
        const extKey = key(user.tenantId, user.storeName, user.externalId);
        if (!this.passkeySessions.has(sessionKey(session))) return { outcome: 'sessionGone' };
        if (this.credentials.has(credKey)) return { outcome: 'credentialTaken' };
        if (isNewUser && this.externalIds.has(extKey)) return { outcome: 'externalIdTaken' };
        if (isNewUser === this.userItems.has(userKey)) return { outcome: 'sessionGone' };
        this.passkeySessions.delete(sessionKey(session));
        this.credentials.set(credKey, { userId: passkey.userId, passkeyId: passkey.id });
        this.passkeyItems.set(key(passkey.tenantId, passkey.storeName, passkey.userId, passkey.id), copy(passkey));
        this.userItems.set(userKey, copy(user));
        if (isNewUser) this.externalIds.set(extKey, user.id);
        this.events.push(copy(event));
        return { outcome: 'registered' };
      },
      authenticated: async (session, passkey, previousCounter, record, event) => {
        const pkKey = key(passkey.tenantId, passkey.storeName, passkey.userId, passkey.id);
        if (!this.passkeySessions.has(sessionKey(session))) return false;
        if (this.passkeyItems.get(pkKey)?.counter !== previousCounter) return false;
        this.passkeySessions.delete(sessionKey(session));
        this.passkeyItems.set(pkKey, copy(passkey));
        this.authenticationItems.push(copy(record));
        this.events.push(copy(event));
        return true;
      },
      authenticationsOf: (tenantId, storeName, userId) =>
        memorySource(
          () =>
            this.authenticationItems
              .filter((r) => r.tenantId === tenantId && r.storeName === storeName && r.userId === userId)
              .map((r) => ({ record: copy(r), at: `AUTHN#${r.at}#${r.id}` })),
          'AUTHN#',
        ),
    };
    return store;
  }

  #eventStore(): IdentityEventStore {
    const sortKey = (e: IdentityEvent) => `${e.at}#${e.eventId}`;
    const matches = (e: IdentityEvent, f: EventFilters) =>
      (!f.storeName || e.storeName === f.storeName) &&
      (!f.userId || e.userId === f.userId) &&
      (!f.externalId || e.externalId === f.externalId) &&
      (!f.types?.length || f.types.includes(e.type)) &&
      (!f.from || e.at >= f.from) &&
      (!f.to || e.at <= f.to);
    return {
      put: async (event) => {
        this.events.push(copy(event));
      },
      saveQuery: async (query) => {
        this.queries.set(key(query.tenantId, query.executionId), copy(query));
      },
      getQuery: async (tenantId, executionId, now) => copyOf(unexpired(this.queries.get(key(tenantId, executionId)), now)),
      page: async (tenantId, filters, size, nextToken) => {
        let after = '';
        if (nextToken) {
          const decoded = Buffer.from(nextToken, 'base64url').toString('utf8');
          if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z#[0-9A-Z]{26}$/.test(decoded)) return { outcome: 'invalidPageToken' };
          after = decoded;
        }
        const rest = this.events
          .filter((e) => e.tenantId === tenantId && matches(e, filters) && sortKey(e) > after)
          .sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
        const page = rest.slice(0, size);
        const more = rest.length > size;
        return { outcome: 'page', events: page.map(copy), ...(more ? { nextToken: Buffer.from(sortKey(page.at(-1)!)).toString('base64url') } : {}) };
      },
    };
  }
}

function key(...parts: string[]): string {
  return parts.map((p) => encodeURIComponent(p)).join('/');
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

function copyOf<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}

/** As store/codec.ts's `unexpired`: a record is read until its `expiresAt` (seconds). */
function unexpired<R extends { expiresAt: number }>(record: R | undefined, now: Date): R | undefined {
  return record && record.expiresAt * 1000 > now.getTime() ? record : undefined;
}
