import type {
  AuthenticationRecord,
  EventQueryRecord,
  IdentityEvent,
  IdentityEventStore,
  IdentityStoreRecord,
  IdentityStoreStore,
  IdentityUserRecord,
  IdentityUserStore,
  PasscodeLoginSession,
  GuardChange,
  PasscodeRecord,
  PasscodeRegistrationSession,
  PasscodeStore,
  PasskeyRecord,
  PasskeySession,
  PasskeyStore,
} from '../identity-store/model.js';
import { itemCodec, unexpired, type Item, type ItemCodec } from './codec.js';
import { conditionally, dynamo, queryAll, transactWrite } from './client.js';
import { keys, type ItemKey } from './keys.js';
import { countRange, readRange, type KeyRange } from './ranges.js';
import { outboxPuts } from './outbox.js';
import { identityStoreEvent } from '../shared/events.js';

const identityStores = /* @__PURE__ */ itemCodec<IdentityStoreRecord>('IdentityStore');
const users = /* @__PURE__ */ itemCodec<IdentityUserRecord>('IdentityUser');
const externalIdLocks = /* @__PURE__ */ itemCodec<{ userId: string }>('IdentityUserExternalId');
const passcodes = /* @__PURE__ */ itemCodec<PasscodeRecord>('IdentityPasscode');
const passcodeRegistrations = /* @__PURE__ */ itemCodec<PasscodeRegistrationSession>('PasscodeRegistration');
const passcodeLogins = /* @__PURE__ */ itemCodec<PasscodeLoginSession>('PasscodeLogin');
const events = /* @__PURE__ */ itemCodec<IdentityEvent>('IdentityEvent');
const eventQueries = /* @__PURE__ */ itemCodec<EventQueryRecord>('IdentityEventQuery');
const authentications = /* @__PURE__ */ itemCodec<AuthenticationRecord>('UserAuthentication');
const passkeySessions = /* @__PURE__ */ itemCodec<PasskeySession>('PasskeySession');
const pendingRegistrations = /* @__PURE__ */ itemCodec<PasskeySession>('PasskeyPending');
const passkeys = /* @__PURE__ */ itemCodec<PasskeyRecord>('Passkey');
const credentialLocks = /* @__PURE__ */ itemCodec<{ userId: string; passkeyId: string }>('PasskeyCredential');
/** Where the stores list may resume: after a store's item (`STORE#{name}`, names as the API takes them). */
const STORE_POSITION = /^STORE#[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Where a user's authentications list may resume: after one of its items (`AUTHN#{at}#{id}`). */
const AUTHENTICATION_POSITION = /^AUTHN#\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z#[0-9A-HJKMNP-TV-Z]{26}$/;

