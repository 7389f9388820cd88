import type { IdentityStoreRecord, IdentityStoreStore } from '../identity-store/stores.js';
import type { IdentityUserRecord, IdentityUserStore } from '../identity-store/users.js';
import type { IdentityEvent, IdentityEventStore, EventQueryRecord } from '../identity-store/events.js';
import type { AuthenticationRecord, PasskeyRecord, PasskeySession, PasskeyStore } from '../identity-store/passkeys.js';
import type { PasscodeLoginSession, PasscodeRecord, PasscodeRegistrationSession, PasscodeStore } from '../identity-store/passcodes.js';
import { ValidationError } from '../errors.js';
import { cancellationReasons, conditionally, dynamo, isTransactionConflict, queryAll } from './client.js';
import { keys } from './keys.js';

function strip<T>(item: Record<string, unknown> | undefined, itemType: string): T | undefined {
  if (!item || item.itemType !== itemType) return undefined;
  const { PK: _pk, SK: _sk, itemType: _t, ...record } = item;
  return record as T;
}

async function getItem(key: { PK: string; SK: string }): Promise<Record<string, unknown> | undefined> {
  const { doc, tableName, commands } = await dynamo();
  return (await doc.send(new commands.GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
}

/** An item with a TTL, as absent once expired (before DynamoDB's TTL sweep catches up). */
async function getUnexpired<T extends { expiresAt: number }>(key: { PK: string; SK: string }, itemType: string, now: Date): Promise<T | undefined> {
  const record = strip<T>(await getItem(key), itemType);
  return record && record.expiresAt * 1000 > now.getTime() ? record : undefined;
}

/** Puts an item that must not exist yet (a fresh id). */
async function putNew(item: Record<string, unknown>): Promise<void> {
  const { doc, tableName, commands } = await dynamo();
  await doc.send(new commands.PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
}

/** A store record written only when `condition` holds (it is new; it is still the version read). */
async function putStore(record: IdentityStoreRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }) {
  const { doc, tableName, commands } = await dynamo();
  return conditionally(() =>
    doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.identityStore(record.tenantId, record.name), itemType: 'IdentityStore', ...record }, ...condition })),
  );
}

