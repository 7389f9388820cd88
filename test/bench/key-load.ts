/**
 * Section 9: the table's hottest partitions at 500 journeys a second for one tenant, on paper.
 * Every write a simulated journey makes is built with the stores' own item and key functions
 * (the instance, its session, its list views and term views, its events, the open-instance
 * index, the token's use on one of its use shards, each event's delivery to one webhook taking
 * every event: started, claimed, recorded, on the due index and off, its subject's line looked
 * at) and the rate limit's own leased counter; each write is billed as
 * DynamoDB bills it (1 KB write units; twice in a transaction; a GSI write per index entry put,
 * changed or removed) and summed per partition key, once with the keys as they are (sharded)
 * and once with each sharded key's partition from before shards. No AWS call, no timing.
 */
import { randomUUID } from 'node:crypto';
import type { ProcessInstanceRecord } from '../../functions/process-manager/model.js';
import { instanceEvents } from '../../functions/events/catalogue.js';
import { keys } from '../../functions/store/keys.js';
import { outboxItem } from '../../functions/store/outbox.js';
import { instanceItemsForBench, viewItems } from '../../functions/store/process-instances.js';
import { sessionItem } from '../../functions/store/sessions.js';
import { rateLimitStore } from '../../functions/store/rate-limits.js';
import { leasedRateCounter } from '../../functions/auth/rate-limit.js';
import type { ProcessTokenRecord } from '../../functions/process-manager/model.js';
import { tokenUseItem, useShardItems } from '../../functions/store/process-tokens.js';
import { deliveryItem } from '../../functions/store/webhooks.js';
import { pendingDelivery } from '../../functions/webhooks/deliver.js';
import { PROCESS_TOKEN_USE_SHARDS } from '../../functions/store/shards.js';
import { executionEndsPerSecond, RESERVED_DEFAULTS, TARGET_JOURNEY_ENDS_PER_SECOND } from '../../lib/concurrency.js';
import { round, table } from './stats.js';

/** DynamoDB's per-partition-key limits, a second. */
export const PARTITION_WCU = 1_000;
export const PARTITION_RCU = 3_000;

const TENANT = 'bench';

/** An item's size as DynamoDB counts it: attribute names and values (numbers about a byte per two digits). */
export function itemBytes(value: unknown, name = ''): number {
  const n = Buffer.byteLength(name);
  if (value === null || value === undefined || typeof value === 'boolean') return n + 1;
  if (typeof value === 'string') return n + Buffer.byteLength(value);
  if (typeof value === 'number') return n + Math.ceil(String(Math.abs(value)).replace('.', '').length / 2) + 1;
  if (Array.isArray(value)) return n + 3 + value.reduce<number>((s, v) => s + 1 + itemBytes(v), 0);
  return n + 3 + Object.entries(value as Record<string, unknown>).reduce((s, [k, v]) => s + 1 + itemBytes(v, k), 0);
}

const units = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / per));

/** One write (or read) of a partition: its key as written now, and as it was before shards. */
interface Touch {
  kind: string;
  after: string;
  before: string;
  wru: number;
  rru: number;
}

/** The one multi-use token every simulated journey starts from (a QR code), as the store makes it. */
const TOKEN: ProcessTokenRecord = {
  tenantId: TENANT,
  id: 'tok-1',
  name: 'qr',
  description: '',
  status: 'ACTIVE',
  type: 'MULTI_USE_COUNT_LIMITED',
  maxCount: 1_000_000,
  counter: 0,
  validFromDtm: null,
  validToDtm: null,
  processDefnName: 'identity-check',
  processDefnVersion: '3',
  processDefnTag: null,
  processDefnId: 'def-1',
  uiUrl: 'https://bench.fir.example.com/journey',
  parameters: {},
  processInstanceInit: null,
  maxProcessDuration: null,
  createdDtm: '2026-01-01T00:00:00.000Z',
  createdBy: 'apikey-1',
};
const TOKEN_SHARDS = useShardItems(TOKEN, TOKEN.maxCount, {});
const WEBHOOK = 'wh-1';