async function getItem(key: ItemKey): Promise<Item | undefined> {
  const { doc, tableName, commands } = await dynamo();
  return (await doc.send(new commands.GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
}

/** A record of one kind at `key` (consistent read), or undefined. */
async function getRecord<R extends object>(codec: ItemCodec<R>, key: ItemKey): Promise<R | undefined> {
  return codec.decode(await getItem(key));
}

/** Puts an item that must not exist yet (a fresh id). */
async function putNew(item: Item): Promise<void> {
  const { doc, tableName, commands } = await dynamo();
  await doc.send(new commands.PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
}

/** A store record written only when `condition` holds (it is new; it is still the version read). */
async function putStore(record: IdentityStoreRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }) {
  const { doc, tableName, commands } = await dynamo();
  return conditionally(() =>
    doc.send(new commands.PutCommand({ TableName: tableName, Item: identityStores.encode(record, keys.identityStore(record.tenantId, record.name)), ...condition })),
  );
}

const userItem = (u: IdentityUserRecord) => users.encode(u, keys.identityUser(u.tenantId, u.storeName, u.id));
const externalIdLockItem = (u: IdentityUserRecord) => externalIdLocks.encode({ userId: u.id }, keys.identityUserExternalId(u.tenantId, u.storeName, u.externalId));
const passcodeItem = (p: PasscodeRecord) => passcodes.encode(p, keys.identityPasscode(p.tenantId, p.storeName, p.userId, p.policyName));
/** The passcode's guard set (or removed) only over the failure count read: concurrent guesses each count. */
const guardUpdate = (s: PasscodeLoginSession, g: GuardChange) => ({
  Update: {
    Key: keys.identityPasscode(s.tenantId, s.storeName, s.userId, s.policyName),
    ...(g.next ? { UpdateExpression: 'SET guard = :next' } : { UpdateExpression: 'REMOVE guard' }),
    ConditionExpression:
      g.expectedFailures === 0 ? 'attribute_exists(PK) AND (attribute_not_exists(guard) OR guard.failures = :zero)' : 'guard.failures = :expected',
    ExpressionAttributeValues: {
      ...(g.next ? { ':next': g.next } : {}),
      ...(g.expectedFailures === 0 ? { ':zero': 0 } : { ':expected': g.expectedFailures }),
    },
  },
});
const loginItem = (s: PasscodeLoginSession) => passcodeLogins.encode(s, keys.passcodeLogin(s.tenantId, s.storeName, s.sessionId));
/** Identity events are kept 90 days (the service's usual retention), then DynamoDB TTL deletes them. */
export const IDENTITY_EVENT_RETENTION_DAYS = 90;
const eventItem = (e: IdentityEvent) => ({
  ...events.encode(e, keys.identityEvent(e.tenantId, e.at, e.eventId)),
  expiresAt: Math.floor(new Date(e.at).getTime() / 1000) + IDENTITY_EVENT_RETENTION_DAYS * 86_400,
});
/**
 * An event's two items, for a transaction with the change: its entry in the identity store's
 * event log (read through the events API) and its outgoing event (the outbox, to the bus and
 * webhooks), named `event{i}` and `outbox{i}`.
 */
const eventPuts = (list: readonly IdentityEvent[]) => ({
  ...Object.fromEntries(list.map((e, i) => [`event${i}`, { Put: { Item: eventItem(e) } }])),
  ...outboxPuts(list.map(identityStoreEvent), 'outbox'),
});
const authenticationItem = (r: AuthenticationRecord) => authentications.encode(r, keys.userAuthentication(r.tenantId, r.storeName, r.userId, r.at, r.id));
const sessionItem = (s: PasskeySession) => passkeySessions.encode(s, keys.passkeySession(s.tenantId, s.storeName, s.sessionId));
const passkeyItem = (p: PasskeyRecord) => passkeys.encode(p, keys.passkey(p.tenantId, p.storeName, p.userId, p.id));

export const identityStoreStore: IdentityStoreStore = {
  create: (record) => putStore(record, { ConditionExpression: 'attribute_not_exists(PK)' }),
  get: (tenantId, name) => getRecord(identityStores, keys.identityStore(tenantId, name)),
  byName(tenantId) {
    const range: KeyRange = { pk: keys.identityStorePartition(tenantId), prefix: keys.identityStoreSortPrefix };
    return {
      async read(o) {
        const read = await readRange(range, o);
        const rows = read.items.flatMap((item, i) => {
          const record = identityStores.decode(item);
          return record ? [{ record, at: read.positions[i]! }] : [];
        });
        return { rows, done: read.done };
      },
      isPosition: (at) => STORE_POSITION.test(at),
      count: (cap) => countRange(range, cap),
    };
  },
  replace: (record, expectedVersion) => putStore(record, { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': expectedVersion } }),
};

export const identityUserStore: IdentityUserStore = {
  async create(record, event) {
    const written = await transactWrite({
      user: { Put: { Item: userItem(record), ConditionExpression: 'attribute_not_exists(PK)' } },
      externalId: { Put: { Item: externalIdLockItem(record), ConditionExpression: 'attribute_not_exists(PK)' } },
      ...eventPuts([event]),
    });
    // The user id is 128 random bits: a failed condition is the external id taken.
    return written.written ? { outcome: 'created' } : { outcome: 'externalIdTaken' };
  },
  async get(tenantId, storeName, ref) {
    let userId: string;
    if ('userId' in ref) {
      userId = ref.userId;
    } else {
      const lock = await getRecord(externalIdLocks, keys.identityUserExternalId(tenantId, storeName, ref.externalId));
      if (!lock) return undefined;
      userId = lock.userId;
    }
    return getRecord(users, keys.identityUser(tenantId, storeName, userId));
  },
};

export const passcodeStore: PasscodeStore = {
  get: (tenantId, storeName, userId, policyName) => getRecord(passcodes, keys.identityPasscode(tenantId, storeName, userId, policyName)),
  async saveSession(session) {
    await putNew(passcodeRegistrations.encode(session, keys.passcodeRegistration(session.tenantId, session.storeName, session.sessionId)));
  },
  async getSession(tenantId, storeName, sessionId, now) {
    return unexpired(await getRecord(passcodeRegistrations, keys.passcodeRegistration(tenantId, storeName, sessionId)), now);
  },
  async completeRegistration(session, passcode, user, event, now) {
    const outcome = await transactWrite({
      session: {
        Delete: {
          Key: keys.passcodeRegistration(session.tenantId, session.storeName, session.sessionId),
          ConditionExpression: 'attribute_exists(PK) AND expiresAt > :now',
          ExpressionAttributeValues: { ':now': Math.floor(now.getTime() / 1000) },
        },
      },
      passcode: { Put: { Item: passcodeItem(passcode) } },
      user: { Put: { Item: userItem(user), ConditionExpression: 'attribute_exists(PK)' } },
      ...eventPuts([event]),
    });
    return outcome.written;
  },
  async stage(session, staged, now) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.passcodeRegistration(session.tenantId, session.storeName, session.sessionId),
          UpdateExpression: 'SET staged = :staged',
          ConditionExpression: 'attribute_exists(PK) AND expiresAt > :now',
          ExpressionAttributeValues: { ':staged': staged, ':now': Math.floor(now.getTime() / 1000) },
        }),
      ),
    );
  },
  async saveLogin(session) {
    await putNew(loginItem(session));
  },
  async getLogin(tenantId, storeName, sessionId, now) {
    return unexpired(await getRecord(passcodeLogins, keys.passcodeLogin(tenantId, storeName, sessionId)), now);
  },
  async retryLogin(session, expectedAttempts, loginEvents, guard) {
    const outcome = await transactWrite({
      login: { Put: { Item: loginItem(session), ConditionExpression: 'attempts = :n', ExpressionAttributeValues: { ':n': expectedAttempts } } },
      guard: guardUpdate(session, guard),
      ...eventPuts(loginEvents),
    });
    return outcome.written;
  },
  async endLogin(session, expectedAttempts, loginEvents, guard, authentication) {
    const outcome = await transactWrite({
      login: {
        Delete: {
          Key: keys.passcodeLogin(session.tenantId, session.storeName, session.sessionId),
          ConditionExpression: 'attempts = :n',
          ExpressionAttributeValues: { ':n': expectedAttempts },
        },
      },
      guard: guard && guardUpdate(session, guard),
      ...eventPuts(loginEvents),
      authentication: authentication && { Put: { Item: authenticationItem(authentication) } },
    });
    return outcome.written;
  },
  async deregister(passcode, user, event) {
    const outcome = await transactWrite({
      passcode: { Put: { Item: passcodeItem(passcode), ConditionExpression: 'attribute_exists(#current)', ExpressionAttributeNames: { '#current': 'current' } } },
      user: { Put: { Item: userItem(user), ConditionExpression: 'attribute_exists(PK)' } },
      ...eventPuts([event]),
    });
    return outcome.written;
  },
};

