import { describe, expect, it } from 'vitest';
import { instanceEvents } from '../../functions/events/catalogue.js';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { OutboundFailed, type GuardedFetch } from '../../functions/shared/outbound.js';
import { deliver, FAILING_AFTER, fanOut, PROBE_SECONDS, type DeliverDeps } from '../../functions/webhooks/deliver.js';
import { sweepDeliveries, type SweepDeps } from '../../functions/webhooks/sweep.js';
import type { DeliveryHolds, DeliveryMessage, DeliveryRecord, DeliveryStore, WebhookHealthStore, WebhookRecord } from '../../functions/webhooks/model.js';

const t0 = new Date('2026-05-01T12:00:00.000Z');
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const MARGIN = 1200;

function hook(tenantId: string, id: string): WebhookRecord {
  return {
    tenantId, id, url: `https://${tenantId}.example.com/in`, description: '', eventTypes: ['*'], processDefnNames: [], enabled: true,
    secrets: [{ sealed: SECRET, createdAt: t0.toISOString() }], createdDtm: t0.toISOString(), createdBy: 'apikey:k', updatedDtm: t0.toISOString(),
  };
}

const dkey = (r: { tenantId: string; webhookId: string; eventTimestamp: string; eventId: string }) => `${r.tenantId}|${r.webhookId}|${r.eventTimestamp}|${r.eventId}`;

/**
 * The table in memory, with DynamoDB's conditional writes as the store makes them: a claim only
 * while PENDING, at the attempt count and unleased; a reschedule only over the `sweepAt` read;
 * an unpark only while parked; the first of a subject's line in key order.
 */
