import type { ProcessTokenRecord, ProcessTokenStore } from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { dynamo, putWithLock, queryAll } from './client.js';
import { keys } from './keys.js';

const tokens = /* @__PURE__ */ itemCodec<ProcessTokenRecord>('ProcessToken');
const nameLocks = /* @__PURE__ */ itemCodec<{ processTokenId: string }>('ProcessTokenName');

export const processTokenStore: ProcessTokenStore = {
  async create(record) {
    // The name lock: a second token of the same name fails the transaction.
    return putWithLock(
      tokens.encode(record, keys.processToken(record.tenantId, record.id)),
      nameLocks.encode({ processTokenId: record.id }, keys.processTokenName(record.tenantId, record.name)),
    );
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.processToken(tenantId, id), ConsistentRead: true }));
    return tokens.decode(out.Item);
  },

  async list(tenantId) {
    return tokens.decodeAll(await queryAll(keys.processTokenPartition(tenantId), keys.processTokenSortPrefix));
  },
};
