/**
 * The outbox store against Amazon's DynamoDB Local: events spread over shards by subject, read
 * back (by key, by id, by time range) across every shard and the partition from before shards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import { eventExpiresAt, newEventId, type EventEnvelope } from '../../functions/shared/events.js';

let local: LocalDynamo;
let client: DynamoDBClient;
let dir: string;
let outbox: typeof import('../../functions/store/outbox.js');
let keys: typeof import('../../functions/store/keys.js').keys;
let OUTBOX_SHARDS: number;
const TENANT = 'acme';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outbox-store-'));
  local = await startDynamoDbLocal(dir);
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  process.env.TABLE_NAME = 'outbox-unit';
  client = localClient(local.endpoint);
  await ensureTable(client, 'outbox-unit');
  outbox = await import('../../functions/store/outbox.js');
  ({ keys } = await import('../../functions/store/keys.js'));
  ({ OUTBOX_SHARDS } = await import('../../functions/store/shards.js'));
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await local?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const subject = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** An event about instance `n`, made at `at` (ms after a fixed instant, recent enough to be kept). */
function eventAt(n: number, at: number, tenantId = TENANT): EventEnvelope {
  const when = new Date(Date.now() - 86_400_000 + at);
  return { id: newEventId(when), type: 'process-instance.status-changed', tenantId, timestamp: when.toISOString(), subject: { type: 'process-instance', id: subject(n) }, data: { n, at } };
}

/** An event written as the outbox wrote it before shards: in the tenant's one partition. */
async function putLegacy(e: EventEnvelope): Promise<void> {
  const { dynamo } = await import('../../functions/store/client.js');
  const { doc, tableName, commands } = await dynamo();
  await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.legacyOutboxEvent(e.tenantId, e.timestamp, e.id), itemType: 'OutboxEvent', ...e, expiresAt: eventExpiresAt(e) } }));
}

describe('the sharded outbox', () => {
  // 40 subjects, 3 events each, made in an order that interleaves the subjects.
  const events: EventEnvelope[] = [];
  const legacy: EventEnvelope[] = [];
  beforeAll(async () => {
    for (let round = 0; round < 3; round++) for (let n = 0; n < 40; n++) events.push(eventAt(n, round * 1000 + n * 10));
    // Before shards: events of subjects 0 and 1 made earlier, and one in the middle of the others.
    legacy.push(eventAt(0, -500), eventAt(1, -400), eventAt(2, 1005));
    await Promise.all(events.map((e) => outbox.outboxStore.put(e)));
    await Promise.all(legacy.map(putLegacy));
    // Another tenant's events are never read.
    await outbox.outboxStore.put(eventAt(3, 1500, 'other'));
  });

  it('writes each subject\'s events to one shard, and the subjects to many shards', async () => {
    const shards = new Set(events.map((e) => keys.outboxEvent(TENANT, e.timestamp, e.id, e.subject.id).PK));
    expect(shards.size).toBeGreaterThan(OUTBOX_SHARDS / 2);
    for (const e of events) expect(await outbox.outboxStore.get(keys.outboxEvent(TENANT, e.timestamp, e.id, e.subject.id))).toEqual(e);
  });

  it('reads a time range across every shard and the old partition, in time order, a limit at a time', async () => {
    const all = [...legacy, ...events].sort((a, b) => (a.timestamp === b.timestamp ? (a.id < b.id ? -1 : 1) : a.timestamp < b.timestamp ? -1 : 1));
    const from = all[0]!.timestamp;
    const to = all.at(-1)!.timestamp;
    expect((await outbox.outboxStore.range(TENANT, from, to, 500)).map((e) => e.id)).toEqual(all.map((e) => e.id));
    // A page that stops in the middle, and the next from where it stopped (replay's `last`).
    const first = await outbox.outboxStore.range(TENANT, from, to, 50);
    expect(first.map((e) => e.id)).toEqual(all.slice(0, 50).map((e) => e.id));
    const inner = await outbox.outboxStore.range(TENANT, all[60]!.timestamp, all[70]!.timestamp, 500);
    expect(inner.map((e) => e.id)).toEqual(all.slice(60, 71).map((e) => e.id));
  });

  it('keeps each subject\'s events in the order written', async () => {
    const read = await outbox.outboxStore.range(TENANT, new Date(0).toISOString(), new Date().toISOString(), 500);
    for (let n = 0; n < 40; n++) {
      const mine = read.filter((e) => e.subject.id === subject(n)).map((e) => e.id);
      const written = [...legacy, ...events].filter((e) => e.subject.id === subject(n)).sort((a, b) => (a.timestamp < b.timestamp ? -1 : 1)).map((e) => e.id);
      expect(mine).toEqual(written);
    }
  });

  it('finds an event by its time and id, with its subject or without, in a shard or in the old partition', async () => {
    const e = events[17]!;
    expect(await outbox.outboxStore.getEvent(TENANT, e.timestamp, e.id, e.subject.id)).toEqual(e);
    expect(await outbox.outboxStore.getEvent(TENANT, e.timestamp, e.id)).toEqual(e);
    const old = legacy[0]!;
    expect(await outbox.outboxStore.getEvent(TENANT, old.timestamp, old.id, old.subject.id)).toEqual(old);
    expect(await outbox.outboxStore.getEvent(TENANT, old.timestamp, old.id)).toEqual(old);
    expect(await outbox.outboxStore.getEvent('other', e.timestamp, e.id)).toBeUndefined();
  });

  it('skips events past their retention and still fills the page', async () => {
    const stale = { ...eventAt(5, 2500), id: newEventId(new Date()) };
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName, commands } = await dynamo();
    // Its TTL passed, but DynamoDB has not deleted it yet.
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...outbox.outboxItem(stale), expiresAt: 1 } }));
    const around = await outbox.outboxStore.range(TENANT, events[80]!.timestamp, new Date().toISOString(), 500);
    expect(around.map((e) => e.id)).not.toContain(stale.id);
    expect(around).toHaveLength(40);
    expect(await outbox.outboxStore.getEvent(TENANT, stale.timestamp, stale.id, stale.subject.id)).toBeUndefined();
  });
});

