import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BLOB_CHUNK_BYTES, definitionStore } from '../../functions/store/process-definitions.js';
import { keys } from '../../functions/store/keys.js';
import type { ProcessDefinitionRecord } from '../../functions/process-manager/model.js';
import type { ProcessDefinition } from '../../statemachines/definition.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
beforeEach(() => ddb.reset());

const definition: ProcessDefinition = {
  name: 'big',
  version: 3,
  description: '',
  retentionDays: 90,
  startActivityId: 'decide',
  activities: { decide: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } },
};

const record: ProcessDefinitionRecord = {
  tenantId: 'acme',
  id: '6f1c2c0e-6c43-4d4e-9a55-0f6f2b3f7c11',
  name: 'big',
  version: 3,
  description: '',
  retentionDays: 90,
  status: 'DRAFT',
  format: 'BPMN',
  createdDtm: '2025-01-01T00:00:00.000Z',
  createdBy: 'apikey:k',
};

/** DynamoDB's own limit on an item: names and values together (binary counted as its length). */
function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((n, [k, v]) => n + k.length + (v instanceof Uint8Array ? v.length : Buffer.byteLength(JSON.stringify(v))), 0);
}

/** Writes `bpmn` through the store and returns the items of the one transaction it sent. */
async function written(bpmn: Buffer): Promise<Record<string, unknown>[]> {
  ddb.on(TransactWriteCommand).resolves({});
  expect(await definitionStore.create(record, { definition, bpmn })).toEqual({ outcome: 'written' });
  const calls = ddb.commandCalls(TransactWriteCommand);
  expect(calls).toHaveLength(1);
  return calls[0]!.args[0].input.TransactItems!.map((t) => t.Put!.Item as Record<string, unknown>);
}

describe('definitionStore', () => {
  it('writes a 1 MB BPMN that does not compress as chunks under the 400 KB item limit, with the version, in one transaction', async () => {
    // Random bytes as base64 inside a comment: about as incompressible as XML gets.
    const bpmn = Buffer.from(`<?xml version="1.0"?><!--${randomBytes(760_000).toString('base64')}--><definitions/>`, 'utf8');
    expect(bpmn.length).toBeGreaterThan(1_000_000);
    const items = await written(bpmn);

    const chunks = items.filter((i) => i.itemType === 'DefinitionBlobChunk');
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const item of items) expect(itemBytes(item)).toBeLessThan(400 * 1024);
    for (const item of items) expect(item.PK).toBe('TNT#acme#PDEFS');
    for (const chunk of chunks) expect((chunk.data as Uint8Array).length).toBeLessThanOrEqual(BLOB_CHUNK_BYTES);
    // Chunks live apart from the versions list (PDEF#), so listing versions reads none of them.
    for (const chunk of chunks) expect(String(chunk.SK).startsWith(keys.definitionBlobPrefix(record.id))).toBe(true);
    const version = items.find((i) => i.itemType === 'ProcessDefinition')!;
    expect(version).not.toHaveProperty('definition');
    expect(version.blobs).toMatchObject({ bpmn: { chunks: chunks.length - 1, size: bpmn.length } });
  });

  it('reads back the definition and the BPMN byte for byte, from chunks in key order', async () => {
    const bpmn = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<?xml version="1.0"?>\r\n<definitions  name="Zoë"/>\r\n', 'utf8')]);
    const items = await written(bpmn);
    const version = items.find((i) => i.itemType === 'ProcessDefinition')!;
    const chunks = items.filter((i) => i.itemType === 'DefinitionBlobChunk').sort((a, b) => String(a.SK).localeCompare(String(b.SK)));
    ddb.on(QueryCommand).resolves({ Items: chunks });

    const content = await definitionStore.getContent({ ...record, ...(version as object) } as ProcessDefinitionRecord);
    expect(content.definition).toEqual(definition);
    expect(content.bpmn!.equals(bpmn)).toBe(true);
    const query = ddb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(query.ExpressionAttributeValues).toEqual({ ':pk': 'TNT#acme#PDEFS', ':sk': `PDEFBLOB#${record.id}#` });
    expect(query.ConsistentRead).toBe(true);
  });

  it('refuses to return a document whose chunks are missing or changed', async () => {
    const items = await written(Buffer.from('<definitions/>'));
    const version = items.find((i) => i.itemType === 'ProcessDefinition')!;
    const stored = { ...record, ...(version as object) } as ProcessDefinitionRecord;
    const chunks = items.filter((i) => i.itemType === 'DefinitionBlobChunk');
    ddb.on(QueryCommand).resolves({ Items: chunks.filter((c) => !String(c.SK).includes('#bpmn#')) });
    await expect(definitionStore.getContent(stored)).rejects.toThrow(/bpmn document .* incomplete or changed/);
    const tampered = chunks.map((c) => (String(c.SK).includes('#definition#') ? { ...c, data: Buffer.from('x') } : c));
    ddb.on(QueryCommand).resolves({ Items: tampered });
    await expect(definitionStore.getContent(stored)).rejects.toThrow(/definition document/);
  });

  it('reads a version stored before documents were kept apart from its inline definition', async () => {
    expect(await definitionStore.getContent({ ...record, definition })).toEqual({ definition });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('hands out the next version from one atomic counter that starts above the highest version', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ SK: `${keys.definitionNameVersionsPrefix('big')}000000007` }] });
    ddb.on(UpdateCommand).resolves({ Attributes: { lastVersion: 8 } });
    expect(await definitionStore.allocateVersion('acme', 'big')).toBe(8);
    const update = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.Key).toEqual(keys.definitionVersionCounter('acme', 'big'));
    expect(update.UpdateExpression).toContain('if_not_exists(lastVersion, :latest) + :one');
    expect(update.ExpressionAttributeValues).toMatchObject({ ':latest': 7, ':one': 1 });
  });

  it('moves a counter that versions published by number got ahead of up to them, then draws again', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ SK: `${keys.definitionNameVersionsPrefix('big')}000000010` }] });
    ddb
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { lastVersion: 4 } })
      .resolvesOnce({})
      .resolvesOnce({ Attributes: { lastVersion: 11 } });
    expect(await definitionStore.allocateVersion('acme', 'big')).toBe(11);
    const [, catchUp] = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(catchUp!.ConditionExpression).toBe('lastVersion < :latest');
    expect(catchUp!.ExpressionAttributeValues).toEqual({ ':latest': 10 });
  });
});
