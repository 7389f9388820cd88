import type { ProcessTokenRecord, ProcessTokenStore } from '../process-manager/tokens.js';
import { dynamo, isTransactionConflict, queryAll } from './client.js';
import { keys } from './keys.js';

const ITEM_TYPE = 'ProcessToken';

function fromItem(item: Record<string, unknown> | undefined): ProcessTokenRecord | undefined {
  if (!item || item.itemType !== ITEM_TYPE) return undefined;
  const { PK: _pk, SK: _sk, itemType: _t, ...record } = item;
  return record as unknown as ProcessTokenRecord;
}

export const processTokenStore: ProcessTokenStore = {
  async create(record) {
    const { doc, tableName, commands } = await dynamo();
    try {
      await doc.send(
        new commands.TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { ...keys.processToken(record.tenantId, record.id), itemType: ITEM_TYPE, ...record },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              // The name lock: a second token of the same name fails this condition.
              Put: {
                TableName: tableName,
                Item: { ...keys.processTokenName(record.tenantId, record.name), itemType: 'ProcessTokenName', processTokenId: record.id },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (isTransactionConflict(err)) return false;
      throw err;
    }
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.processToken(tenantId, id), ConsistentRead: true }));
    return fromItem(out.Item);
  },

  async list(tenantId) {
    const items = await queryAll(keys.processTokenPartition(tenantId), keys.processTokenSortPrefix);
    return items.map(fromItem).filter((r): r is ProcessTokenRecord => !!r);
  },
};
