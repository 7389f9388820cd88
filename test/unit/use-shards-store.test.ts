/**
 * Hot keys against Amazon's DynamoDB Local: a process token's uses counted on use shards (exact
 * at the edges of maxCount, old single-counter tokens still working and moved onto shards), and
 * a webhook's deliveries spread over shards by subject, listed newest first across the shards
 * and the partition from before shards, with cursors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import { newEventId } from '../../functions/shared/events.js';
import type { ProcessTokenRecord } from '../../functions/process-manager/model.js';
import type { DeliveryRecord } from '../../functions/webhooks/model.js';

let local: LocalDynamo;
let client: DynamoDBClient;
let dir: string;
let tokens: typeof import('../../functions/store/process-tokens.js');
let instances: typeof import('../../functions/store/process-instances.js');
let hooks: typeof import('../../functions/store/webhooks.js');
let keys: typeof import('../../functions/store/keys.js').keys;
let shards: typeof import('../../functions/store/shards.js');
const TENANT = 'acme';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'use-shards-'));
  local = await startDynamoDbLocal(dir);
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  process.env.TABLE_NAME = 'use-shards-unit';
  client = localClient(local.endpoint);
  await ensureTable(client, 'use-shards-unit');
  tokens = await import('../../functions/store/process-tokens.js');
  instances = await import('../../functions/store/process-instances.js');
  hooks = await import('../../functions/store/webhooks.js');
  shards = await import('../../functions/store/shards.js');
  ({ keys } = await import('../../functions/store/keys.js'));
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await local?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function raw() {
  const { dynamo } = await import('../../functions/store/client.js');
  return dynamo();
}

function token(over: Partial<ProcessTokenRecord> = {}): ProcessTokenRecord {
  const id = randomUUID();
  return {
    tenantId: TENANT,
    id,
    name: `t-${id}`,
    description: '',
    status: 'ACTIVE',
    type: 'MULTI_USE_COUNT_LIMITED',
    maxCount: 1,
    counter: 0,
    validFromDtm: null,
    validToDtm: null,
    processDefnName: 'p',
    processDefnVersion: '1',
    processDefnTag: null,
    processDefnId: 'def-1',
    uiUrl: 'https://acme.fir.example.com/journey',
    parameters: {},
    processInstanceInit: null,
    maxProcessDuration: null,
    createdDtm: new Date().toISOString(),
    createdBy: 'k',
    ...over,
  };
}

/** One instance creation from the token (as create-instance.ts does it: the token as its item has it). */
async function use(t: ProcessTokenRecord): Promise<string> {
  const read = (await tokens.processTokenStore.get(TENANT, t.id, { counted: false }))!;
  const now = new Date();
  const id = randomUUID();
  const record = {
    tenantId: TENANT,
    id,
    processDefnId: 'def-1',
    processDefnName: 'p',
    processDefnVersion: 1,
    processTokenId: t.id,
    status: 'PENDING',
    createdAt: now.toISOString(),
    lastUpdatedAt: now.toISOString(),
    retentionDays: 1,
    expiringDtm: new Date(now.getTime() + 86_400_000).toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + 86_400,
    parameters: {},
    capabilityHash: 'x',
    stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:arthr-fir-x',
    createdBy: 'k',
  } as never;
  const event = { id: newEventId(now), type: 'process-instance.created', tenantId: TENANT, timestamp: now.toISOString(), subject: { type: 'process-instance', id }, data: {} } as never;
  return (await instances.processInstanceStore.createWithToken(record, read, now, event)).outcome;
}

async function uses(t: ProcessTokenRecord, n: number, parallel = true): Promise<string[]> {
  if (parallel) return Promise.all(Array.from({ length: n }, () => use(t)));
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await use(t));
  return out;
}

const created = (outcomes: string[]) => outcomes.filter((o) => o === 'created').length;

describe('useShares', () => {
  it('adds up to maxCount exactly, one shard per use at most', () => {
    expect(shards.useShares(1)).toEqual([1]);
    expect(shards.useShares(4)).toEqual([1, 1, 1, 1]);
    expect(shards.useShares(10)).toEqual([3, 3, 2, 2]);
    expect(shards.useShares(0)).toEqual([0]);
    for (const n of [1, 2, 3, 5, 7, 99, 1001]) expect(shards.useShares(n).reduce((a, b) => a + b, 0)).toBe(n);
  });
});

