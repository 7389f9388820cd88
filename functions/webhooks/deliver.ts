/**
 * Webhook delivery, as Standard Webhooks and Stripe do it: the event as it is kept, POSTed with
 * `webhook-id` (the event's id: the receiver deduplicates on it), `webhook-timestamp` and
 * `webhook-signature` (`v1,` HMAC-SHA256 by each secret in force: two during a rotation), to a
 * URL checked again on every attempt (DNS may have changed). A 2xx delivers; 410 Gone disables
 * the webhook; anything else (another status, a redirect, no answer within 15 s, a refused
 * address) is retried on the schedule with jitter, later if `Retry-After` asks, and after the
 * last attempt the delivery is FAILED. Every attempt is logged on the delivery.
 */
import { Webhook } from 'standardwebhooks';
import { OutboundFailed, OutboundRefused, type GuardedFetch, type GuardOptions } from '../shared/outbound.js';
import { eventExpiresAt, eventIdTime, type EventEnvelope } from '../shared/events.js';
import { ValidationError, WebhookNotFoundError, WebhookReplayLimitedError } from '../errors.js';
import { log } from '../observability/logger.js';
import type { DeliveryAttempt, DeliveryHolds, LinePlace, DeliveryMessage, DeliveryQueue, DeliveryRecord, DeliveryStatus, DeliveryStore, ReplayBudget, WebhookHealthStore, WebhookRecord, WebhookSecretSealer, WebhookStore } from './model.js';
import { later, REPLAY_LIMITS, wants } from './webhooks.js';
import { webhookSweepMarginSeconds } from '../config.js';
import { targetRefusal, type TargetSender } from './targets.js';
import { forRecordTenant } from '../shared/tenant-scope.js';

/** How long an endpoint has to answer (Standard Webhooks suggests 15 to 30 seconds). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/**
 * What is read of an answer. Only its status counts, but the guard fails an answer over its bound
 * (losing the status), so the bound is far above any acknowledgement or error page.
 */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** The longest a delivery waits for its next attempt (12 hours: `Retry-After` may ask for no more). */
const MAX_WAIT_SECONDS = 43_200 - 120;

/**
 * Failures in a row after which a webhook counts as failing: its deliveries' attempts are then
 * recorded without contacting the endpoint (`not attempted: endpoint failing`), on their usual
 * schedule, and one real attempt a PROBE_SECONDS (the probe) finds out when it answers again. So a
 * dead or hanging endpoint costs the shared workers at most one attempt's 15 seconds a minute,
 * instead of 15 seconds for every one of its deliveries.
 */
export const FAILING_AFTER = 5;
export const PROBE_SECONDS = 60;
/** How long a claim keeps other workers off a delivery: above one attempt (15 s) and its writes. */
const LEASE_SECONDS = 60;
/** The longest DelaySeconds SQS takes: a longer wait is sent on again when it comes back early. */
export const MAX_DELAY_SECONDS = 900;

export interface DeliverDeps {
  webhooks: Pick<WebhookStore, 'get' | 'update'>;
  deliveries: Pick<DeliveryStore, 'get' | 'record' | 'settle' | 'claim' | 'park'>;
  /** The subjects held by a delivery waiting for its retry, and those parked behind it (order.ts's line). */
  holds: DeliveryHolds;
  /** Failures in a row per webhook: a failing one is not contacted but by its probe. */
  health: WebhookHealthStore;
  /** Where every later attempt waits: the standard retry queue, with a delay. */
  queue: Pick<DeliveryQueue, 'retry'>;
  /** The event by its time and id; `subjectId` names its outbox shard (functions/store/outbox.ts). */
  outbox: { getEvent(tenantId: string, timestamp: string, id: string, subjectId?: string): Promise<EventEnvelope | undefined> };
  sealer: Pick<WebhookSecretSealer, 'unseal'>;
  fetch: GuardedFetch;
  /** What the URL guard allows besides public https:// (locally: a receiver on loopback over http://). */
  guard: Pick<GuardOptions, 'allowLoopback' | 'refusedEndpoints'>;
  /** A relying party's own SQS queue or EventBridge bus. */
  targets: TargetSender;
  /** Seconds before each retry (the first retry after the first failure). */
  retrySeconds: number[];
  /** How long past its due time a PENDING delivery waits before the sweeper queues it again. */
  sweepMarginSeconds: number;
  /** [0, 1): the jitter's draw. */
  random?: () => number;
}