function world(answers: Record<string, (n: number) => number | 'hang'>) {
  const deliveries = new Map<string, DeliveryRecord>();
  const holdItems = new Map<string, { subjectId: string; at: string; eventTimestamp: string; eventId: string; parked: boolean; tenantId: string; webhookId: string }>();
  const healths = new Map<string, { failures: number; probeAt?: string }>();
  const events = new Map<string, EventEnvelope>();
  const webhooks = new Map<string, WebhookRecord>();
  const queued: { message: DeliveryMessage; delay: number }[] = [];
  const sent: { tenantId: string; eventId: string }[] = [];
  let clock = t0;

  const store: Pick<DeliveryStore, 'get' | 'record' | 'settle' | 'claim' | 'park' | 'reschedule' | 'dueForSweep' | 'start'> = {
    start: async (r) => (deliveries.has(dkey(r)) ? false : (deliveries.set(dkey(r), structuredClone(r)), true)),
    get: async (t, w, ts, id) => structuredClone(deliveries.get(dkey({ tenantId: t, webhookId: w, eventTimestamp: ts, eventId: id }))),
    record: async (d, attempt, status, next, sweepAt) => {
      const r = deliveries.get(dkey(d))!;
      r.attempts.push(attempt);
      r.status = status;
      delete r.leaseUntil;
      delete r.parkedAt;
      if (next) r.nextAttemptAt = next;
      else delete r.nextAttemptAt;
      if (status === 'PENDING' && sweepAt) r.sweepAt = sweepAt;
      else delete r.sweepAt;
    },
    settle: async (d, status) => {
      const r = deliveries.get(dkey(d))!;
      r.status = status;
      delete r.sweepAt;
      delete r.leaseUntil;
    },
    claim: async (d, attempts, leaseUntil, now) => {
      const r = deliveries.get(dkey(d))!;
      if (r.status !== 'PENDING' || (r.leaseUntil && r.leaseUntil >= now.toISOString()) || (attempts !== undefined && r.attempts.length !== attempts)) return false;
      r.leaseUntil = leaseUntil;
      return true;
    },
    park: async (d, parkedAt, sweepAt) => {
      const r = deliveries.get(dkey(d))!;
      if (r.status !== 'PENDING') return;
      r.sweepAt = sweepAt;
      if (parkedAt) r.parkedAt = parkedAt;
      else delete r.parkedAt;
    },
    reschedule: async (d, seen, sweepAt) => {
      const r = deliveries.get(dkey(d))!;
      if (r.status !== 'PENDING' || r.sweepAt !== seen) return false;
      r.sweepAt = sweepAt;
      return true;
    },
    dueForSweep: async (before) => ({
      due: [...deliveries.values()].filter((r) => r.status === 'PENDING' && r.sweepAt && r.sweepAt < before.toISOString()).map((r) => ({ tenantId: r.tenantId, webhookId: r.webhookId, eventTimestamp: r.eventTimestamp, eventId: r.eventId })),
    }),
  };
  const holdKey = (d: { tenantId: string; webhookId: string; subjectId: string; at: string; eventTimestamp: string; eventId: string }) => `${d.tenantId}|${d.webhookId}|${d.subjectId}#${d.at}#${d.eventTimestamp}#${d.eventId}`;
  const line = (t: string, w: string, subject: string) => [...holdItems.keys()].filter((x) => x.startsWith(`${t}|${w}|${subject}#`)).sort();
  const place = (k: string | undefined) => {
    const h = k === undefined ? undefined : holdItems.get(k)!;
    return h && { at: h.at, eventTimestamp: h.eventTimestamp, eventId: h.eventId, parked: h.parked };
  };
  const holds: DeliveryHolds = {
    first: async (t, w, subject) => place(line(t, w, subject)[0]),
    last: async (t, w, subject) => place(line(t, w, subject).at(-1)),
    put: async (d, at, parked) => void holdItems.set(holdKey({ ...d, at }), { tenantId: d.tenantId, webhookId: d.webhookId, subjectId: d.subjectId, at, eventTimestamp: d.eventTimestamp, eventId: d.eventId, parked }),
    remove: async (d) => void holdItems.delete(holdKey(d)),
    unpark: async (d) => {
      const h = holdItems.get(holdKey(d));
      if (!h?.parked) return false;
      h.parked = false;
      return true;
    },
  };
  const health: WebhookHealthStore = {
    get: async (t, w) => structuredClone(healths.get(`${t}|${w}`)),
    failed: async (t, w, threshold, probeAt) => {
      const h = healths.get(`${t}|${w}`) ?? { failures: 0 };
      h.failures++;
      if (h.failures >= threshold && !h.probeAt) h.probeAt = probeAt;
      healths.set(`${t}|${w}`, h);
      return h.failures;
    },
    succeeded: async (t, w) => void healths.set(`${t}|${w}`, { failures: 0 }),
    takeProbe: async (t, w, seen, next) => {
      const h = healths.get(`${t}|${w}`);
      if (h?.probeAt !== seen) return false;
      h.probeAt = next;
      return true;
    },
  };
  const counts = new Map<string, number>();
  const fetch: GuardedFetch = async (url, init) => {
    const tenantId = new URL(url).hostname.split('.')[0]!;
    const n = counts.get(tenantId) ?? 0;
    counts.set(tenantId, n + 1);
    const a = answers[tenantId]!(n);
    sent.push({ tenantId, eventId: String(init.headers!['webhook-id']) });
    if (a === 'hang') {
      throw new OutboundFailed('timeout', 'no answer within 15 s');
    }
    return { status: a, statusText: '', headers: {}, body: Buffer.alloc(0), url, redirected: false };
  };
  const d: DeliverDeps = {
    webhooks: { get: async (t, id) => webhooks.get(`${t}|${id}`), update: async () => true },
    deliveries: store,
    holds,
    health,
    queue: { retry: async (message, delay) => void queued.push({ message, delay }) },
    outbox: { getEvent: async (_t, _ts, id) => events.get(id) },
    sealer: { unseal: async (s) => s },
    fetch,
    targets: { send: async () => undefined },
    guard: { allowLoopback: false },
    retrySeconds: [5, 300, 1800, 7200],
    sweepMarginSeconds: MARGIN,
    random: () => 0,
  };
  /** Events of a tenant's instance, fanned out to its webhook: the FIFO messages the relay would queue. */
  const emit = async (tenantId: string, subject: string, n: number, offsetsMs?: number[]): Promise<DeliveryMessage[]> => {
    if (!webhooks.has(`${tenantId}|w`)) webhooks.set(`${tenantId}|w`, hook(tenantId, 'w'));
    const out: DeliveryMessage[] = [];
    for (let i = 0; i < n; i++) {
      const [e] = instanceEvents.statusChanged({ tenantId, id: subject, processDefnId: 'd', processDefnName: 'kyc', processDefnVersion: 1 }, 'PENDING', 'ACTIVE', new Date(clock.getTime() + (offsetsMs?.[i] ?? i)), false);
      if (!e) throw new Error('no event');
      events.set(e.id, e);
      await fanOut({ webhooks: { list: async (t) => [...webhooks.values()].filter((w) => w.tenantId === t) }, deliveries: store, queue: { send: async (m) => void out.push(...m) }, sweepMarginSeconds: MARGIN }, [e], clock);
    }
    return out;
  };
  return {
    d, deliveries, holdItems, healths, queued, sent, emit, store, holds,
    now: () => clock,
    advance: (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000)),
    sweepDeps: (): SweepDeps => ({ deliveries: store, holds, queue: d.queue, sweepMarginSeconds: MARGIN }),
    /** Takes the retry queue's messages whose delay has passed, as the retry lane's workers receive them. */
    takeDue(sentAt: Date) {
      const ready = queued.filter((q) => sentAt.getTime() + q.delay * 1000 <= clock.getTime());
      for (const r of ready) queued.splice(queued.indexOf(r), 1);
      return ready.map((r) => r.message);
    },
  };
}