describe('a process token\'s use shards', () => {
  it('makes maxCount 1 usable once, and counts it', async () => {
    const t = token({ maxCount: 1 });
    expect(await tokens.processTokenStore.create(t)).toBe(true);
    expect(await uses(t, 5)).toSatisfy((o: string[]) => created(o) === 1 && o.filter((x) => x === 'tokenRefused').length === 4);
    expect((await tokens.processTokenStore.get(TENANT, t.id))!.counter).toBe(1);
  });

  it('uses every shard before refusing when maxCount equals the shards (used one after another)', async () => {
    const t = token({ maxCount: shards.PROCESS_TOKEN_USE_SHARDS });
    await tokens.processTokenStore.create(t);
    const outcomes = await uses(t, shards.PROCESS_TOKEN_USE_SHARDS + 2, false);
    expect(outcomes).toEqual([...Array(shards.PROCESS_TOKEN_USE_SHARDS).fill('created'), 'tokenRefused', 'tokenRefused']);
    expect((await tokens.processTokenStore.get(TENANT, t.id))!.counter).toBe(shards.PROCESS_TOKEN_USE_SHARDS);
  });

  it('gives exactly maxCount instances when maxCount does not divide over the shards, however many ask at once', async () => {
    const t = token({ maxCount: 7 });
    await tokens.processTokenStore.create(t);
    expect(created(await uses(t, 30))).toBe(7);
    expect(created(await uses(t, 3))).toBe(0);
    expect((await tokens.processTokenStore.get(TENANT, t.id))!.counter).toBe(7);
    const counts = await tokens.useShardCounts((await tokens.processTokenStore.get(TENANT, t.id, { counted: false }))!);
    // Shares 2, 2, 2, 1: every shard spent.
    expect(counts.map((c) => [c.used, c.limit])).toEqual([[2, 2], [2, 2], [2, 2], [1, 1]]);
  });

  it('counts the uses of a token without maxCount on its shards, never refusing for count', async () => {
    const t = token({ type: 'UNLIMITED', maxCount: null });
    await tokens.processTokenStore.create(t);
    expect(created(await uses(t, 12))).toBe(12);
    expect((await tokens.processTokenStore.get(TENANT, t.id))!.counter).toBe(12);
    const listed = (await tokens.processTokenStore.list(TENANT)).find((x) => x.id === t.id);
    expect(listed?.counter).toBe(12);
  });

  it('refuses an INACTIVE token on every shard', async () => {
    const t = token({ status: 'INACTIVE', maxCount: 3 });
    await tokens.processTokenStore.create(t);
    expect(await uses(t, 2)).toEqual(['tokenRefused', 'tokenRefused']);
  });

  it('keeps an old single-counter token working, then moves it onto shards with what was left, exactly', async () => {
    const t = token({ maxCount: 6 });
    // As the store wrote tokens before shards: the counter on the token's own item, no use shards.
    const { doc, tableName, commands } = await raw();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.processToken(TENANT, t.id), itemType: 'ProcessToken', ...t } }));
    expect(created(await uses(t, 2))).toBe(2);
    expect((await tokens.processTokenStore.get(TENANT, t.id))).toMatchObject({ counter: 2 });
    expect((await tokens.processTokenStore.get(TENANT, t.id))!.useShards).toBeUndefined();
    // A creation that read the token before the move: its use on the token item is refused, and it is told so (then reads again).
    const stale = (await tokens.processTokenStore.get(TENANT, t.id, { counted: false }))!;
    expect(await tokens.processTokenStore.shardUses(TENANT, t.id)).toBe(true);
    expect(await tokens.processTokenStore.shardUses(TENANT, t.id)).toBe(false);
    const now = new Date();
    const staleUse = await instances.processInstanceStore
      .createWithToken({ tenantId: TENANT, id: randomUUID(), processTokenId: t.id, status: 'PENDING', createdAt: now.toISOString(), parameters: {}, processDefnName: 'p', expiresAt: Math.floor(now.getTime() / 1000) + 60 } as never, stale, now, { id: newEventId(now), type: 'x', tenantId: TENANT, timestamp: now.toISOString(), subject: { type: 'process-instance', id: 'a' }, data: {} } as never)
      .catch((e: unknown) => e);
    expect(staleUse).toEqual({ outcome: 'tokenRefused' });
    expect(created(await uses(t, 10))).toBe(4);
    expect((await tokens.processTokenStore.get(TENANT, t.id))!.counter).toBe(6);
  });
});

const WEBHOOK = randomUUID();

function delivery(subject: string, at: number): DeliveryRecord {
  const when = new Date(Date.now() - 3_600_000 + at);
  const ts = when.toISOString();
  return {
    tenantId: TENANT,
    webhookId: WEBHOOK,
    eventId: newEventId(when),
    eventType: 'process-instance.status-changed',
    eventTimestamp: ts,
    subjectId: subject,
    status: 'PENDING',
    attempts: [],
    createdAt: ts,
    updatedAt: ts,
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    sweepAt: ts,
  };
}

