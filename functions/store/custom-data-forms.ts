import type { CustomDataFormRecord, CustomDataFormStore, CustomDataFormSummary } from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { dynamo, queryAll, transactWrite } from './client.js';
import { keys } from './keys.js';

const forms = /* @__PURE__ */ itemCodec<CustomDataFormRecord>('CustomDataForm');
/** The name + version item: the pair's lock, and the version's summary for the versions list. */
const versions = /* @__PURE__ */ itemCodec<CustomDataFormSummary>('CustomDataFormVersion');

function summaryOf(r: CustomDataFormRecord): CustomDataFormSummary {
  const { tenantId: _tenant, resource: _resource, ...summary } = r;
  return summary;
}

export const customDataFormStore: CustomDataFormStore = {
  async create(record) {
    // name + version is unique and immutable: the version item makes a second one fail.
    const outcome = await transactWrite({
      form: {
        Put: { Item: forms.encode(record, keys.customDataForm(record.tenantId, record.id)), ConditionExpression: 'attribute_not_exists(PK)' },
      },
      version: {
        Put: {
          Item: versions.encode(summaryOf(record), keys.customDataFormNameVersion(record.tenantId, record.name, record.version)),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    });
    return outcome.written;
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.customDataForm(tenantId, id), ConsistentRead: true }));
    return forms.decode(out.Item);
  },

  async getVersion(tenantId, name, version) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(
      new commands.GetCommand({ TableName: tableName, Key: keys.customDataFormNameVersion(tenantId, name, version), ConsistentRead: true }),
    );
    return versions.decode(out.Item);
  },

  async latestVersion(tenantId, name) {
    const { doc, tableName, commands } = await dynamo();
    // Version sort keys are zero-padded, so the last item of the name's prefix is the highest.
    const out = await doc.send(
      new commands.QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': keys.customDataFormPartition(tenantId), ':sk': keys.customDataFormVersionsPrefix(name) },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return versions.decodeAll(out.Items ?? [])[0]?.version;
  },

  async listVersions(tenantId, name) {
    return versions.decodeAll(await queryAll(keys.customDataFormPartition(tenantId), keys.customDataFormVersionsPrefix(name)));
  },

  async setStatus(record, from, to, by) {
    // Both items change together, each only if it still has the status the caller read.
    const update = {
      UpdateExpression: 'SET #status = :to, lastUpdatedDtm = :now, lastUpdatedBy = :by',
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':to': to, ':from': from, ':now': by.now.toISOString(), ':by': by.principal },
    };
    const outcome = await transactWrite({
      form: { Update: { Key: keys.customDataForm(record.tenantId, record.id), ...update } },
      version: { Update: { Key: keys.customDataFormNameVersion(record.tenantId, record.name, record.version), ...update } },
    });
    if (outcome.written) return { outcome: 'updated' };
    return (await customDataFormStore.get(record.tenantId, record.id)) ? { outcome: 'changed' } : { outcome: 'gone' };
  },
};