describe('deliver, per subject in order, off the FIFO queue', () => {
  it('parks a later event of a subject behind one waiting for its retry, lets other subjects by, and releases it in order', async () => {
    const w = world({ acme: (n) => (n === 0 ? 503 : 200) });
    const [a1, a2] = await w.emit('acme', 'pi-1', 2);
    const [b1] = await w.emit('acme', 'pi-2', 1);
    // a1 fails: it holds pi-1 and waits on the retry queue; its FIFO message is done with.
    expect(await deliver(w.d, a1!, w.now())).toEqual({ done: false, retryInSeconds: 5 });
    // a2 (same subject) parks behind it, unsent; b1 (another subject) goes at once.
    expect(await deliver(w.d, a2!, w.now())).toEqual({ done: false, parked: true });
    expect(await deliver(w.d, b1!, w.now())).toEqual({ done: true, status: 'DELIVERED' });
    expect(w.sent.map((s) => s.eventId)).toEqual([a1!.eventId, b1!.eventId]);
    // a1's retry: delivered, and a2 is let go, on the retry lane with no delay.
    const sentAt = w.now();
    w.advance(5);
    const [retry] = w.takeDue(sentAt);
    expect(await deliver(w.d, retry!, w.now())).toEqual({ done: true, status: 'DELIVERED' });
    const [released] = w.takeDue(w.now());
    expect(released).toMatchObject({ eventId: a2!.eventId, lane: 'retry', attempt: 0 });
    expect(await deliver(w.d, released!, w.now())).toEqual({ done: true, status: 'DELIVERED' });
    expect(w.sent.map((s) => s.eventId)).toEqual([a1!.eventId, b1!.eventId, a1!.eventId, a2!.eventId]);
    // The line is empty again: nothing held, nothing left.
    expect(w.holdItems.size).toBe(0);
    expect([...w.deliveries.values()].every((r) => r.status === 'DELIVERED' && r.sweepAt === undefined)).toBe(true);
  });

  it('keeps the order events arrived in, not their timestamps, in a subject\'s line', async () => {
    const w = world({ acme: (n) => (n === 0 ? 503 : 200) });
    // Relayed in this order, the third made a moment before the second (a step's time taken before its write).
    const [e1, e2, e3] = await w.emit('acme', 'pi-1', 3, [0, 5, 3]);
    await deliver(w.d, e1!, w.now());
    w.advance(0.001);
    expect(await deliver(w.d, e2!, w.now())).toEqual({ done: false, parked: true });
    expect(await deliver(w.d, e3!, w.now())).toEqual({ done: false, parked: true });
    w.advance(5);
    for (let i = 0; i < 3; i++) for (const m of w.takeDue(new Date(0))) await deliver(w.d, m, w.now());
    expect(w.sent.map((s) => s.eventId)).toEqual([e1!.eventId, e1!.eventId, e2!.eventId, e3!.eventId]);
  });

  it('makes an attempt once per message turn: a copy, a late original or a second message of the same attempt is skipped', async () => {
    const w = world({ acme: () => 503 });
    const [m] = await w.emit('acme', 'pi-1', 1);
    await deliver(w.d, m!, w.now());
    // The FIFO original again (SQS at least once): the delivery has moved on to its retry.
    expect(await deliver(w.d, m!, w.now())).toEqual({ done: false, skipped: 'moved-on' });
    const sentAt = w.now();
    w.advance(5);
    const [retry] = w.takeDue(sentAt);
    // Two copies of the retry (the one thought lost, and the sweeper's): a worker holds the claim.
    const lease = await w.store.claim(w.deliveries.values().next().value!, 1, new Date(w.now().getTime() + 60_000).toISOString(), w.now());
    expect(lease).toBe(true);
    expect(await deliver(w.d, retry!, w.now())).toEqual({ done: false, skipped: 'claimed' });
    expect(w.sent).toHaveLength(1);
  });
});

