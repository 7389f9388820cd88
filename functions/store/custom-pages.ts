import type { CustomPageRecord, CustomPageStore, CustomPageSummary, CustomPageUpload } from '../theme-server/model.js';
import { itemCodec } from './codec.js';
import { dynamo, transactWrite } from './client.js';
import { keys } from './keys.js';
import { countRange, readRange, type KeyRange } from './ranges.js';
import { versionedStore } from './versioned.js';

const k = keys.versioned('customPage');
const summaries = itemCodec<CustomPageSummary>('CustomPageVersion');
const uploads = itemCodec<CustomPageUpload>('CustomPageUpload');
const uploadKey = (tenantId: string, uploadId: string) => ({ PK: k.partition(tenantId), SK: `CPGUP#${uploadId}` });

function summaryOf({ tenantId: _t, baseAppUrl: _u, servingSecret: _s, archiveEntries: _e, archiveBytes: _b, ...summary }: CustomPageRecord): CustomPageSummary {
  return summary;
}

const base = /* @__PURE__ */ versionedStore<CustomPageRecord, CustomPageSummary>('customPage', { version: 'CustomPage', nameVersion: 'CustomPageVersion' }, summaryOf);

/** Custom page versions (by name and version, as data forms) and their pending uploads. */
export const customPageStore: CustomPageStore = {
  ...base,

  async replace(record, expectedUpdatedDtm) {
    const set = (fields: Record<string, unknown>) => {
      const names = Object.keys(fields);
      return {
        UpdateExpression: `SET ${names.map((n, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: '#upd = :expected',
        ExpressionAttributeNames: { '#upd': 'lastUpdatedDtm', ...Object.fromEntries(names.map((n, i) => [`#f${i}`, n])) },
        ExpressionAttributeValues: { ':expected': expectedUpdatedDtm, ...Object.fromEntries(names.map((n, i) => [`:v${i}`, fields[n]])) },
      };
    };
    const { tenantId: _t, id: _id, name: _n, version: _v, ...fields } = record;
    const { id: _sid, name: _sn, version: _sv, ...summaryFields } = summaryOf(record);
    const outcome = await transactWrite({
      record: { Update: { Key: k.item(record.tenantId, record.id), ...set(fields) } },
      version: { Update: { Key: k.nameVersion(record.tenantId, record.name, record.version), ...set(summaryFields) } },
    });
    if (outcome.written) return { outcome: 'updated' };
    return (await base.get(record.tenantId, record.id)) ? { outcome: 'changed' } : { outcome: 'gone' };
  },

  all(tenantId) {
    // Every name's version items, by name then version: the name + version prefix without a name.
    const prefix = k.versionsPrefix('').slice(0, -1);
    const range: KeyRange = { pk: k.partition(tenantId), prefix };
    return {
      async read(o) {
        const read = await readRange(range, o);
        const rows = read.items.flatMap((item, i) => {
          const summary = summaries.decode(item);
          return summary ? [{ record: summary, at: read.positions[i]! }] : [];
        });
        return { rows, done: read.done };
      },
      isPosition: (at) => at.startsWith(prefix) && /#\d{9}$/.test(at),
      count: (cap) => countRange(range, cap),
    };
  },

  async remove(record) {
    const outcome = await transactWrite({
      record: { Delete: { Key: k.item(record.tenantId, record.id), ConditionExpression: 'attribute_exists(PK)' } },
      version: { Delete: { Key: k.nameVersion(record.tenantId, record.name, record.version) } },
    });
    return outcome.written;
  },

  async putUpload(upload) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: uploads.encode(upload, uploadKey(upload.tenantId, upload.uploadId)) }));
  },

  async takeUpload(tenantId, uploadId) {
    const { doc, tableName, commands } = await dynamo();
    try {
      const out = await doc.send(
        new commands.DeleteCommand({ TableName: tableName, Key: uploadKey(tenantId, uploadId), ConditionExpression: 'attribute_exists(PK)', ReturnValues: 'ALL_OLD' }),
      );
      return uploads.decode(out.Attributes);
    } catch (err) {
      if (err instanceof Error && err.name === 'ConditionalCheckFailedException') return undefined;
      throw err;
    }
  },
};
