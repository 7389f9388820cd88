import type { TenantRecord, TenantStore } from '../tenants/domain.js';
import { conditionally, dynamo } from './client.js';
import { keys } from './keys.js';

export const tenantStore: TenantStore = {
  async create(record) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: { ...keys.tenant(record.tenantId), itemType: 'Tenant', ...record },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  },
  async get(tenantId) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.tenant(tenantId), ConsistentRead: true }));
    if (!out.Item) return undefined;
    const { PK: _p, SK: _s, itemType: _t, ...record } = out.Item;
    return record as TenantRecord;
  },
};