describe('a webhook\'s delivery shards', () => {
  const all: DeliveryRecord[] = [];
  beforeAll(async () => {
    // 30 subjects over the shards, 2 deliveries each, interleaved in time; 4 written before shards.
    for (let round = 0; round < 2; round++) for (let n = 0; n < 30; n++) all.push(delivery(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, round * 10_000 + n * 100 + 1));
    for (const d of all) expect(await hooks.deliveryStore.start(d)).toBe(true);
    const { doc, tableName, commands } = await raw();
    for (let i = 0; i < 4; i++) {
      const old = delivery(`old-subject-${i}`, i * 7_000 + 50);
      all.push(old);
      const { sweepAt, ...rest } = old;
      await doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: { PK: keys.webhookDeliveryPartition(TENANT, WEBHOOK), SK: `${old.eventTimestamp}#${old.eventId}`, itemType: 'WebhookDelivery', ...rest, sweepAt, ...keys.webhookDeliveryDue(TENANT, sweepAt!, WEBHOOK, old.eventTimestamp, old.eventId) },
        }),
      );
    }
    all.sort((a, b) => (`${b.eventTimestamp}#${b.eventId}` < `${a.eventTimestamp}#${a.eventId}` ? -1 : 1));
  });

  it('spreads them over several shards by subject', async () => {
    const used = new Set(all.filter((d) => !d.subjectId.startsWith('old')).map((d) => keys.webhookDeliveryShard(d.subjectId)));
    expect(used.size).toBeGreaterThan(5);
  });

  it('lists them newest first across every shard and the partition from before shards, page by page with cursors, each once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await hooks.deliveryStore.page(TENANT, WEBHOOK, 7, cursor);
      if (page === 'invalidToken') throw new Error('cursor refused');
      seen.push(...page.deliveries.map((d) => d.eventId));
      cursor = page.next;
      if (!cursor) break;
    }
    expect(seen).toEqual(all.map((d) => d.eventId));
    expect(await hooks.deliveryStore.page(TENANT, WEBHOOK, 7, Buffer.from('TNT#other#x').toString('base64url'))).toBe('invalidToken');
  });

  it('finds a delivery by its subject in its shard or before shards, writes an old one back where it is, and sweeps both', async () => {
    const fresh = all.find((d) => !d.subjectId.startsWith('old'))!;
    const old = all.find((d) => d.subjectId.startsWith('old'))!;
    const got = await hooks.deliveryStore.get(TENANT, WEBHOOK, fresh.eventTimestamp, fresh.eventId, { subjectId: fresh.subjectId });
    expect(got).toMatchObject({ eventId: fresh.eventId });
    expect(got!.beforeShards).toBeUndefined();
    const gotOld = (await hooks.deliveryStore.get(TENANT, WEBHOOK, old.eventTimestamp, old.eventId, { subjectId: old.subjectId }))!;
    expect(gotOld.beforeShards).toBe(true);
    await hooks.deliveryStore.record(gotOld, { at: new Date().toISOString(), status: 200, latencyMs: 5 }, 'DELIVERED', undefined);
    const page = await hooks.deliveryStore.page(TENANT, WEBHOOK, 100);
    if (page === 'invalidToken') throw new Error('refused');
    expect(page.deliveries.filter((d) => d.eventId === old.eventId)).toEqual([expect.objectContaining({ status: 'DELIVERED', attempts: [expect.objectContaining({ status: 200 })] })]);
    // The due index names both kinds; each key leads back to its delivery.
    const due = await hooks.deliveryStore.dueForSweep(new Date());
    const mine = due.due.filter((k) => k.webhookId === WEBHOOK);
    expect(mine.length).toBe(all.length - 1);
    for (const k of mine.slice(0, 10)) expect(await hooks.deliveryStore.get(k.tenantId, k.webhookId, k.eventTimestamp, k.eventId, k.location!)).toMatchObject({ eventId: k.eventId });
  });

  it('keeps a subject\'s line across the partition from before shards and its shard', async () => {
    const subject = 'line-subject';
    const [a, b] = [delivery(subject, 1), delivery(subject, 2)];
    const { doc, tableName, commands } = await raw();
    // The holder, from before shards.
    await doc.send(
      new commands.PutCommand({
        TableName: tableName,
        Item: { PK: keys.webhookHoldPartition(TENANT, WEBHOOK), SK: `${keys.webhookHoldSubjectPrefix(subject)}2026-01-01T00:00:00.000Z#${a.eventTimestamp}#${a.eventId}`, itemType: 'WebhookHold', tenantId: TENANT, webhookId: WEBHOOK, subjectId: subject, at: '2026-01-01T00:00:00.000Z', eventTimestamp: a.eventTimestamp, eventId: a.eventId, parked: false, expiresAt: a.expiresAt },
      }),
    );
    await hooks.deliveryHolds.put(b, '2026-01-01T00:00:01.000Z', true);
    expect(await hooks.deliveryHolds.first(TENANT, WEBHOOK, subject)).toMatchObject({ eventId: a.eventId, heldBeforeShards: true });
    expect(await hooks.deliveryHolds.last(TENANT, WEBHOOK, subject)).toMatchObject({ eventId: b.eventId, parked: true });
    const first = (await hooks.deliveryHolds.first(TENANT, WEBHOOK, subject))!;
    await hooks.deliveryHolds.remove({ ...b, ...first });
    const next = (await hooks.deliveryHolds.first(TENANT, WEBHOOK, subject))!;
    expect(next).toMatchObject({ eventId: b.eventId, parked: true });
    expect(await hooks.deliveryHolds.unpark({ ...b, ...next })).toBe(true);
  });
});