export type DeliveryOutcome =
  | { done: true; status: DeliveryStatus }
  /** Its next attempt is queued on the retry lane, in `retryInSeconds`. */
  | { done: false; retryInSeconds: number }
  /** It waits, off the queues, behind an earlier delivery of its subject that waits for its retry. */
  | { done: false; parked: true }
  /** Not this message's turn: the delivery moved on since it was sent (a copy, a late original, a second sweep), or another worker holds it. */
  | { done: false; skipped: 'moved-on' | 'claimed' };

/** The signatures of a payload by each secret still in force, space-separated (Standard Webhooks). */
export async function signatures(d: Pick<DeliverDeps, 'sealer'>, w: WebhookRecord, eventId: string, payload: string, now: Date): Promise<string> {
  const live = w.secrets.filter((s) => !s.expiresAt || Date.parse(s.expiresAt) > now.getTime());
  const plain = await Promise.all(live.map((s) => d.sealer.unseal(s.sealed, { tenantId: w.tenantId, webhookId: w.id })));
  return plain.map((secret) => new Webhook(secret).sign(eventId, now, payload)).join(' ');
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

const plus = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
const same = (a: { eventTimestamp: string; eventId: string }, b: { eventTimestamp: string; eventId: string }) => a.eventTimestamp === b.eventTimestamp && a.eventId === b.eventId;

/** The message of a delivery's next attempt on the retry lane: it may make attempt `attempts + 1`, when `dueAt` has come. */
export function retryMessage(d: DeliveryRecord, attempts: number, dueAt?: string): DeliveryMessage {
  return { ...messageOf(d), lane: 'retry', attempt: attempts, ...(dueAt ? { dueAt } : {}) };
}

/** A place in a subject's line after `last` (the line's order is arrival: never before the last one). */
function placeAfter(last: LinePlace | undefined, now: Date): string {
  return new Date(Math.max(now.getTime(), last ? Date.parse(last.at) + 1 : 0)).toISOString();
}

/**
 * Parks a delivery at the end of its subject's line. The holder may have left between the look
 * and the parking: if this one is now first in line, it takes its turn (its place, else undefined).
 */
async function parkBehind(d: DeliverDeps, delivery: DeliveryRecord, now: Date): Promise<LinePlace | undefined> {
  const at = placeAfter(await d.holds.last(delivery.tenantId, delivery.webhookId, delivery.subjectId), now);
  await d.holds.put(delivery, at, true);
  await d.deliveries.park(delivery, now.toISOString(), plus(now, d.sweepMarginSeconds));
  const first = await d.holds.first(delivery.tenantId, delivery.webhookId, delivery.subjectId);
  return first && same(first, delivery) && (await d.holds.unpark({ ...delivery, at })) ? { ...first, parked: false } : undefined;
}

/**
 * A settled delivery leaves its subject's line; the next one parked behind it (if any) becomes
 * the holder and is queued for its attempt, on the retry lane. A next one settled meanwhile (a
 * replay delivered it) leaves the line too, and the one after it is looked at.
 */
export async function release(d: Pick<DeliverDeps, 'holds' | 'deliveries' | 'queue'>, delivery: DeliveryRecord, place: LinePlace): Promise<void> {
  let leaving: LinePlace = place;
  for (let i = 0; i < 100; i++) {
    await d.holds.remove({ ...delivery, ...leaving });
    const next = await d.holds.first(delivery.tenantId, delivery.webhookId, delivery.subjectId);
    // Nobody waits, or the first is a holder already (it has its own message).
    if (!next || !next.parked) return;
    if (!(await d.holds.unpark({ ...delivery, ...next }))) return;
    const record = await d.deliveries.get(delivery.tenantId, delivery.webhookId, next.eventTimestamp, next.eventId, { subjectId: delivery.subjectId });
    if (record?.status === 'PENDING') {
      await d.queue.retry(retryMessage(record, record.attempts.length), 0);
      return;
    }
    leaving = next;
  }
}

/**
 * One turn of a queued delivery. Safe to repeat: a delivery no longer PENDING is left as it is,
 * and a message may make only the attempt it was sent for (its `attempt`), claimed in one
 * conditional write, so copies (a late original, a sweep's) never make it twice.
 *
 * Order per subject without holding a queue: a failed attempt's delivery holds its subject (an
 * item in the table) and waits for its retry on the standard retry queue; a later event of that
 * subject, arriving from the FIFO queue, parks behind it (no message), and is queued when the
 * holder settles. So a failing endpoint holds no FIFO message group, no in-flight slot and no
 * place in the FIFO queue's 120,000-message window that every tenant's deliveries share.
 */
export async function deliver(d: DeliverDeps, m: DeliveryMessage, now: Date): Promise<DeliveryOutcome> {
  const delivery = await d.deliveries.get(m.tenantId, m.webhookId, m.eventTimestamp, m.eventId, { subjectId: m.subjectId });
  // Gone (past its 30 days) or already settled: SQS delivers at least once.
  if (!delivery || delivery.status !== 'PENDING') return { done: true, status: delivery?.status ?? 'DISCARDED' };
  if (m.attempt !== undefined && m.attempt !== delivery.attempts.length) return { done: false, skipped: 'moved-on' };

  // Behind whatever holds its subject, unless it is the holder (its own retry, or released from parking).
  let place = await d.holds.first(delivery.tenantId, delivery.webhookId, delivery.subjectId);
  if (place && !same(place, delivery)) {
    place = await parkBehind(d, delivery, now);
    if (!place) return { done: false, parked: true };
  }
  // In its subject's line (holding it): it lets the next one go when it settles.
  const held = place;
  // A retry before its time (the retry queue delays at most 15 minutes): sent on with the rest of the wait.
  if (delivery.nextAttemptAt && Date.parse(delivery.nextAttemptAt) - now.getTime() > 1000) {
    const wait = Math.ceil((Date.parse(delivery.nextAttemptAt) - now.getTime()) / 1000);
    await d.queue.retry(retryMessage(delivery, delivery.attempts.length, delivery.nextAttemptAt), Math.min(MAX_DELAY_SECONDS, wait));
    return { done: false, retryInSeconds: wait };
  }
  if (!(await d.deliveries.claim(delivery, m.attempt, plus(now, LEASE_SECONDS), now))) return { done: false, skipped: 'claimed' };

  const webhook = await d.webhooks.get(m.tenantId, m.webhookId);
  const event = await d.outbox.getEvent(m.tenantId, m.eventTimestamp, m.eventId, m.subjectId);
  // Deleted or disabled meanwhile, or it no longer asks for this event: not sent.
  if (!webhook || !event || !wants(webhook, event)) {
    await d.deliveries.settle(delivery, 'DISCARDED');
    if (held) await release(d, delivery, held);
    return { done: true, status: 'DISCARDED' };
  }

  const started = performance.now();
  let status: number | undefined;
  let error: string | undefined;
  let retryAfter: number | undefined;
  const refused = webhook.target && targetRefusal(webhook.target);
  if (refused) {
    // A target the rules refuse now (one stored before they did: the service's own delivery
    // queue would feed the worker its own deliveries). Its ARN cannot change, so no retry.
    await d.deliveries.record(delivery, { at: now.toISOString(), error: `refused: ${refused}`, latencyMs: 0 }, 'FAILED', undefined);
    if (held) await release(d, delivery, held);
    log().warn('webhook target refused at delivery', { webhookId: m.webhookId, eventId: m.eventId, reason: refused });
    return { done: true, status: 'FAILED' };
  }
  const health = await d.health.get(m.tenantId, m.webhookId);
  // A failing endpoint is tried once a probe interval (whoever takes the probe), not by every delivery.
  const failing =
    !!health?.probeAt &&
    health.failures >= FAILING_AFTER &&
    (Date.parse(health.probeAt) > now.getTime() || !(await d.health.takeProbe(m.tenantId, m.webhookId, health.probeAt, plus(now, PROBE_SECONDS))));
  if (failing) {
    error = 'not attempted: endpoint failing';
  } else if (webhook.target) {
    // The relying party's own queue or bus: authenticated by AWS, as the tenant's delivery role.
    try {
      await d.targets.send(webhook.target, event, { timestamp: now.toISOString(), ...(m.replay ? { replay: m.replay } : {}) });
      status = 200;
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      error = `target: ${err.name}`;
    }
  } else {
    const payload = JSON.stringify(event);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'arthr-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': await signatures(d, webhook, event.id, payload, now),
    };
    try {
      const res = await d.fetch(webhook.url!, { method: 'POST', headers, body: payload, redirect: 'manual' }, {
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        ...d.guard,
      });
      status = res.status;
      retryAfter = retryAfterSeconds(res.headers['retry-after'], now);
    } catch (err) {
      if (err instanceof OutboundRefused) error = `refused: ${err.rule}`;
      else if (err instanceof OutboundFailed) error = err.reason === 'response-too-large' ? 'answer too large' : err.reason;
      else throw err;
    }
  }
  const attempt: DeliveryAttempt = { at: now.toISOString(), ...(status !== undefined ? { status } : {}), ...(error ? { error } : {}), latencyMs: failing ? 0 : Math.round(performance.now() - started) };

  if (status !== undefined && status >= 200 && status < 300) {
    await d.deliveries.record(delivery, attempt, 'DELIVERED', undefined);
    if (health?.failures) await d.health.succeeded(m.tenantId, m.webhookId);
    if (held) await release(d, delivery, held);
    return { done: true, status: 'DELIVERED' };
  }
  if (status === 410) {
    // Gone: the endpoint asks to be sent nothing more (Standard Webhooks). Its owner enables it again.
    await d.deliveries.record(delivery, attempt, 'FAILED', undefined);
    await disable(d, webhook);
    if (held) await release(d, delivery, held);
    return { done: true, status: 'FAILED' };
  }
  if (!failing) await d.health.failed(m.tenantId, m.webhookId, FAILING_AFTER, plus(now, PROBE_SECONDS));
  const made = delivery.attempts.length - (delivery.attemptsBefore ?? 0) + 1;
  if (made > d.retrySeconds.length) {
    await d.deliveries.record(delivery, attempt, 'FAILED', undefined);
    if (held) await release(d, delivery, held);
    log().warn('webhook delivery failed for good', { webhookId: m.webhookId, eventId: m.eventId, attempts: made, status, error });
    return { done: true, status: 'FAILED' };
  }
  const base = d.retrySeconds[made - 1]!;
  const wait = Math.min(MAX_WAIT_SECONDS, Math.max(Math.round(base * (1 + 0.2 * (d.random ?? Math.random)())), retryAfter ?? 0));
  const next = plus(now, wait);
  // Its subject is held first: a later event of it that arrives meanwhile parks behind it.
  const attemptsNow = delivery.attempts.length + 1;
  // (Already its holder when it was in line: its place stays.)
  if (!held) await d.holds.put(delivery, placeAfter(await d.holds.last(delivery.tenantId, delivery.webhookId, delivery.subjectId), now), false);
  await d.deliveries.record(delivery, attempt, 'PENDING', next, plus(now, wait + d.sweepMarginSeconds));
  await d.queue.retry(retryMessage(delivery, attemptsNow, next), Math.min(MAX_DELAY_SECONDS, wait));
  return { done: false, retryInSeconds: wait };
}

