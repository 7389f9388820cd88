import type { DefinitionStore, DefinitionTagRecord, ProcessDefinitionRecord } from '../process-manager/definitions.js';
import { dynamo, putWithLock, queryAll } from './client.js';
import { keys } from './keys.js';

const DEF = 'ProcessDefinition';
const TAG = 'DefinitionTag';

function strip<T>(item: Record<string, unknown> | undefined, type: string): T | undefined {
  if (!item || item.itemType !== type) return undefined;
  const { PK: _pk, SK: _sk, itemType: _t, ...record } = item;
  return record as T;
}

export const definitionStore: DefinitionStore = {
  async create(record) {
    // name + version is unique and immutable: the lock item makes a second publication fail.
    return putWithLock(
      { ...keys.definition(record.tenantId, record.id), itemType: DEF, ...record },
      {
        ...keys.definitionNameVersion(record.tenantId, record.name, record.version),
        itemType: 'DefinitionNameVersion',
        processDefinitionId: record.id,
      },
    );
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.definition(tenantId, id), ConsistentRead: true }));
    return strip<ProcessDefinitionRecord>(out.Item, DEF);
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
    return lock.Item?.processDefinitionId as string | undefined;
  },

  async list(tenantId) {
    const items = await queryAll(keys.definitionPartition(tenantId), keys.definitionSortPrefix);
    return items.map((i) => strip<ProcessDefinitionRecord>(i, DEF)).filter((r): r is ProcessDefinitionRecord => !!r);
  },

  async getTag(tenantId, tag) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.definitionTag(tenantId, tag), ConsistentRead: true }));
    return strip<DefinitionTagRecord>(out.Item, TAG);
  },

  async putTag(record) {
    const { doc, tableName, commands } = await dynamo();
    // One item per tag name: writing it again moves the tag to the new definition.
    await doc.send(
      new commands.PutCommand({ TableName: tableName, Item: { ...keys.definitionTag(record.tenantId, record.name), itemType: TAG, ...record } }),
    );
  },

  async listTags(tenantId) {
    const items = await queryAll(keys.definitionPartition(tenantId), keys.definitionTagSortPrefix);
    return items.map((i) => strip<DefinitionTagRecord>(i, TAG)).filter((r): r is DefinitionTagRecord => !!r);
  },
};
