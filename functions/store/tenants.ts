import type { TenantRecord, TenantStore } from '../tenants/domain.js';
import { itemCodec } from './codec.js';
import { conditionally, dynamo } from './client.js';
import { keys } from './keys.js';

const tenants = /* @__PURE__ */ itemCodec<TenantRecord>('Tenant');

export const tenantStore: TenantStore = {
  async create(record) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: tenants.encode(record, keys.tenant(record.tenantId)),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  },
  async get(tenantId) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.tenant(tenantId), ConsistentRead: true }));
    return tenants.decode(out.Item);
  },
};