async function disable(d: Pick<DeliverDeps, 'webhooks'>, webhook: WebhookRecord): Promise<void> {
  let current: WebhookRecord | undefined = webhook;
  // Over the record read; read again if its owner changed it meanwhile.
  for (let i = 0; i < 3 && current?.enabled; i++) {
    const next: WebhookRecord = { ...current, enabled: false, disabledReason: 'ENDPOINT_GONE', updatedDtm: later(new Date(), current.updatedDtm) };
    if (await d.webhooks.update(next, current.updatedDtm)) return;
    current = await d.webhooks.get(webhook.tenantId, webhook.id);
  }
}

/** A new delivery of an event to a webhook, waiting for its first attempt. */
export function pendingDelivery(event: EventEnvelope, webhookId: string, now: Date, sweepMarginSeconds: number): DeliveryRecord {
  const stamp = now.toISOString();
  return {
    tenantId: event.tenantId,
    webhookId,
    eventId: event.id,
    eventType: event.type,
    eventTimestamp: event.timestamp,
    subjectId: event.subject.id,
    status: 'PENDING',
    attempts: [],
    createdAt: stamp,
    updatedAt: stamp,
    expiresAt: eventExpiresAt(event),
    // Its first attempt is due now: the sweeper queues it again if it is still waiting after the margin.
    sweepAt: plus(now, sweepMarginSeconds),
  };
}

