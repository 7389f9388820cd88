import type { TenantRecord, TenantStore } from '../tenants/domain.js';
import { itemCodec } from './codec.js';
import { dynamo, transactWrite } from './client.js';
import { keys } from './keys.js';
import { newTenantListItems } from './list-meta.js';

const tenants = /* @__PURE__ */ itemCodec<TenantRecord>('Tenant');

export const tenantStore: TenantStore = {
  async create(record) {
    // With its lists' own items: a new tenant's lists page by their views from the first item on.
    const outcome = await transactWrite({
      tenant: { Put: { Item: tenants.encode(record, keys.tenant(record.tenantId)), ConditionExpression: 'attribute_not_exists(PK)' } },
      ...Object.fromEntries(newTenantListItems(record.tenantId).map((Item, i) => [`list${i}`, { Put: { Item, ConditionExpression: 'attribute_not_exists(PK)' } }])),
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('tenant')) return false;
    throw outcome.error;
  },
  async ids() {
    const { doc, tableName, commands } = await dynamo();
    const found: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await doc.send(
        new commands.ScanCommand({
          TableName: tableName,
          FilterExpression: 'SK = :sk AND itemType = :type',
          ExpressionAttributeValues: { ':sk': 'TENANT', ':type': tenants.itemType },
          ProjectionExpression: 'tenantId',
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) if (typeof item.tenantId === 'string') found.push(item.tenantId);
      start = out.LastEvaluatedKey;
    } while (start);
    return found.sort();
  },
  async get(tenantId) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.tenant(tenantId), ConsistentRead: true }));
    return tenants.decode(out.Item);
  },
};
