import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type {
  DefinitionStore,
  DefinitionTagRecord,
  DefinitionVersionListRef,
  DefinitionVersionRef,
  ProcessDefinitionContent,
  ProcessDefinitionRecord,
  StoredBlobRef,
} from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { conditionally, dynamo, queryAll, transactWrite, type TransactItem } from './client.js';
import { keys } from './keys.js';
import { unuseItem, useItem } from './state-machine-refs.js';
import { countRange, getMany, readRange, type KeyRange } from './ranges.js';

const definitions = /* @__PURE__ */ itemCodec<ProcessDefinitionRecord>('ProcessDefinition');
const nameVersionLocks = /* @__PURE__ */ itemCodec<Partial<DefinitionVersionRef> & { processDefinitionId: string }>('DefinitionNameVersion');
const tags = /* @__PURE__ */ itemCodec<DefinitionTagRecord>('DefinitionTag');
const counters = /* @__PURE__ */ itemCodec<{ lastVersion: number }>('DefinitionVersionCounter');
const chunks = /* @__PURE__ */ itemCodec<{ data: Uint8Array }>('DefinitionBlobChunk');

/**
 * DynamoDB caps an item at 400 KB (names and values together), and a 1 MB BPMN, its definition
 * or both may not fit one: documents are gzip-compressed and cut into chunks of at most this many
 * bytes, each its own item beside the version's.
 */
export const BLOB_CHUNK_BYTES = 350 * 1024;
/**
 * A transaction holds at most 100 items and 4 MB: the version, its lock and at most this many
 * chunks stay well inside both. The API's body limit (a 1 MB BPMN) keeps real documents far below.
 */
const MAX_CHUNKS = 10;

const DOCUMENTS = ['definition', 'bpmn'] as const;
type DocumentName = (typeof DOCUMENTS)[number];

function pack(bytes: Buffer): { ref: StoredBlobRef; parts: Buffer[] } {
  const packed = gzipSync(bytes);
  const parts: Buffer[] = [];
  for (let at = 0; at < packed.length; at += BLOB_CHUNK_BYTES) parts.push(packed.subarray(at, at + BLOB_CHUNK_BYTES));
  if (parts.length === 0) parts.push(Buffer.alloc(0));
  return {
    ref: { chunks: parts.length, bytes: packed.length, size: bytes.length, sha256: createHash('sha256').update(packed).digest('hex') },
    parts,
  };
}

function unpack(name: string, ref: StoredBlobRef, parts: readonly Uint8Array[]): Buffer {
  const packed = Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  // Written in one transaction with the version's item, so a mismatch means the table was changed by hand.
  if (parts.length !== ref.chunks || packed.length !== ref.bytes || createHash('sha256').update(packed).digest('hex') !== ref.sha256) {
    throw new Error(`the stored ${name} document of a process definition is incomplete or changed`);
  }
  return gunzipSync(packed);
}