/**
 * The queue message of a delivery; `replay` makes it a new message, not a copy SQS would drop;
 * `attempt` the attempts it had when sent (the message may make the next one only).
 */
export function messageOf(d: Pick<DeliveryRecord, 'tenantId' | 'webhookId' | 'eventId' | 'eventTimestamp' | 'subjectId'>, replay?: string, attempt?: number): DeliveryMessage {
  return {
    tenantId: d.tenantId,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventTimestamp: d.eventTimestamp,
    subjectId: d.subjectId,
    ...(replay ? { replay } : {}),
    ...(attempt !== undefined ? { attempt } : {}),
  };
}

export interface FanOutDeps {
  webhooks: Pick<WebhookStore, 'list'>;
  deliveries: { start(record: DeliveryRecord): Promise<boolean> };
  queue: Pick<DeliveryQueue, 'send'>;
  /** The sweeper's margin (WEBHOOK_SWEEP_MARGIN_SECONDS when not given). */
  sweepMarginSeconds?: number;
}

/**
 * The events the relay put on the bus, to the webhooks that want them: a PENDING delivery each
 * (its log) and a queued message, in the events' order. Run again for the same events (the relay
 * retried), a delivery that exists is queued again and SQS's deduplication drops the copy.
 *
 * Each event's reads and writes act for the event's tenant (on AWS through the relay's tenant
 * role): the tenant of the outbox item it was read from (the relay checks the two agree). An
 * event naming no tenant fails the chunk. The queue is the function's own, for every tenant.
 */