/** A page token: the last key read, bound to the tenant's event partition so it cannot point elsewhere. */
function encodeToken(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ s: key.SK }), 'utf8').toString('base64url');
}

/** The key a page token stands for; undefined when it is not a token this query handed out. */
function decodeToken(tenantId: string, token: string): Record<string, unknown> | undefined {
  try {
    const { s } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { s: unknown };
    if (typeof s === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z#[0-9A-Z]{26}$/.test(s)) return { PK: keys.identityEventPartition(tenantId), SK: s };
  } catch {
    // falls through
  }
  return undefined;
}

export const identityEventStore: IdentityEventStore = {
  /** An event that goes with no other write (an authentication that failed, say): its two items together. */
  async put(event) {
    const outcome = await transactWrite(eventPuts([event]));
    if (!outcome.written) throw outcome.error;
  },
  async saveQuery(query) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: eventQueries.encode(query, keys.identityEventQuery(query.tenantId, query.executionId)) }));
  },
  async getQuery(tenantId, executionId, now) {
    return unexpired(await getRecord(eventQueries, keys.identityEventQuery(tenantId, executionId)), now);
  },
  async page(tenantId, filters, size, nextToken) {
    let start: Record<string, unknown> | undefined;
    if (nextToken) {
      start = decodeToken(tenantId, nextToken);
      if (!start) return { outcome: 'invalidPageToken' };
    }
    const { doc, tableName, commands } = await dynamo();
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':pk': keys.identityEventPartition(tenantId), ':t': events.itemType };
    // Past their retention, events are gone for every reader (TTL deletes them late).
    values[':now'] = Math.floor(Date.now() / 1000);
    const conditions = ['itemType = :t', '(attribute_not_exists(expiresAt) OR expiresAt > :now)'];
    // The sort key is `{at}#{id}`: a time range is a key range.
    values[':from'] = filters.from ?? '0000';
    values[':to'] = `${filters.to ?? '9999'}#~`;
    if (filters.storeName) (values[':store'] = filters.storeName), conditions.push('storeName = :store');
    if (filters.userId) (values[':user'] = filters.userId), conditions.push('userId = :user');
    if (filters.externalId) (values[':ext'] = filters.externalId), conditions.push('externalId = :ext');
    if (filters.types?.length) {
      names['#type'] = 'type';
      conditions.push(`#type IN (${filters.types.map((t, i) => ((values[`:type${i}`] = t), `:type${i}`)).join(', ')})`);
    }
    const found: IdentityEvent[] = [];
    // Filters apply after the read: read on until the page is full or the range is done.
    do {
      const out = await doc.send(
        new commands.QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          FilterExpression: conditions.join(' AND '),
          ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
          ExclusiveStartKey: start,
          Limit: size - found.length,
        }),
      );
      // The TTL attribute is the table's, not the event's.
      found.push(...events.decodeAll(out.Items ?? []).map(({ expiresAt: _ttl, ...e }: IdentityEvent & { expiresAt?: number }) => e));
      start = out.LastEvaluatedKey;
    } while (start && found.length < size);
    return { outcome: 'page', events: found, ...(start ? { nextToken: encodeToken(start) } : {}) };
  },
};