export const definitionStore: DefinitionStore = {
  async create(record, content, use) {
    const documents: Partial<Record<DocumentName, Buffer>> = {
      definition: Buffer.from(JSON.stringify(content.definition), 'utf8'),
      ...(content.bpmn ? { bpmn: content.bpmn } : {}),
    };
    const blobs: Partial<Record<DocumentName, StoredBlobRef>> = {};
    const items: Record<string, TransactItem> = {};
    for (const name of DOCUMENTS) {
      const bytes = documents[name];
      if (!bytes) continue;
      const { ref, parts } = pack(bytes);
      blobs[name] = ref;
      parts.forEach((data, i) => {
        items[`${name}${i}`] = {
          Put: { Item: chunks.encode({ data }, keys.definitionBlobChunk(record.tenantId, record.id, name, i)), ConditionExpression: 'attribute_not_exists(PK)' },
        };
      });
    }
    if (Object.keys(items).length > MAX_CHUNKS) throw new Error(`a process definition's documents need ${Object.keys(items).length} chunks; at most ${MAX_CHUNKS} fit one transaction`);
    const { definition: _inline, ...stored } = record;
    if (use && (stored.stateMachineArn !== use.arn || stored.stateMachineName !== use.name)) throw new Error('a version created active must record the state machine it uses');
    // name + version is unique and immutable: the lock item makes a second publication fail.
    const out = await transactWrite({
      version: {
        Put: {
          Item: definitions.encode({ ...stored, blobs: blobs as { definition: StoredBlobRef; bpmn?: StoredBlobRef } }, keys.definition(record.tenantId, record.id)),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      lock: {
        Put: {
          Item: nameVersionLocks.encode(
            { processDefinitionId: record.id, status: record.status ?? 'DEPLOYED_ACTIVE' },
            keys.definitionNameVersion(record.tenantId, record.name, record.version),
          ),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      ...items,
      // A version active at once: its state machine counts it (state-machine-refs.ts).
      machine: use ? useItem(use, new Date(record.createdDtm)) : undefined,
    }, { retryConflicts: use ? 3 : 0 });
    if (out.written) return { outcome: 'written' };
    return out.failed.includes('version') || out.failed.includes('lock') ? { outcome: 'conflict' } : { outcome: 'stateMachineClaimed' };
  },

  async getContent(record) {
    if (!record.blobs) {
      // Stored before documents were kept apart: the definition is inline, and there is no upload.
      if (!record.definition) throw new Error(`process definition ${record.id} has no stored definition`);
      return { definition: record.definition };
    }
    const parts = new Map<string, Uint8Array[]>();
    // Sort keys are zero-padded, so the query returns each document's chunks in order.
    for (const item of await queryAll(keys.definitionPartition(record.tenantId), keys.definitionBlobPrefix(record.id))) {
      const chunk = chunks.decode(item);
      if (!chunk) continue;
      const name = String(item.SK).slice(keys.definitionBlobPrefix(record.id).length).split('#')[0]!;
      parts.set(name, [...(parts.get(name) ?? []), chunk.data]);
    }
    const definition = JSON.parse(unpack('definition', record.blobs.definition, parts.get('definition') ?? []).toString('utf8')) as ProcessDefinitionContent['definition'];
    const content: ProcessDefinitionContent = { definition };
    if (record.blobs.bpmn) content.bpmn = unpack('bpmn', record.blobs.bpmn, parts.get('bpmn') ?? []);
    return content;
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

  async allocateVersion(tenantId, name) {
    const { doc, tableName, commands } = await dynamo();
    const counter = keys.definitionVersionCounter(tenantId, name);
    for (;;) {
      const latest = await latestVersion(tenantId, name);
      // One atomic increment hands each caller its own number; a counter that does not exist yet
      // starts from the name's highest version (published in the JSON format, or before counters).
      const out = await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: counter,
          UpdateExpression: 'SET lastVersion = if_not_exists(lastVersion, :latest) + :one, itemType = :type',
          ExpressionAttributeValues: { ':latest': latest, ':one': 1, ':type': counters.itemType },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const next = (out.Attributes as { lastVersion: number }).lastVersion;
      if (next > latest) return next;
      // Versions published with an explicit number got ahead of the counter: move it up to them and draw again.
      await conditionally(() =>
        doc.send(
          new commands.UpdateCommand({
            TableName: tableName,
            Key: counter,
            UpdateExpression: 'SET lastVersion = :latest',
            ConditionExpression: 'lastVersion < :latest',
            ExpressionAttributeValues: { ':latest': latest },
          }),
        ),
      );
    }
  },

  async setStatus(record, from, to, at, use) {
    // Both items only over the status read, so two racing changes cannot both win, and the
    // state machines' counts move with them (state-machine-refs.ts).
    const condition =
      from === undefined
        ? { ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#status)', ExpressionAttributeNames: { '#status': 'status' } }
        : { ConditionExpression: '#status = :from', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':from': from } };
    const values = (extra: Record<string, unknown>) => ({ ...(condition.ExpressionAttributeValues ?? {}), ...extra });
    const activating = to === 'DEPLOYED_ACTIVE' && from !== 'DEPLOYED_ACTIVE';
    if (activating && !use) throw new Error('a version becomes DEPLOYED_ACTIVE only with the state machine it uses');
    // Counted only while active, and only if it recorded its state machine when it became so.
    const leaving = (from ?? 'DEPLOYED_ACTIVE') === 'DEPLOYED_ACTIVE' && to !== 'DEPLOYED_ACTIVE' ? record.stateMachineName : undefined;
    const machine = activating && use
      ? { set: ', stateMachineArn = :arn, stateMachineName = :smName, sessionKeep = :keep', values: { ':arn': use.arn, ':smName': use.name, ':keep': use.sessionKeep } }
      : { set: '', values: {} };
    const out = await transactWrite(
      {
        definition: {
          Update: {
            Key: keys.definition(record.tenantId, record.id),
            UpdateExpression: `SET #status = :to, statusUpdatedDtm = :at, statusUpdatedBy = :by${machine.set}`,
            ConditionExpression: condition.ConditionExpression,
            ExpressionAttributeNames: condition.ExpressionAttributeNames,
            ExpressionAttributeValues: values({ ':to': to, ':at': at.now.toISOString(), ':by': at.by, ...machine.values }),
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
        use: activating && use ? useItem(use, at.now) : undefined,
        unuse: leaving ? unuseItem(leaving, at.now) : undefined,
      },
      { retryConflicts: activating || leaving ? 3 : 0 },
    );
    if (out.written) return { outcome: 'written' };
    return out.failed.includes('use') && !out.failed.includes('definition') ? { outcome: 'stateMachineClaimed' } : { outcome: 'conflict' };
  },

  async list(tenantId) {
    return definitions.decodeAll(await queryAll(keys.definitionPartition(tenantId), keys.definitionSortPrefix));
  },

  versionsOf(tenantId, name) {
    const range: KeyRange = { pk: keys.definitionPartition(tenantId), prefix: keys.definitionNameVersionsPrefix(name) };
    return {
      async read(o) {
        const read = await readRange(range, o);
        if (o.projection) return { rows: read.positions.map((at) => ({ record: {} as ProcessDefinitionRecord, at })), done: read.done };
        const ids = read.items.map((item) => nameVersionLocks.decode(item)?.processDefinitionId ?? '');
        const found = new Map((await definitionStore.getMany(tenantId, ids.filter(Boolean))).map((r) => [r.id, r]));
        // A name + version item always has its definition (one transaction wrote both).
        return { rows: read.positions.flatMap((at, i) => (found.has(ids[i]!) ? [{ record: found.get(ids[i]!)!, at }] : [])), done: read.done };
      },
      isPosition: (at) => at.startsWith(range.prefix) && keys.parseDefinitionNameVersion(at)?.name === name,
      count: (cap) => countRange(range, cap),
    };
  },

  async versionRefs(tenantId, cap) {
    const read = await readRange(
      { pk: keys.definitionPartition(tenantId), prefix: keys.definitionNameVersionSortPrefix },
      { limit: cap + 1, projection: ['processDefinitionId', 'status'] },
    );
    const refs = read.items.flatMap((item, i): DefinitionVersionListRef[] => {
      const lock = nameVersionLocks.decode(item);
      const at = read.positions[i]!;
      const nv = keys.parseDefinitionNameVersion(at);
      return lock && nv ? [{ ...nv, processDefinitionId: lock.processDefinitionId, status: lock.status ?? 'DEPLOYED_ACTIVE' }] : [];
    });
    return { refs: refs.slice(0, cap), more: refs.length > cap };
  },

  async getMany(tenantId, ids) {
    return definitions.decodeAll(await getMany(ids.map((id) => keys.definition(tenantId, id))));
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

/** The highest version of a name (0 when it has none), from its name + version items. */
async function latestVersion(tenantId: string, name: string): Promise<number> {
  const { doc, tableName, commands } = await dynamo();
  const out = await doc.send(
    new commands.QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.definitionPartition(tenantId), ':sk': keys.definitionNameVersionsPrefix(name) },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const sk = out.Items?.[0]?.SK;
  return typeof sk === 'string' ? Number(sk.slice(sk.lastIndexOf('#') + 1)) : 0;
}