export async function fanOut(d: FanOutDeps, events: readonly EventEnvelope[], now: Date): Promise<number> {
  const byTenant = new Map<string, Promise<WebhookRecord[]>>();
  const messages: DeliveryMessage[] = [];
  for (const event of events) {
    const started = await forRecordTenant(event.tenantId, async () => {
      let hooks = byTenant.get(event.tenantId);
      if (!hooks) byTenant.set(event.tenantId, (hooks = d.webhooks.list(event.tenantId)));
      const margin = d.sweepMarginSeconds ?? webhookSweepMarginSeconds();
      const mine = (await hooks).filter((w) => wants(w, event)).map((w) => pendingDelivery(event, w.id, now, margin));
      await Promise.all(mine.map((r) => d.deliveries.start(r)));
      return mine;
    });
    // Its first attempt: none made yet.
    messages.push(...started.map((r) => messageOf(r, undefined, 0)));
  }
  if (messages.length) await d.queue.send(messages);
  return messages.length;
}

export interface ReplayDeps {
  webhooks: Pick<WebhookStore, 'get'>;
  outbox: {
    getEvent(tenantId: string, timestamp: string, id: string): Promise<EventEnvelope | undefined>;
    range(tenantId: string, from: string, to: string, limit: number): Promise<EventEnvelope[]>;
  };
  deliveries: Pick<DeliveryStore, 'restart'>;
  queue: Pick<DeliveryQueue, 'sendReplays'>;
  budget: ReplayBudget;
  sweepMarginSeconds?: number;
}

