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
import type { DeliveryAttempt, DeliveryMessage, DeliveryQueue, DeliveryRecord, DeliveryStatus, DeliveryStore, ReplayBudget, WebhookRecord, WebhookSecretSealer, WebhookStore } from './model.js';
import { later, REPLAY_LIMITS, wants } from './webhooks.js';
import { targetRefusal, type TargetSender } from './targets.js';

/** How long an endpoint has to answer (Standard Webhooks suggests 15 to 30 seconds). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/**
 * What is read of an answer. Only its status counts, but the guard fails an answer over its bound
 * (losing the status), so the bound is far above any acknowledgement or error page.
 */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/**
 * The longest a delivery waits for its next attempt: SQS's longest visibility timeout (12 hours),
 * which counts from when the message was received, less the attempt's 15 seconds and a margin.
 */
const MAX_WAIT_SECONDS = 43_200 - 120;

export interface DeliverDeps {
  webhooks: Pick<WebhookStore, 'get' | 'update'>;
  deliveries: Pick<DeliveryStore, 'get' | 'record' | 'settle'>;
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
  /** [0, 1): the jitter's draw. */
  random?: () => number;
}

export type DeliveryOutcome = { done: true; status: DeliveryStatus } | { done: false; retryInSeconds: number };

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

/** One attempt at a queued delivery. Safe to repeat: a delivery no longer PENDING is left as it is. */
export async function deliver(d: DeliverDeps, m: DeliveryMessage, now: Date): Promise<DeliveryOutcome> {
  const delivery = await d.deliveries.get(m.tenantId, m.webhookId, m.eventTimestamp, m.eventId);
  // Gone (past its 30 days) or already settled: SQS delivers at least once.
  if (!delivery || delivery.status !== 'PENDING') return { done: true, status: delivery?.status ?? 'DISCARDED' };
  const webhook = await d.webhooks.get(m.tenantId, m.webhookId);
  const event = await d.outbox.getEvent(m.tenantId, m.eventTimestamp, m.eventId, m.subjectId);
  // Deleted or disabled meanwhile, or it no longer asks for this event: not sent.
  if (!webhook || !event || !wants(webhook, event)) {
    await d.deliveries.settle(delivery, 'DISCARDED');
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
    log().warn('webhook target refused at delivery', { webhookId: m.webhookId, eventId: m.eventId, reason: refused });
    return { done: true, status: 'FAILED' };
  }
  if (webhook.target) {
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
  const attempt: DeliveryAttempt = { at: now.toISOString(), ...(status !== undefined ? { status } : {}), ...(error ? { error } : {}), latencyMs: Math.round(performance.now() - started) };

  if (status !== undefined && status >= 200 && status < 300) {
    await d.deliveries.record(delivery, attempt, 'DELIVERED', undefined);
    return { done: true, status: 'DELIVERED' };
  }
  if (status === 410) {
    // Gone: the endpoint asks to be sent nothing more (Standard Webhooks). Its owner enables it again.
    await d.deliveries.record(delivery, attempt, 'FAILED', undefined);
    await disable(d, webhook);
    return { done: true, status: 'FAILED' };
  }
  const made = delivery.attempts.length - (delivery.attemptsBefore ?? 0) + 1;
  if (made > d.retrySeconds.length) {
    await d.deliveries.record(delivery, attempt, 'FAILED', undefined);
    log().warn('webhook delivery failed for good', { webhookId: m.webhookId, eventId: m.eventId, attempts: made, status, error });
    return { done: true, status: 'FAILED' };
  }
  const base = d.retrySeconds[made - 1]!;
  const wait = Math.min(MAX_WAIT_SECONDS, Math.max(Math.round(base * (1 + 0.2 * (d.random ?? Math.random)())), retryAfter ?? 0));
  await d.deliveries.record(delivery, attempt, 'PENDING', new Date(now.getTime() + wait * 1000).toISOString());
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
function pendingDelivery(event: EventEnvelope, webhookId: string, now: Date): DeliveryRecord {
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
  };
}

/** The queue message of a delivery; `replay` makes it a new message, not a copy SQS would drop. */
export function messageOf(d: Pick<DeliveryRecord, 'tenantId' | 'webhookId' | 'eventId' | 'eventTimestamp' | 'subjectId'>, replay?: string): DeliveryMessage {
  return { tenantId: d.tenantId, webhookId: d.webhookId, eventId: d.eventId, eventTimestamp: d.eventTimestamp, subjectId: d.subjectId, ...(replay ? { replay } : {}) };
}

export interface FanOutDeps {
  webhooks: Pick<WebhookStore, 'list'>;
  deliveries: { start(record: DeliveryRecord): Promise<boolean> };
  queue: Pick<DeliveryQueue, 'send'>;
}

/**
 * The events the relay put on the bus, to the webhooks that want them: a PENDING delivery each
 * (its log) and a queued message, in the events' order. Run again for the same events (the relay
 * retried), a delivery that exists is queued again and SQS's deduplication drops the copy.
 */
export async function fanOut(d: FanOutDeps, events: readonly EventEnvelope[], now: Date): Promise<number> {
  const byTenant = new Map<string, Promise<WebhookRecord[]>>();
  const messages: DeliveryMessage[] = [];
  for (const event of events) {
    let hooks = byTenant.get(event.tenantId);
    if (!hooks) byTenant.set(event.tenantId, (hooks = d.webhooks.list(event.tenantId)));
    const started = (await hooks).filter((w) => wants(w, event)).map((w) => pendingDelivery(event, w.id, now));
    await Promise.all(started.map((r) => d.deliveries.start(r)));
    messages.push(...started.map((r) => messageOf(r)));
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
  const targets = events.filter((e) => wants(webhook, e)).map((e) => pendingDelivery(e, webhookId, now));
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
    await Promise.all(chunk.map((r) => d.deliveries.restart(r)));
    await d.queue.sendReplays(chunk.map((r) => ({ ...messageOf(r, String(now.getTime())), lane: 'replay' as const })));
  }
  // The range held more events than one replay reads: the next replay starts after the last read.
  const more = !body.eventId && events.length === MAX_REPLAY;
  return { queued: targets.length, more, ...(more ? { last: events.at(-1)!.timestamp } : {}) };
}
