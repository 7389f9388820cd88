import type { CloudSecretRecord, CloudSecretStore, CloudSecretSummary } from '../cloud-functions/model.js';
import { itemCodec } from './codec.js';
import { conditionally, dynamo, queryAll, transactWrite } from './client.js';
import { keys } from './keys.js';
import { isIndexed, markIndexed } from './list-meta.js';
import { countRange, readRange, type KeyRange } from './ranges.js';

const secrets = /* @__PURE__ */ itemCodec<CloudSecretRecord>('CloudSecret');
/** A secret's list view: its summary, written with every change of the secret. */
const views = /* @__PURE__ */ itemCodec<CloudSecretSummary>('CloudSecretView');
const viewItem = (record: CloudSecretRecord) => views.encode(summaryOf(record), keys.cloudSecretView(record.tenantId, record.name));
const VIEW_POSITION = /^SECRETN#[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function summaryOf(r: CloudSecretRecord): CloudSecretSummary {
  const { tenantId: _tenant, sealed: _sealed, ...summary } = r;
  return summary;
}

/** Writes a secret's item and its list view, the item only if `condition` holds; false when it does not. */
async function put(record: CloudSecretRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }): Promise<boolean> {
  const outcome = await transactWrite({
    secret: { Put: { Item: secrets.encode(record, keys.cloudSecret(record.tenantId, record.name)), ...condition } },
    view: { Put: { Item: viewItem(record) } },
  });
  if (outcome.written) return true;
  if (outcome.failed.includes('secret')) return false;
  throw outcome.error;
}

/** One item per secret name; its sealed value never leaves this store but to the activity that unseals it. */
export const cloudSecretStore: CloudSecretStore = {
  async create(record) {
    return { outcome: (await put(record, { ConditionExpression: 'attribute_not_exists(PK)' })) ? 'written' : 'exists' };
  },

  async get(tenantId, name) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.cloudSecret(tenantId, name), ConsistentRead: true }));
    return secrets.decode(out.Item);
  },

  async getMany(tenantId, names) {
    const unique = [...new Set(names)];
    const found = await Promise.all(unique.map((name) => cloudSecretStore.get(tenantId, name)));
    return found.filter((r): r is CloudSecretRecord => r !== undefined);
  },

  async replace(record, fromVersion) {
    if (await put(record, { ConditionExpression: 'version = :from', ExpressionAttributeValues: { ':from': fromVersion } })) return { outcome: 'written' };
    return (await cloudSecretStore.get(record.tenantId, record.name)) ? { outcome: 'changed' } : { outcome: 'gone' };
  },

  async delete(tenantId, name) {
    const outcome = await transactWrite({
      secret: { Delete: { Key: keys.cloudSecret(tenantId, name), ConditionExpression: 'attribute_exists(PK)' } },
      view: { Delete: { Key: keys.cloudSecretView(tenantId, name) } },
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('secret')) return false;
    throw outcome.error;
  },

  async list(tenantId) {
    return secrets.decodeAll(await queryAll(keys.cloudSecretPartition(tenantId), 'SECRET#')).map(summaryOf);
  },

  async viewed(tenantId) {
    return isIndexed(keys.listMeta(keys.cloudSecretPartition(tenantId)));
  },

  byName(tenantId, namePrefix = '') {
    // A name prefix is a key range of the views: names hold no separator, as the API takes them.
    const range: KeyRange = { pk: keys.cloudSecretPartition(tenantId), prefix: `${keys.cloudSecretViewPrefix}${namePrefix}` };
    return {
      async read(o) {
        const read = await readRange(range, o);
        const rows = read.items.flatMap((item, i) => {
          const record = views.decode(item);
          return record ? [{ record, at: read.positions[i]! }] : [];
        });
        return { rows, done: read.done };
      },
      isPosition: (at) => at.startsWith(range.prefix) && VIEW_POSITION.test(at),
      count: (cap) => countRange(range, cap),
    };
  },

  async backfillViews(tenantId) {
    const partition = keys.cloudSecretPartition(tenantId);
    const { doc, tableName, commands } = await dynamo();
    const stored = secrets.decodeAll(await queryAll(partition, 'SECRET#'));
    let written = 0;
    for (const record of stored) {
      // Only a missing view: one a rotation wrote meanwhile is newer.
      if (await conditionally(() => doc.send(new commands.PutCommand({ TableName: tableName, Item: viewItem(record), ConditionExpression: 'attribute_not_exists(PK)' })))) written++;
    }
    // A view of a secret deleted while this ran goes (a deletion after this read deletes its view itself).
    const names = new Set(secrets.decodeAll(await queryAll(partition, 'SECRET#')).map((r) => r.name));
    for (const item of await queryAll(partition, keys.cloudSecretViewPrefix)) {
      const view = views.decode(item);
      if (view && !names.has(view.name)) {
        await doc.send(new commands.DeleteCommand({ TableName: tableName, Key: keys.cloudSecretView(tenantId, view.name) }));
      }
    }
    await markIndexed(keys.listMeta(partition));
    return { items: stored.length, views: written };
  },
};