/** The most events one replay reads (and sends again): within the route's time. */
export const MAX_REPLAY = 500;

/**
 * Sends events again to a webhook: one by its id, or those made in a time range (at most
 * MAX_REPLAY, oldest first), each that the webhook takes now. Its delivery becomes PENDING again
 * (earlier attempts kept in its log) and a new message is queued, in the events' order.
 */
export async function replay(
  d: ReplayDeps,
  tenantId: string,
  webhookId: string,
  body: { eventId?: string | null | undefined; from?: string | null | undefined; to?: string | null | undefined },
  now: Date,
): Promise<{ queued: number; more: boolean; last?: string }> {
  const webhook = await d.webhooks.get(tenantId, webhookId);
  if (!webhook) throw new WebhookNotFoundError('No such webhook in this tenant.');
  let events: EventEnvelope[];
  if (body.eventId) {
    if (body.from || body.to) throw new ValidationError('Give an eventId, or from and to, not both.', [{ location: 'body', message: 'eventId, or from and to' }]);
    const made = eventIdTime(body.eventId);
    const event = made && (await d.outbox.getEvent(tenantId, made.toISOString(), body.eventId));
    if (!event) throw new ValidationError('No such event in this tenant (events are kept 30 days).', [{ location: 'body.eventId', message: 'no such event' }]);
    events = [event];
  } else {
    if (!body.from || !body.to) throw new ValidationError('Give an eventId, or from and to.', [{ location: 'body', message: 'eventId, or from and to' }]);
    if (Date.parse(body.from) > Date.parse(body.to)) throw new ValidationError('from is after to.', [{ location: 'body.from', message: 'must not be after to' }]);
    events = await d.outbox.range(tenantId, new Date(body.from).toISOString(), new Date(body.to).toISOString(), MAX_REPLAY);
  }
  const targets = events.filter((e) => wants(webhook, e)).map((e) => pendingDelivery(e, webhookId, now, d.sweepMarginSeconds ?? webhookSweepMarginSeconds()));
  const budget = await d.budget.take(tenantId, webhookId, targets.length, now);
  if (!budget.ok) {
    const { windowSeconds, callsPerWebhook, deliveriesPerTenant } = REPLAY_LIMITS;
    throw new WebhookReplayLimitedError(
      budget.over === 'webhook'
        ? `This webhook was replayed ${callsPerWebhook} times in this ${windowSeconds / 60}-minute window, the most it may be; retry after ${budget.retryAfterSeconds} seconds.`
        : `This replay (${targets.length} deliveries) would take the tenant over its ${deliveriesPerTenant} replayed deliveries in this ${windowSeconds / 60}-minute window; retry after ${budget.retryAfterSeconds} seconds, or replay a shorter range.`,
      budget.retryAfterSeconds,
    );
  }
  // Ten at a time, each chunk queued right after it is made PENDING again: a replay cut short
  // leaves no delivery PENDING without its message. On the replay queue, whose workers are apart
  // from fresh deliveries': a replay waits behind other replays, never ahead of new events.
  for (let i = 0; i < targets.length; i += 10) {
    const chunk = targets.slice(i, i + 10);
    const before = await Promise.all(chunk.map((r) => d.deliveries.restart(r)));
    await d.queue.sendReplays(chunk.map((r, j) => ({ ...messageOf(r, String(now.getTime()), before[j]), lane: 'replay' as const })));
  }
  // The range held more events than one replay reads: the next replay starts after the last read.
  const more = !body.eventId && events.length === MAX_REPLAY;
  return { queued: targets.length, more, ...(more ? { last: events.at(-1)!.timestamp } : {}) };
}