/** The keys a partition had before shards (the stores' own "no shard" forms). */
function unsharded(pk: string): string {
  if (keys.parseOutboxEvent({ PK: pk, SK: keys.outboxSortPrefix })) return keys.legacyOutboxPartition(TENANT);
  if (/#OPEN#\d{2}$/.test(pk)) return keys.instanceOpenPartition(TENANT);
  if (/#PIV#/.test(pk)) return pk.replace(/#\d{2}$/, '');
  // A use shard: before shards the token's own item counted.
  if (/#PTUSE#/.test(pk)) return keys.processToken(TENANT, TOKEN.id).PK;
  if (/#WHDLV#[^#]+#\d{2}$/.test(pk)) return keys.webhookDeliveryPartition(TENANT, WEBHOOK);
  if (/#WHHOLD#[^#]+#\d{2}$/.test(pk)) return keys.webhookHoldPartition(TENANT, WEBHOOK);
  if (/#WHDUE#\d{2}$/.test(pk)) return pk.replace(/#\d{2}$/, '');
  return pk;
}

function kindOf(pk: string): string {
  if (keys.parseOutboxEvent({ PK: pk, SK: keys.outboxSortPrefix })) return 'outbox (events)';
  if (/#PTUSE#/.test(pk)) return 'process token: the use of one multi-use token';
  if (/#WHDLV#/.test(pk)) return 'webhook deliveries (one webhook, every event)';
  if (/#WHDUE(#\d{2})?$/.test(pk)) return 'webhook due index (GSI3)';
  if (/#WHHOLD#/.test(pk)) return 'webhook subject lines (looked at per attempt)';
  if (/#OPEN(#\d{2})?$/.test(pk)) return 'open-instance index (GSI2)';
  const view = /#PIV#([TSDW])/.exec(pk);
  if (view) return { T: 'list view T: every instance (GSI1)', S: 'list view S: by status (GSI1)', D: 'list view D: by definition (GSI1)', W: 'list view W: by search term (GSI1)' }[view[1] as 'T'];
  if (pk === keys.processTokenPartition(TENANT)) return 'process tokens (the token read per use)';
  if (pk.includes('#PI#')) return 'the instance\'s own partition';
  if (/#PIEVT#/.test(pk)) return 'an instance\'s events (GSI1)';
  if (pk.endsWith('#RATE')) return 'rate-limit lease item';
  return pk;
}

const touch = (pk: string, wru: number, rru = 0): Touch => ({ kind: kindOf(pk), after: pk, before: unsharded(pk), wru, rru });

/** A base-table write in a transaction (2 units a KB), and the GSI entries it puts (1 unit a KB each). */
function write(item: Record<string, unknown>, transactional = true): Touch[] {
  const bytes = itemBytes(item);
  const out = [touch(String(item.PK), units(bytes, 1024) * (transactional ? 2 : 1))];
  if (item.GSI1PK) out.push(touch(String(item.GSI1PK), units(bytes, 1024)));
  // GSI2 and GSI3 project keys only.
  if (item.GSI2PK) out.push(touch(String(item.GSI2PK), 1));
  if (item.GSI3PK) out.push(touch(String(item.GSI3PK), 1));
  return out;
}

/**
 * An event's outbox item written with its change, then read by the relay and by one webhook's
 * delivery (consistent reads, 4 KB units); and that delivery (functions/webhooks/deliver.ts on
 * a healthy endpoint): started (its item, on the due index), read and its subject's line looked
 * at by the worker, claimed, and recorded DELIVERED (off the due index).
 */
function event(e: Parameters<typeof outboxItem>[0], at: Date): Touch[] {
  const item = outboxItem(e);
  const delivery = pendingDelivery(e, WEBHOOK, at, 1200);
  const started = deliveryItem(delivery);
  const done = deliveryItem({ ...delivery, status: 'DELIVERED', attempts: [{ at: at.toISOString(), status: 200, latencyMs: 120 }], sweepAt: undefined });
  const pk = String(started.PK);
  return [
    ...write(item),
    touch(String(item.PK), 0, 2 * units(itemBytes(item), 4096)),
    ...write(started, false),
    touch(pk, 0, units(itemBytes(started), 4096)),
    touch(keys.webhookHold(TENANT, WEBHOOK, delivery.subjectId, at.toISOString(), delivery.eventTimestamp, delivery.eventId).PK, 0, 1),
    touch(pk, units(itemBytes(started), 1024)),
    touch(pk, units(itemBytes(done), 1024)),
    touch(String(started.GSI3PK), 1),
  ];
}

/** Every partition one journey touches: created from a token, one user step, ACTIVE, then a final status. */
export function journeyTouches(id: string, at: Date): Touch[] {
  const record: ProcessInstanceRecord = {
    tenantId: TENANT,
    id,
    processDefnId: 'def-1',
    processDefnName: 'identity-check',
    processDefnVersion: 3,
    processTokenId: 'tok-1',
    status: 'PENDING',
    createdAt: at.toISOString(),
    lastUpdatedAt: at.toISOString(),
    retentionDays: 90,
    expiringDtm: new Date(at.getTime() + 90 * 86_400_000).toISOString(),
    expiresAt: Math.floor(at.getTime() / 1000) + 90 * 86_400,
    parameters: { firstName: 'Ann', lastName: 'Example', email: 'ann@example.com', _redirectUrl: 'https://rp.example.com/done' },
    capabilityHash: 'x'.repeat(43),
    stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:arthr-fir-0123456789abcdef0123456789abcdef',
    createdBy: 'apikey-1',
    reconcileAt: new Date(at.getTime() + 15 * 60_000).toISOString(),
  } as ProcessInstanceRecord;
  const [instance] = instanceItemsForBench(record);
  const out: Touch[] = [];
  // Creation: the token's use (read, then counted: one multi-use token, as a QR code hands out), the instance (on the open index), its session, its event, its views.
  out.push(touch(keys.processToken(TENANT, TOKEN.id).PK, 0, 1));
  const shard = Math.floor(Math.random() * TOKEN_SHARDS.length);
  const use = tokenUseItem({ ...TOKEN, useShards: TOKEN_SHARDS.length }, at, shard);
  out.push(touch(String('Update' in use ? use.Update.Key?.PK : ''), 2 * units(itemBytes(TOKEN_SHARDS[shard]), 1024)));
  out.push(...write({ ...instance!, ...keys.instanceOpen(TENANT, record.reconcileAt!, id) }));
  out.push(...write(sessionItem(TENANT, id, 0, { instance: { id }, parameters: record.parameters }, record.expiresAt)));
  out.push(...event(instanceEvents.created(record, at), at));
  for (const v of viewItems(record)) out.push(...write(v.item));
  // A user step: the step item and its event, with the instance's lastUpdatedAt.
  out.push(touch(keys.instancePartition(TENANT, id), 2), touch(keys.instancePartition(TENANT, id), 2));
  out.push(...event(instanceEvents.stepChanged(record, { activityId: 'form', activityType: 'dataForm' }, at), at));
  // Two status changes: the views written anew (a status view moves: out of one partition, into another), the events.
  for (const [from, to, final] of [['PENDING', 'ACTIVE', false], ['ACTIVE', 'COMPLETED_ENDED_SUCCESS', true]] as const) {
    out.push(touch(keys.instancePartition(TENANT, id), 2));
    const was = viewItems({ ...record, status: from });
    for (const v of viewItems({ ...record, status: to })) {
      out.push(...write(v.item));
      const old = was.find((w) => w.name === v.name)!;
      if (old.item.GSI1PK !== v.item.GSI1PK) out.push(touch(String(old.item.GSI1PK), 1));
    }
    // Off the open index with the final status.
    if (final) out.push(touch(keys.instanceOpen(TENANT, record.reconcileAt!, id).GSI2PK, 1));
    for (const e of instanceEvents.statusChanged(record, from, to, at, final)) out.push(...event(e, at));
  }
  return out;
}

/** Lease writes on the tenant's rate window in one steady second: `requests` spread over `containers`, through the real leased counter. */
async function rateLeaseWrites(requests: number, containers: number, limit: number): Promise<{ writes: number; pk: string }> {
  let writes = 0;
  // The store's own lease arithmetic, without a table: one write per call, granted while the second has room.
  const taken = new Map<number, number>();
  const store = {
    async lease(_t: string, now: Date, lim: number, want: number): Promise<number> {
      writes++;
      const s = Math.floor(now.getTime() / 1000);
      const got = Math.min(want, lim - (taken.get(s) ?? 0));
      taken.set(s, (taken.get(s) ?? 0) + Math.max(0, got));
      return Math.max(0, got);
    },
  } satisfies Pick<typeof rateLimitStore, 'lease'>;
  const counters = Array.from({ length: containers }, () => leasedRateCounter(store));
  const start = Date.UTC(2026, 0, 1);
  let steady = 0;
  for (let second = 0; second < 3; second++) {
    writes = 0;
    for (let i = 0; i < requests; i++) await counters[i % containers]!.take(TENANT, new Date(start + second * 1000 + Math.floor((i * 1000) / requests)), limit);
    steady = writes;
  }
  return { writes: steady, pk: keys.rateWindow(TENANT, 0).PK };
}

export interface KeyLoadFigures {
  journeysPerSecond: number;
  journeys: number;
  perJourney: { kind: string; wru: number; rru: number; keysBefore: number; keysAfter: number; hottestBefore: number; hottestAfter: number; rruHottestAfter: number }[];
  hottest: { before: { pk: string; wru: number }; after: { pk: string; wru: number } };
  rate: { requestsPerSecond: number; containers: number; leaseWrites: number };
  executionEnd: { reserved: number; endsPerSecond: number; target: number };
}

/** Simulates `seconds` of `journeysPerSecond` journeys of one tenant and sums each partition's units. */
export async function measureKeyLoad(journeysPerSecond = 500, seconds = 10): Promise<KeyLoadFigures> {
  const journeys = journeysPerSecond * seconds;
  const all: Touch[] = [];
  const at = new Date(Date.UTC(2026, 0, 1));
  for (let j = 0; j < journeys; j++) all.push(...journeyTouches(randomUUID(), at));
  // Two counted requests a journey (its token's issue and its creation), over 100 containers.
  const requestsPerSecond = 2 * journeysPerSecond;
  const rate = await rateLeaseWrites(requestsPerSecond, 100, 2 * requestsPerSecond);
  for (let s = 0; s < seconds; s++) for (let w = 0; w < rate.writes; w++) all.push(touch(rate.pk, 1));

  const sum = (pick: (t: Touch) => string, of: 'wru' | 'rru', list: Touch[]) => {
    const m = new Map<string, number>();
    for (const t of list) m.set(pick(t), (m.get(pick(t)) ?? 0) + t[of]);
    return m;
  };
  const max = (m: Map<string, number>) => [...m.entries()].reduce((b, e) => (e[1] > b[1] ? e : b), ['', 0] as [string, number]);
  const kinds = [...new Set(all.map((t) => t.kind))];
  const perJourney = kinds
    .map((kind) => {
      const mine = all.filter((t) => t.kind === kind);
      const before = sum((t) => t.before, 'wru', mine);
      const after = sum((t) => t.after, 'wru', mine);
      return {
        kind,
        wru: round(mine.reduce((s, t) => s + t.wru, 0) / journeys, 2),
        rru: round(mine.reduce((s, t) => s + t.rru, 0) / journeys, 2),
        keysBefore: before.size,
        keysAfter: after.size,
        hottestBefore: round(max(before)[1] / seconds, 0),
        hottestAfter: round(max(after)[1] / seconds, 0),
        rruHottestAfter: round(max(sum((t) => t.after, 'rru', mine))[1] / seconds, 0),
      };
    })
    .sort((a, b) => b.hottestBefore - a.hottestBefore);
  const [beforePk, beforeWru] = max(sum((t) => t.before, 'wru', all));
  const [afterPk, afterWru] = max(sum((t) => t.after, 'wru', all));
  return {
    journeysPerSecond,
    journeys,
    perJourney,
    hottest: { before: { pk: beforePk, wru: round(beforeWru / seconds, 0) }, after: { pk: afterPk, wru: round(afterWru / seconds, 0) } },
    rate: { requestsPerSecond, containers: 100, leaseWrites: rate.writes },
    executionEnd: { reserved: RESERVED_DEFAULTS.executionEnd, endsPerSecond: Math.round(executionEndsPerSecond(RESERVED_DEFAULTS.executionEnd)), target: TARGET_JOURNEY_ENDS_PER_SECOND },
  };
}

/** Section 9's tables. */
export function printKeyLoad(f: KeyLoadFigures, log: (text: string) => void): void {
  const pct = (wru: number, limit = PARTITION_WCU) => `${round((wru / limit) * 100, 1)}%`;
  // "The number of tenants" is one: the tenant's own keys (instances' partitions: one per instance).
  log(
    table([
      ['key kind (one tenant)', 'WRU/journey', 'RRU/journey', 'keys before', 'keys after', 'hottest WRU/s before', 'of 1,000', 'hottest WRU/s after', 'of 1,000', 'RRU/s after'],
      ...f.perJourney.map((k) => [k.kind, k.wru, k.rru, k.keysBefore, k.keysAfter, k.hottestBefore, pct(k.hottestBefore), k.hottestAfter, pct(k.hottestAfter), k.rruHottestAfter]),
    ]),
  );
  log(
    `${f.journeysPerSecond} journeys/s for one tenant (${f.journeys.toLocaleString('en')} simulated, each created from one multi-use token (${PROCESS_TOKEN_USE_SHARDS} use shards), one user step, ACTIVE, COMPLETED_ENDED_SUCCESS; every event read by the relay and delivered to one webhook).`,
  );
  log(`hottest partition before shards: ${f.hottest.before.pk} ${f.hottest.before.wru} WRU/s, ${pct(f.hottest.before.wru)} of ${PARTITION_WCU.toLocaleString('en')}`);
  log(`hottest partition after shards:  ${f.hottest.after.pk} ${f.hottest.after.wru} WRU/s, ${pct(f.hottest.after.wru)} of ${PARTITION_WCU.toLocaleString('en')}`);
  // What one tenant can run before its hottest partition reaches the limit (write units grow with journeys).
  const ceiling = (wru: number) => Math.floor((PARTITION_WCU / wru) * f.journeysPerSecond);
  const bar = f.perJourney.filter((k) => k.kind !== f.perJourney.find((p) => p.hottestAfter === Math.max(...f.perJourney.map((q) => q.hottestAfter)))!.kind);
  log(
    `journeys/s one tenant can run before a partition reaches ${PARTITION_WCU.toLocaleString('en')} WRU/s: before shards ${ceiling(f.hottest.before.wru)}, ` +
      `after ${ceiling(f.hottest.after.wru)} (${kindOf(f.hottest.after.pk)}; ${ceiling(Math.max(...bar.map((k) => k.hottestAfter)))} without it)`,
  );
  log(`rate-limit leases: ${f.rate.requestsPerSecond} counted requests/s over ${f.rate.containers} containers cost ${f.rate.leaseWrites} lease writes/s on one item (${pct(f.rate.leaseWrites)}).`);
  log(`execution-end: reserved ${f.executionEnd.reserved} (-c reservedConcurrency=true) records about ${f.executionEnd.endsPerSecond} ends/s, target ${f.executionEnd.target}.`);
}