export const identityStoreStore: IdentityStoreStore = {
  create: (record) => putStore(record, { ConditionExpression: 'attribute_not_exists(PK)' }),
  async get(tenantId, name) {
    return strip<IdentityStoreRecord>(await getItem(keys.identityStore(tenantId, name)), 'IdentityStore');
  },
  async list(tenantId) {
    const items = await queryAll(keys.identityStorePartition(tenantId), keys.identityStoreSortPrefix);
    return items.map((i) => strip<IdentityStoreRecord>(i, 'IdentityStore')).filter((r): r is IdentityStoreRecord => !!r);
  },
  replace: (record, expectedVersion) => putStore(record, { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': expectedVersion } }),
};

function userItem(u: IdentityUserRecord) {
  return { ...keys.identityUser(u.tenantId, u.storeName, u.id), itemType: 'IdentityUser', ...u };
}

export const identityUserStore: IdentityUserStore = {
  async create(record, event) {
    const lock = { ...keys.identityUserExternalId(record.tenantId, record.storeName, record.externalId), itemType: 'IdentityUserExternalId', userId: record.id };
    // The user id is 128 random bits: a failed condition is the external id taken.
    const created = await transact([
      { Put: { Item: userItem(record), ConditionExpression: 'attribute_not_exists(PK)' } },
      { Put: { Item: lock, ConditionExpression: 'attribute_not_exists(PK)' } },
      { Put: { Item: eventItem(event) } },
    ]);
    return created ? 'created' : 'externalIdTaken';
  },
  async get(tenantId, storeName, ref) {
    let userId: string;
    if ('userId' in ref) {
      userId = ref.userId;
    } else {
      const lock = await getItem(keys.identityUserExternalId(tenantId, storeName, ref.externalId));
      if (!lock || lock.itemType !== 'IdentityUserExternalId') return undefined;
      userId = String(lock.userId);
    }
    return strip<IdentityUserRecord>(await getItem(keys.identityUser(tenantId, storeName, userId)), 'IdentityUser');
  },
};

/** A transaction (the table name filled in); false when a condition failed. */
async function transact(items: Record<string, Record<string, unknown>>[]): Promise<boolean> {
  return (await transactReasons(items)) === undefined;
}

/** A transaction; undefined when it was written, else why each item was cancelled. */
async function transactReasons(items: Record<string, Record<string, unknown>>[]): Promise<string[] | undefined> {
  const { doc, tableName, commands } = await dynamo();
  const TransactItems = items.map((item) =>
    Object.fromEntries(Object.entries(item).map(([op, body]) => [op, { TableName: tableName, ...body }])),
  ) as NonNullable<import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput['TransactItems']>;
  try {
    await doc.send(new commands.TransactWriteCommand({ TransactItems }));
    return undefined;
  } catch (err) {
    if (isTransactionConflict(err)) return cancellationReasons(err)!;
    throw err;
  }
}

function passcodeItem(p: PasscodeRecord) {
  return { ...keys.identityPasscode(p.tenantId, p.storeName, p.userId, p.policyName), itemType: 'IdentityPasscode', ...p };
}

function eventItem(e: IdentityEvent) {
  return { ...keys.identityEvent(e.tenantId, e.at, e.eventId), itemType: 'IdentityEvent', ...e };
}

export const passcodeStore: PasscodeStore = {
  async get(tenantId, storeName, userId, policyName) {
    return strip<PasscodeRecord>(await getItem(keys.identityPasscode(tenantId, storeName, userId, policyName)), 'IdentityPasscode');
  },
  async saveSession(session) {
    await putNew({ ...keys.passcodeRegistration(session.tenantId, session.storeName, session.sessionId), itemType: 'PasscodeRegistration', ...session });
  },
  async getSession(tenantId, storeName, sessionId, now) {
    return getUnexpired<PasscodeRegistrationSession>(keys.passcodeRegistration(tenantId, storeName, sessionId), 'PasscodeRegistration', now);
  },
  async completeRegistration(session, passcode, user, event, now) {
    return transact([
      {
        Delete: {
          Key: keys.passcodeRegistration(session.tenantId, session.storeName, session.sessionId),
          ConditionExpression: 'attribute_exists(PK) AND expiresAt > :now',
          ExpressionAttributeValues: { ':now': Math.floor(now.getTime() / 1000) },
        },
      },
      { Put: { Item: passcodeItem(passcode) } },
      { Put: { Item: userItem(user), ConditionExpression: 'attribute_exists(PK)' } },
      { Put: { Item: eventItem(event) } },
    ]);
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
    await putNew({ ...keys.passcodeLogin(session.tenantId, session.storeName, session.sessionId), itemType: 'PasscodeLogin', ...session });
  },
  async getLogin(tenantId, storeName, sessionId, now) {
    return getUnexpired<PasscodeLoginSession>(keys.passcodeLogin(tenantId, storeName, sessionId), 'PasscodeLogin', now);
  },
  async retryLogin(session, expectedAttempts, event) {
    return transact([
      {
        Put: {
          Item: { ...keys.passcodeLogin(session.tenantId, session.storeName, session.sessionId), itemType: 'PasscodeLogin', ...session },
          ConditionExpression: 'attempts = :n',
          ExpressionAttributeValues: { ':n': expectedAttempts },
        },
      },
      { Put: { Item: eventItem(event) } },
    ]);
  },
  async endLogin(session, expectedAttempts, event, authentication) {
    return transact([
      {
        Delete: {
          Key: keys.passcodeLogin(session.tenantId, session.storeName, session.sessionId),
          ConditionExpression: 'attempts = :n',
          ExpressionAttributeValues: { ':n': expectedAttempts },
        },
      },
      { Put: { Item: eventItem(event) } },
      ...(authentication ? [{ Put: { Item: authenticationItem(authentication) } }] : []),
    ]);
  },
  async deregister(passcode, user, event) {
    return transact([
      { Put: { Item: passcodeItem(passcode), ConditionExpression: 'attribute_exists(#current)', ExpressionAttributeNames: { '#current': 'current' } } },
      { Put: { Item: userItem(user), ConditionExpression: 'attribute_exists(PK)' } },
      { Put: { Item: eventItem(event) } },
    ]);
  },
};


/** A page token: the last key read, bound to the tenant's event partition so it cannot point elsewhere. */
function encodeToken(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ s: key.SK }), 'utf8').toString('base64url');
}