describe('outboxStore.instanceEvents', () => {
  const TENANT_B = 'indexed';
  const mine: EventEnvelope[] = [];
  let position: (e: EventEnvelope) => string;
  beforeAll(async () => {
    ({ eventPosition: position } = await import('../../functions/shared/events.js'));
    // Instance 100's five events, interleaved with instance 101's (in the same tenant) and
    // with the same instance id's events in another tenant.
    for (let i = 0; i < 5; i++) {
      mine.push(eventAt(100, 3000 + i * 10, TENANT_B));
      await outbox.outboxStore.put(mine.at(-1)!);
      await outbox.outboxStore.put(eventAt(101, 3000 + i * 10 + 5, TENANT_B));
      await outbox.outboxStore.put(eventAt(100, 3000 + i * 10 + 6, 'beta'));
    }
  });

  it('puts instance events on the events index, in the same item, and no other event', () => {
    const e = mine[0]!;
    expect(outbox.outboxItem(e)).toMatchObject({ GSI1PK: `TNT#${TENANT_B}#PIEVT#${subject(100)}`, GSI1SK: `EVT#${e.timestamp}#${e.id}` });
    const user: EventEnvelope = { ...e, type: 'identity-store.user-added', subject: { type: 'identity-user', id: subject(100) } };
    const test: EventEnvelope = { ...e, type: 'webhook.test', subject: { type: 'webhook', id: subject(100) } };
    expect(outbox.outboxItem(user)).not.toHaveProperty('GSI1PK');
    expect(outbox.outboxItem(test)).not.toHaveProperty('GSI1PK');
  });

  it("reads only the instance's own events, oldest first, as they were written", async () => {
    const read = await outbox.outboxStore.instanceEvents(TENANT_B, subject(100), 500);
    expect(read).toEqual({ events: mine, more: false });
    expect((await outbox.outboxStore.instanceEvents('beta', subject(100), 500)).events.every((e) => e.tenantId === 'beta')).toBe(true);
    expect(await outbox.outboxStore.instanceEvents(TENANT_B, subject(102), 500)).toEqual({ events: [], more: false });
  });

  it('pages from a position: more while events follow, none after the last, and a page that ends exactly at the last says so', async () => {
    const first = await outbox.outboxStore.instanceEvents(TENANT_B, subject(100), 2);
    expect(first).toEqual({ events: mine.slice(0, 2), more: true });
    const second = await outbox.outboxStore.instanceEvents(TENANT_B, subject(100), 2, position(mine[1]!));
    expect(second).toEqual({ events: mine.slice(2, 4), more: true });
    expect(await outbox.outboxStore.instanceEvents(TENANT_B, subject(100), 2, position(mine[3]!))).toEqual({ events: mine.slice(4), more: false });
    expect(await outbox.outboxStore.instanceEvents(TENANT_B, subject(100), 5)).toEqual({ events: mine, more: false });
    expect(await outbox.outboxStore.instanceEvents(TENANT_B, subject(100), 3, position(mine[4]!))).toEqual({ events: [], more: false });
  });

  it('skips events past their retention that DynamoDB has not deleted yet, and still fills the page', async () => {
    const stale = eventAt(103, 2000, TENANT_B);
    const fresh = [eventAt(103, 2100, TENANT_B), eventAt(103, 2200, TENANT_B)];
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...outbox.outboxItem(stale), expiresAt: 1 } }));
    for (const e of fresh) await outbox.outboxStore.put(e);
    expect(await outbox.outboxStore.instanceEvents(TENANT_B, subject(103), 1)).toEqual({ events: fresh.slice(0, 1), more: true });
    expect(await outbox.outboxStore.instanceEvents(TENANT_B, subject(103), 2)).toEqual({ events: fresh, more: false });
  });
});
