import type { ProcessTokenRecord, ProcessTokenStore } from '../process-manager/tokens.js';
import { dynamo, putWithLock, queryAll } from './client.js';
import { keys } from './keys.js';

const ITEM_TYPE = 'ProcessToken';

function fromItem(item: Record<string, unknown> | undefined): ProcessTokenRecord | undefined {
  if (!item || item.itemType !== ITEM_TYPE) return undefined;
  const { PK: _pk, SK: _sk, itemType: _t, ...record } = item;
  return record as unknown as ProcessTokenRecord;
}

export const processTokenStore: ProcessTokenStore = {
  async create(record) {
    // The name lock: a second token of the same name fails the transaction.
    return putWithLock(
      { ...keys.processToken(record.tenantId, record.id), itemType: ITEM_TYPE, ...record },
      { ...keys.processTokenName(record.tenantId, record.name), itemType: 'ProcessTokenName', processTokenId: record.id },
    );
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