function decodeToken(tenantId: string, token: string): Record<string, unknown> {
  try {
    const { s } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { s: unknown };
    if (typeof s === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z#[0-9A-Z]{26}$/.test(s)) return { PK: keys.identityEventPartition(tenantId), SK: s };
  } catch {
    // falls through
  }
  throw new ValidationError('The page token is not valid.', [{ location: 'query.nextToken', message: 'must be a nextToken from this query' }]);
}

export const identityEventStore: IdentityEventStore = {
  /** An event that goes with no other write (an authentication that failed, say). */
  async put(event) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: eventItem(event) }));
  },
  async saveQuery(query) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.identityEventQuery(query.tenantId, query.executionId), itemType: 'IdentityEventQuery', ...query } }));
  },
  async getQuery(tenantId, executionId, now) {
    return getUnexpired<EventQueryRecord>(keys.identityEventQuery(tenantId, executionId), 'IdentityEventQuery', now);
  },
  async page(tenantId, filters, size, nextToken) {
    const { doc, tableName, commands } = await dynamo();
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':pk': keys.identityEventPartition(tenantId), ':t': 'IdentityEvent' };
    const conditions = ['itemType = :t'];
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
    const events: IdentityEvent[] = [];
    let start = nextToken ? decodeToken(tenantId, nextToken) : undefined;
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
          Limit: size - events.length,
        }),
      );
      for (const item of out.Items ?? []) events.push(strip<IdentityEvent>(item, 'IdentityEvent')!);
      start = out.LastEvaluatedKey;
    } while (start && events.length < size);
    return { events, ...(start ? { nextToken: encodeToken(start) } : {}) };
  },
};

function authenticationItem(r: AuthenticationRecord) {
  return { ...keys.userAuthentication(r.tenantId, r.storeName, r.userId, r.at, r.id), itemType: 'UserAuthentication', ...r };
}

function sessionItem(session: PasskeySession) {
  return { ...keys.passkeySession(session.tenantId, session.storeName, session.sessionId), itemType: 'PasskeySession', ...session };
}

function passkeyItem(p: PasskeyRecord) {
  return { ...keys.passkey(p.tenantId, p.storeName, p.userId, p.id), itemType: 'Passkey', ...p };
}

