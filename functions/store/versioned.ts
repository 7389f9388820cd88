import type { VersionedStore, VersionedSummary } from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { dynamo, transactWrite } from './client.js';
import { keys, type VersionedKind } from './keys.js';
import { countRange, readRange, type KeyRange } from './ranges.js';

/**
 * The store of one kind of artifact kept by name and version (keys.versioned): the version's
 * item with its content, and its name + version item with its summary.
 */
export function versionedStore<R extends S & { tenantId: string }, S extends VersionedSummary>(
  kind: VersionedKind,
  itemTypes: { version: string; nameVersion: string },
  summaryOf: (record: R) => S,
): VersionedStore<R, S> {
  const k = keys.versioned(kind);
  const records = itemCodec<R>(itemTypes.version);
  const summaries = itemCodec<S>(itemTypes.nameVersion);

  const store: VersionedStore<R, S> = {
    async create(record) {
      // name + version is unique and immutable: the name + version item makes a second one fail.
      const outcome = await transactWrite({
        record: { Put: { Item: records.encode(record, k.item(record.tenantId, record.id)), ConditionExpression: 'attribute_not_exists(PK)' } },
        version: {
          Put: {
            Item: summaries.encode(summaryOf(record), k.nameVersion(record.tenantId, record.name, record.version)),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      });
      return outcome.written;
    },

    async get(tenantId, id) {
      const { doc, tableName, commands } = await dynamo();
      const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: k.item(tenantId, id), ConsistentRead: true }));
      return records.decode(out.Item);
    },

    async getVersion(tenantId, name, version) {
      const { doc, tableName, commands } = await dynamo();
      const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: k.nameVersion(tenantId, name, version), ConsistentRead: true }));
      return summaries.decode(out.Item);
    },

    async latestVersion(tenantId, name) {
      const { doc, tableName, commands } = await dynamo();
      // Version sort keys are zero-padded, so the last item of the name's prefix is the highest.
      const out = await doc.send(
        new commands.QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
          ExpressionAttributeValues: { ':pk': k.partition(tenantId), ':sk': k.versionsPrefix(name) },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      return summaries.decodeAll(out.Items ?? [])[0]?.version;
    },

    versionsOf(tenantId, name) {
      const range: KeyRange = { pk: k.partition(tenantId), prefix: k.versionsPrefix(name) };
      return {
        async read(o) {
          const read = await readRange(range, o);
          const rows = read.items.flatMap((item, i) => {
            const summary = summaries.decode(item);
            return summary ? [{ record: summary, at: read.positions[i]! }] : [];
          });
          return { rows, done: read.done };
        },
        isPosition: (at) => at.startsWith(range.prefix) && /^\d{9}$/.test(at.slice(range.prefix.length)),
        count: (cap) => countRange(range, cap),
      };
    },

    async setStatus(record, from, to, by) {
      // Both items change together, each only if it still has the status the caller read.
      const update = {
        UpdateExpression: 'SET #status = :to, lastUpdatedDtm = :now, lastUpdatedBy = :by',
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':to': to, ':from': from, ':now': by.now.toISOString(), ':by': by.actor },
      };
      const outcome = await transactWrite({
        record: { Update: { Key: k.item(record.tenantId, record.id), ...update } },
        version: { Update: { Key: k.nameVersion(record.tenantId, record.name, record.version), ...update } },
      });
      if (outcome.written) return { outcome: 'updated' };
      return (await store.get(record.tenantId, record.id)) ? { outcome: 'changed' } : { outcome: 'gone' };
    },
  };
  return store;
}
