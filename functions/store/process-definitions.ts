import type { DefinitionStore, DefinitionTagRecord, DefinitionVersionRef, ProcessDefinitionRecord } from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { dynamo, putWithLock, queryAll, transactWrite } from './client.js';
import { keys } from './keys.js';

const definitions = /* @__PURE__ */ itemCodec<ProcessDefinitionRecord>('ProcessDefinition');
const nameVersionLocks = /* @__PURE__ */ itemCodec<Partial<DefinitionVersionRef> & { processDefinitionId: string }>('DefinitionNameVersion');
const tags = /* @__PURE__ */ itemCodec<DefinitionTagRecord>('DefinitionTag');

export const definitionStore: DefinitionStore = {
  async create(record) {
    // name + version is unique and immutable: the lock item makes a second publication fail.
    return putWithLock(
      definitions.encode(record, keys.definition(record.tenantId, record.id)),
      nameVersionLocks.encode(
        { processDefinitionId: record.id, status: record.status ?? 'DEPLOYED_ACTIVE' },
        keys.definitionNameVersion(record.tenantId, record.name, record.version),
      ),
    );
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.definition(tenantId, id), ConsistentRead: true }));
    return definitions.decode(out.Item);
  },

  async getByNameVersion(tenantId, name, version) {
    const ref = await definitionStore.versionRef(tenantId, name, version);
    return ref ? definitionStore.get(tenantId, ref.processDefinitionId) : undefined;
  },

  async versionRef(tenantId, name, version) {
    const { doc, tableName, commands } = await dynamo();
    const lock = await doc.send(
      new commands.GetCommand({ TableName: tableName, Key: keys.definitionNameVersion(tenantId, name, version), ConsistentRead: true }),
    );
    const ref = nameVersionLocks.decode(lock.Item);
    // Lock items written before the lifecycle carry no status: those versions are active.
    return ref ? { processDefinitionId: ref.processDefinitionId, status: ref.status ?? 'DEPLOYED_ACTIVE' } : undefined;
  },

  async setStatus(record, from, to, at) {
    // Both items only over the status read, so two racing changes cannot both win.
    const condition =
      from === undefined
        ? { ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#status)', ExpressionAttributeNames: { '#status': 'status' } }
        : { ConditionExpression: '#status = :from', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':from': from } };
    const values = (extra: Record<string, unknown>) => ({ ...(condition.ExpressionAttributeValues ?? {}), ...extra });
    const out = await transactWrite({
      definition: {
        Update: {
          Key: keys.definition(record.tenantId, record.id),
          UpdateExpression: 'SET #status = :to, statusUpdatedDtm = :at, statusUpdatedBy = :by',
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeNames: condition.ExpressionAttributeNames,
          ExpressionAttributeValues: values({ ':to': to, ':at': at.now.toISOString(), ':by': at.by }),
        },
      },
      lock: {
        Update: {
          Key: keys.definitionNameVersion(record.tenantId, record.name, record.version),
          UpdateExpression: 'SET #status = :to',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to },
        },
      },
    });
    return out.written;
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
