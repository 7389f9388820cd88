import type { CloudSecretRecord, CloudSecretStore, CloudSecretSummary } from '../cloud-functions/model.js';
import { itemCodec } from './codec.js';
import { conditionally, dynamo, queryAll } from './client.js';
import { keys } from './keys.js';

const secrets = /* @__PURE__ */ itemCodec<CloudSecretRecord>('CloudSecret');

function summaryOf(r: CloudSecretRecord): CloudSecretSummary {
  const { tenantId: _tenant, sealed: _sealed, ...summary } = r;
  return summary;
}

/** Writes a secret's item if `condition` holds; false when it does not. */
async function put(record: CloudSecretRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }): Promise<boolean> {
  const { doc, tableName, commands } = await dynamo();
  return conditionally(() =>
    doc.send(new commands.PutCommand({ TableName: tableName, Item: secrets.encode(record, keys.cloudSecret(record.tenantId, record.name)), ...condition })),
  );
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
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(new commands.DeleteCommand({ TableName: tableName, Key: keys.cloudSecret(tenantId, name), ConditionExpression: 'attribute_exists(PK)' })),
    );
  },

  async list(tenantId) {
    return secrets.decodeAll(await queryAll(keys.cloudSecretPartition(tenantId), 'SECRET#')).map(summaryOf);
  },
};