export const passkeyStore: PasskeyStore = {
  async saveSession(session) {
    const pending = session.kind === 'registration' && session.userId && session.newUserExternalId === undefined;
    const outcome = await transactWrite({
      session: { Put: { Item: sessionItem(session), ConditionExpression: 'attribute_not_exists(PK)' } },
      pending: pending ? { Put: { Item: pendingRegistrations.encode(session, keys.passkeyPendingRegistration(session.tenantId, session.storeName, session.userId!)) } } : undefined,
    });
    // 128 random bits: a session id taken is a broken random source, not a user's mistake.
    if (!outcome.written) throw new Error('passkey session id collision');
  },
  async getSession(tenantId, storeName, sessionId, now) {
    return unexpired(await getRecord(passkeySessions, keys.passkeySession(tenantId, storeName, sessionId)), now);
  },
  async latestRegistration(tenantId, storeName, userId, now) {
    const pending = unexpired(await getRecord(pendingRegistrations, keys.passkeyPendingRegistration(tenantId, storeName, userId)), now);
    if (!pending) return undefined;
    // Still pending only while its challenge is unspent.
    return (await passkeyStore.getSession(tenantId, storeName, pending.sessionId, now)) ? pending : undefined;
  },
  async dropSession(session) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.DeleteCommand({ TableName: tableName, Key: keys.passkeySession(session.tenantId, session.storeName, session.sessionId) }));
  },
  async listPasskeys(tenantId, storeName, userId) {
    return passkeys.decodeAll(await queryAll(keys.identityUserPartition(tenantId, storeName, userId), keys.passkeySortPrefix));
  },
  getPasskey: (tenantId, storeName, userId, passkeyId) => getRecord(passkeys, keys.passkey(tenantId, storeName, userId, passkeyId)),
  async findByCredentialId(tenantId, storeName, credentialId) {
    if (!credentialId || credentialId.length > 1400) return undefined;
    const lock = await getRecord(credentialLocks, keys.passkeyCredential(tenantId, storeName, credentialId));
    if (!lock) return undefined;
    return passkeyStore.getPasskey(tenantId, storeName, lock.userId, lock.passkeyId);
  },
  async register(session, passkey, user, isNewUser, event) {
    const outcome = await transactWrite({
      session: { Delete: { Key: keys.passkeySession(session.tenantId, session.storeName, session.sessionId), ConditionExpression: 'attribute_exists(PK)' } },
      credential: {
        Put: {
          Item: credentialLocks.encode({ userId: passkey.userId, passkeyId: passkey.id }, keys.passkeyCredential(passkey.tenantId, passkey.storeName, passkey.credentialId)),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      passkey: { Put: { Item: passkeyItem(passkey) } },
      user: { Put: { Item: userItem(user), ConditionExpression: isNewUser ? 'attribute_not_exists(PK)' : 'attribute_exists(PK)' } },
      ...eventPuts([event]),
      externalId: isNewUser ? { Put: { Item: externalIdLockItem(user), ConditionExpression: 'attribute_not_exists(PK)' } } : undefined,
    });
    if (outcome.written) return { outcome: 'registered' };
    if (outcome.failed.includes('session')) return { outcome: 'sessionGone' };
    if (outcome.failed.includes('credential')) return { outcome: 'credentialTaken' };
    if (outcome.failed.includes('externalId')) return { outcome: 'externalIdTaken' };
    return { outcome: 'sessionGone' };
  },
  async authenticated(session, passkey, previousCounter, record, event) {
    const outcome = await transactWrite({
      session: { Delete: { Key: keys.passkeySession(session.tenantId, session.storeName, session.sessionId), ConditionExpression: 'attribute_exists(PK)' } },
      passkey: {
        Put: {
          Item: passkeyItem(passkey),
          ConditionExpression: 'attribute_exists(PK) AND #counter = :old',
          ExpressionAttributeNames: { '#counter': 'counter' },
          ExpressionAttributeValues: { ':old': previousCounter },
        },
      },
      authentication: { Put: { Item: authenticationItem(record) } },
      ...eventPuts([event]),
    });
    return outcome.written;
  },
  authenticationsOf(tenantId, storeName, userId) {
    const range: KeyRange = { pk: keys.identityUserPartition(tenantId, storeName, userId), prefix: keys.userAuthenticationSortPrefix };
    return {
      async read(o) {
        const read = await readRange(range, o);
        const rows = read.items.flatMap((item, i) => {
          const record = authentications.decode(item);
          return record ? [{ record, at: read.positions[i]! }] : [];
        });
        return { rows, done: read.done };
      },
      isPosition: (at) => AUTHENTICATION_POSITION.test(at),
      count: (cap) => countRange(range, cap),
    };
  },
};
