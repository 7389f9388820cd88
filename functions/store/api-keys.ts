import type { ApiKeyRecord, ApiKeyStore, DirectOperation } from '../api-keys/domain.js';
import type { Row } from '../shared/keyed-list.js';
import { itemCodec } from './codec.js';
import { conditionally, dynamo, isConditionFailure, queryAll, transactWrite } from './client.js';
import { keys } from './keys.js';
import { countUpdate, readListMeta, settleCount } from './list-meta.js';
import { getMany, readRange, type KeyRange } from './ranges.js';

const apiKeys = /* @__PURE__ */ itemCodec<ApiKeyRecord>('ApiKey');
/** A key's list view: what the list filters on (the name, rewritten with every update) and the key's id. */
const views = /* @__PURE__ */ itemCodec<{ apiKeyId: string; name: string }>('ApiKeyView');

function toItem(record: ApiKeyRecord) {
  return apiKeys.encode(record, keys.apiKey(record.tenantId, record.id));
}

const viewItem = (record: Pick<ApiKeyRecord, 'tenantId' | 'id' | 'name' | 'createdDtm'>) =>
  views.encode({ apiKeyId: record.id, name: record.name }, keys.apiKeyView(record.tenantId, record.createdDtm, record.id));

const VIEW_POSITION = /^APIKEYC#\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z#[0-9a-f-]{36}$/;

/** DynamoDB implementation of the API key domain's storage; every key comes from `keys.ts`. */
export const apiKeyStore: ApiKeyStore = {
  async create(record) {
    // The key, its list view and the tenant's count of keys, together.
    const outcome = await transactWrite(
      {
        key: { Put: { Item: toItem(record), ConditionExpression: 'attribute_not_exists(PK)' } },
        view: { Put: { Item: viewItem(record) } },
        count: countUpdate(keys.apiKeyPartition(record.tenantId), 1),
      },
      { retryConflicts: 5 },
    );
    if (!outcome.written) throw outcome.error;
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.apiKey(tenantId, id), ConsistentRead: true }));
    return apiKeys.decode(out.Item);
  },

  async list(tenantId) {
    return apiKeys.decodeAll(await queryAll(keys.apiKeyPartition(tenantId), keys.apiKeySortPrefix));
  },

  async replace(record) {
    // The view again with it: it holds the name, which an update may change.
    const outcome = await transactWrite({
      key: {
        Put: {
          Item: toItem(record),
          ConditionExpression: '#version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': record.version - 1 },
        },
      },
      view: { Put: { Item: viewItem(record) } },
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('key')) return false;
    throw outcome.error;
  },

  async delete(record, version) {
    const outcome = await transactWrite(
      {
        key: {
          Delete: {
            Key: keys.apiKey(record.tenantId, record.id),
            ...(version === undefined
              ? { ConditionExpression: 'attribute_exists(PK)' }
              : { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } }),
          },
        },
        view: { Delete: { Key: keys.apiKeyView(record.tenantId, record.createdDtm, record.id) } },
        count: countUpdate(keys.apiKeyPartition(record.tenantId), -1),
      },
      { retryConflicts: 5 },
    );
    if (outcome.written) return true;
    if (outcome.failed.includes('key')) return false;
    throw outcome.error;
  },

  async listMeta(tenantId) {
    const meta = await readListMeta(keys.listMeta(keys.apiKeyPartition(tenantId)));
    return meta.indexed === true ? { total: Math.max(0, meta.total ?? 0) } : undefined;
  },

  byCreation(tenantId) {
    const range: KeyRange = { pk: keys.apiKeyPartition(tenantId), prefix: keys.apiKeyViewPrefix };
    const partial = (item: Record<string, unknown>) => {
      const view = views.decode(item);
      return { id: view?.apiKeyId ?? '', name: view?.name ?? '' } as ApiKeyRecord;
    };
    const load = async (rows: Row<ApiKeyRecord>[]) => {
      const found = new Map(apiKeys.decodeAll(await getMany(rows.filter((r) => r.record.id).map((r) => keys.apiKey(tenantId, r.record.id)))).map((k) => [k.id, k]));
      return rows.flatMap((r) => (found.has(r.record.id) ? [{ record: found.get(r.record.id)!, at: r.at }] : []));
    };
    return {
      async read(o) {
        const read = await readRange(range, { ...o, projection: o.projection ? ['apiKeyId', 'name'] : undefined });
        const rows = read.items.map((item, i) => ({ record: partial(item), at: read.positions[i]! }));
        return { rows: o.projection ? rows : await load(rows), done: read.done };
      },
      load,
      isPosition: (at) => VIEW_POSITION.test(at),
      // The count the list keeps with every create and delete (listMeta); this is asked only when that is not there.
      count: async () => ({ count: (await apiKeyStore.listMeta(tenantId))?.total ?? 0, capped: false, kept: true }),
    };
  },

  async backfillViews(tenantId) {
    const partition = keys.apiKeyPartition(tenantId);
    const metaKey = keys.listMeta(partition);
    const { doc, tableName, commands } = await dynamo();
    for (let attempt = 0; ; attempt++) {
      const seen = await readListMeta(metaKey);
      if (seen.indexed) return { items: 0, views: 0 };
      const stored = apiKeys.decodeAll(await queryAll(partition, keys.apiKeySortPrefix));
      let written = 0;
      for (const record of stored) {
        // Only a missing view: one an update wrote meanwhile holds the newer name.
        if (await conditionally(() => doc.send(new commands.PutCommand({ TableName: tableName, Item: viewItem(record), ConditionExpression: 'attribute_not_exists(PK)' })))) written++;
      }
      // A view whose key is gone (deleted while an earlier attempt ran) goes too.
      const ids = new Set(stored.map((r) => r.id));
      for (const item of await queryAll(partition, keys.apiKeyViewPrefix)) {
        if (!ids.has(views.decode(item)?.apiKeyId ?? '')) await doc.send(new commands.DeleteCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }));
      }
      // The count holds only if no key was created or deleted since `seen` (they move `changes`): else again.
      if (await settleCount(metaKey, seen, stored.length)) return { items: stored.length, views: written };
      if (attempt >= 10) throw new Error(`the API keys of ${tenantId} kept changing during the backfill; run it again`);
    }
  },

  async recordIssue(tenantId, id, secretHash, now, operation: DirectOperation) {
    const { doc, tableName, commands } = await dynamo();
    try {
      const out = await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.apiKey(tenantId, id),
          UpdateExpression: 'SET lastIssuedAtDtm = :now',
          ConditionExpression:
            'secretHash = :hash AND #status = :active' +
            ' AND (attribute_not_exists(expiringDtm) OR expiringDtm = :null OR expiringDtm > :now)' +
            ' AND (size(permittedOperations) = :zero OR contains(permittedOperations, :op))',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':now': now,
            ':hash': secretHash,
            ':active': 'ACTIVE',
            ':null': null,
            ':zero': 0,
            ':op': operation,
          },
          ReturnValues: 'ALL_NEW',
          // One round trip either way: on refusal DynamoDB hands back the item to explain it.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { outcome: 'issued', record: apiKeys.decode(out.Attributes)! };
    } catch (err) {
      if (isConditionFailure(err)) {
        const { unmarshall } = await import('@aws-sdk/util-dynamodb');
        return { outcome: 'refused', current: err.Item ? apiKeys.decode(unmarshall(err.Item as never)) : undefined };
      }
      throw err;
    }
  },
};