export const passkeyStore: PasskeyStore = {
  async saveSession(session) {
    const items: Record<string, Record<string, unknown>>[] = [{ Put: { Item: sessionItem(session), ConditionExpression: 'attribute_not_exists(PK)' } }];
    if (session.kind === 'registration' && session.userId && session.newUserExternalId === undefined) {
      items.push({ Put: { Item: { ...keys.passkeyPendingRegistration(session.tenantId, session.storeName, session.userId), itemType: 'PasskeyPending', ...session } } });
    }
    if (!(await transact(items))) throw new Error('passkey session id collision');
  },
  async getSession(tenantId, storeName, sessionId, now) {
    return getUnexpired<PasskeySession>(keys.passkeySession(tenantId, storeName, sessionId), 'PasskeySession', now);
  },
  async latestRegistration(tenantId, storeName, userId, now) {
    const pending = strip<PasskeySession>(await getItem(keys.passkeyPendingRegistration(tenantId, storeName, userId)), 'PasskeyPending');
    if (!pending || pending.expiresAt * 1000 <= now.getTime()) return undefined;
    // Still pending only while its challenge is unspent.
    return (await passkeyStore.getSession(tenantId, storeName, pending.sessionId, now)) ? pending : undefined;
  },
  async dropSession(session) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.DeleteCommand({ TableName: tableName, Key: keys.passkeySession(session.tenantId, session.storeName, session.sessionId) }));
  },
  async listPasskeys(tenantId, storeName, userId) {
    const items = await queryAll(keys.identityUserPartition(tenantId, storeName, userId), keys.passkeySortPrefix);
    return items.map((i) => strip<PasskeyRecord>(i, 'Passkey')).filter((p): p is PasskeyRecord => !!p);
  },
  async getPasskey(tenantId, storeName, userId, passkeyId) {
    return strip<PasskeyRecord>(await getItem(keys.passkey(tenantId, storeName, userId, passkeyId)), 'Passkey');
  },
  async findByCredentialId(tenantId, storeName, credentialId) {
    if (!credentialId || credentialId.length > 1400) return undefined;
    const lock = await getItem(keys.passkeyCredential(tenantId, storeName, credentialId));
    if (!lock || lock.itemType !== 'PasskeyCredential') return undefined;
    return passkeyStore.getPasskey(tenantId, storeName, String(lock.userId), String(lock.passkeyId));
  },
  async register(session, passkey, user, isNewUser, event) {
    const items: Record<string, Record<string, unknown>>[] = [
      { Delete: { Key: keys.passkeySession(session.tenantId, session.storeName, session.sessionId), ConditionExpression: 'attribute_exists(PK)' } },
      {
        Put: {
          Item: { ...keys.passkeyCredential(passkey.tenantId, passkey.storeName, passkey.credentialId), itemType: 'PasskeyCredential', userId: passkey.userId, passkeyId: passkey.id },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      { Put: { Item: passkeyItem(passkey) } },
      { Put: { Item: userItem(user), ConditionExpression: isNewUser ? 'attribute_not_exists(PK)' : 'attribute_exists(PK)' } },
      { Put: { Item: eventItem(event) } },
    ];
    if (isNewUser) {
      items.push({
        Put: {
          Item: { ...keys.identityUserExternalId(user.tenantId, user.storeName, user.externalId), itemType: 'IdentityUserExternalId', userId: user.id },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      });
    }
    const reasons = await transactReasons(items);
    if (!reasons) return 'ok';
    if (reasons[0] === 'ConditionalCheckFailed') return 'sessionGone';
    if (reasons[1] === 'ConditionalCheckFailed') return 'credentialTaken';
    if (reasons[5] === 'ConditionalCheckFailed') return 'externalIdTaken';
    return 'sessionGone';
  },
  async authenticated(session, passkey, previousCounter, record, event) {
    return transact([
      { Delete: { Key: keys.passkeySession(session.tenantId, session.storeName, session.sessionId), ConditionExpression: 'attribute_exists(PK)' } },
      { Put: { Item: passkeyItem(passkey), ConditionExpression: 'attribute_exists(PK) AND #counter = :old', ExpressionAttributeNames: { '#counter': 'counter' }, ExpressionAttributeValues: { ':old': previousCounter } } },
      { Put: { Item: authenticationItem(record) } },
      { Put: { Item: eventItem(event) } },
    ]);
  },
  async listAuthentications(tenantId, storeName, userId) {
    const items = await queryAll(keys.identityUserPartition(tenantId, storeName, userId), keys.userAuthenticationSortPrefix);
    return items.map((i) => strip<AuthenticationRecord>(i, 'UserAuthentication')).filter((r): r is AuthenticationRecord => !!r);
  },
};
