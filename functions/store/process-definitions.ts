import type { DefinitionStore, DefinitionTagRecord, ProcessDefinitionRecord } from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { dynamo, putWithLock, queryAll } from './client.js';
import { keys } from './keys.js';

const definitions = /* @__PURE__ */ itemCodec<ProcessDefinitionRecord>('ProcessDefinition');
const nameVersionLocks = /* @__PURE__ */ itemCodec<{ processDefinitionId: string }>('DefinitionNameVersion');
const tags = /* @__PURE__ */ itemCodec<DefinitionTagRecord>('DefinitionTag');

export const definitionStore: DefinitionStore = {
  async create(record) {
    // name + version is unique and immutable: the lock item makes a second publication fail.
    return putWithLock(
      definitions.encode(record, keys.definition(record.tenantId, record.id)),
      nameVersionLocks.encode({ processDefinitionId: record.id }, keys.definitionNameVersion(record.tenantId, record.name, record.version)),
    );
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.definition(tenantId, id), ConsistentRead: true }));
    return definitions.decode(out.Item);
  },

  async getByNameVersion(tenantId, name, version) {
    const id = await definitionStore.idOf(tenantId, name, version);
    return id ? definitionStore.get(tenantId, id) : undefined;
  },

  async idOf(tenantId, name, version) {
    const { doc, tableName, commands } = await dynamo();
    const lock = await doc.send(
      new commands.GetCommand({ TableName: tableName, Key: keys.definitionNameVersion(tenantId, name, version), ConsistentRead: true }),
    );
    return nameVersionLocks.decode(lock.Item)?.processDefinitionId;
  },

  async list(tenantId) {
    return definitions.decodeAll(await queryAll(keys.definitionPartition(tenantId), keys.definitionSortPrefix));
  },

  async getTag(tenantId, tag) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.definitionTag(tenantId, tag), ConsistentRead: true }));
    return tags.decode(out.Item);
  },

  async putTag(record) {
    const { doc, tableName, commands } = await dynamo();
    // One item per tag name: writing it again moves the tag to the new definition.
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: tags.encode(record, keys.definitionTag(record.tenantId, record.name)) }));
  },

  async listTags(tenantId) {
    return tags.decodeAll(await queryAll(keys.definitionPartition(tenantId), keys.definitionTagSortPrefix));
  },
};