describe('deliver to a failing endpoint', () => {
  it(`stops contacting a webhook after ${FAILING_AFTER} failures in a row, probes it once a ${PROBE_SECONDS} s, and lets another tenant through at once`, async () => {
    const w = world({ dead: () => 'hang', live: () => 200 });
    const dead = await w.emit('dead', 'pi-x', 0);
    for (let i = 0; i < 20; i++) dead.push(...(await w.emit('dead', `pi-${i}`, 1)));
    const [live] = await w.emit('live', 'pi-l', 1);
    for (const m of dead) await deliver(w.d, m, w.now());
    // Only the first FAILING_AFTER reached the (hanging) endpoint; the rest were recorded without a call.
    expect(w.sent.filter((s) => s.tenantId === 'dead')).toHaveLength(FAILING_AFTER);
    const skipped = [...w.deliveries.values()].filter((r) => r.tenantId === 'dead' && r.attempts[0]?.error === 'not attempted: endpoint failing');
    expect(skipped).toHaveLength(20 - FAILING_AFTER);
    // Every one waits on the retry queue (none in a FIFO group), on its schedule.
    expect(w.queued.filter((q) => q.message.tenantId === 'dead')).toHaveLength(20);
    expect(await deliver(w.d, live!, w.now())).toEqual({ done: true, status: 'DELIVERED' });
    // Past the probe time, one retry takes the probe; the others are recorded without a call.
    const sentAt = w.now();
    w.advance(PROBE_SECONDS);
    for (const m of w.takeDue(sentAt)) await deliver(w.d, m, w.now());
    expect(w.sent.filter((s) => s.tenantId === 'dead')).toHaveLength(FAILING_AFTER + 1);
  });
});

describe('sweepDeliveries', () => {
  it('queues again a delivery whose message was lost, once however many sweeps, and never one that was delivered', async () => {
    const w = world({ acme: () => 200 });
    const [lost] = await w.emit('acme', 'pi-1', 1);
    const [fine] = await w.emit('acme', 'pi-2', 1);
    // `fine` is delivered; `lost`'s FIFO message never arrives.
    await deliver(w.d, fine!, w.now());
    // Within the margin: nothing is due.
    w.advance(MARGIN - 1);
    expect(await sweepDeliveries(w.sweepDeps(), w.now(), { maxDeliveries: 100 })).toMatchObject({ requeued: 0 });
    w.advance(2);
    // Two sweeps at once (a duplicate scheduled event): one queues it.
    const runs = await Promise.all([sweepDeliveries(w.sweepDeps(), w.now(), { maxDeliveries: 100 }), sweepDeliveries(w.sweepDeps(), w.now(), { maxDeliveries: 100 })]);
    expect(runs.map((r) => r.requeued).sort()).toEqual([0, 1]);
    expect(w.queued.map((q) => [q.message.eventId, q.message.lane, q.message.attempt])).toEqual([[lost!.eventId, 'retry', 0]]);
    expect(await deliver(w.d, w.queued[0]!.message, w.now())).toEqual({ done: true, status: 'DELIVERED' });
    // The original turning up late sends nothing more; nor does a later sweep.
    expect(await deliver(w.d, lost!, w.now())).toEqual({ done: true, status: 'DELIVERED' });
    w.advance(10 * MARGIN);
    expect(await sweepDeliveries(w.sweepDeps(), w.now(), { maxDeliveries: 100 })).toMatchObject({ looked: 0, requeued: 0 });
    expect(w.sent.map((s) => s.eventId)).toEqual([fine!.eventId, lost!.eventId]);
  });

  it('leaves a parked delivery behind a holder still waiting, and releases one whose holder settled without letting it go', async () => {
    const w = world({ acme: () => 503 });
    const [h1, p2] = await w.emit('acme', 'pi-1', 2);
    await deliver(w.d, h1!, w.now());
    expect(await deliver(w.d, p2!, w.now())).toEqual({ done: false, parked: true });
    // Past h1's retry (5 s) and the margin.
    w.advance(MARGIN + 10);
    // h1's retry message is lost too: the sweep queues h1 (its next attempt), and p2 stays parked.
    w.queued.length = 0;
    const run = await sweepDeliveries(w.sweepDeps(), w.now(), { maxDeliveries: 100 });
    expect(run).toMatchObject({ requeued: 1, stillParked: 1 });
    expect(w.queued.map((q) => q.message.eventId)).toEqual([h1!.eventId]);
    // h1 settles (a worker died before releasing p2): its line item goes, p2's stays parked.
    const rec = w.deliveries.get(dkey(h1!))!;
    rec.status = 'DELIVERED';
    delete rec.sweepAt;
    await w.holds.remove({ ...h1!, ...(await w.holds.first('acme', 'w', 'pi-1'))! });
    w.queued.length = 0;
    w.advance(MARGIN + 1);
    expect(await sweepDeliveries(w.sweepDeps(), w.now(), { maxDeliveries: 100 })).toMatchObject({ requeued: 1, stillParked: 0 });
    expect(w.queued.map((q) => [q.message.eventId, q.message.attempt])).toEqual([[p2!.eventId, 0]]);
  });
});
