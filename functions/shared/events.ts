import { randomBytes } from 'node:crypto';
import { CROCKFORD, crockford } from './ids.js';

/**
 * An event as it leaves the service: written as an outbox item in the same DynamoDB transaction
 * as the change it reports, relayed from the table's stream to the EventBridge bus, and sent to
 * webhooks. It carries ids and statuses only: the end user's data stays behind the API, where
 * the relying party reads it with its token. The types and their schemas are the catalogue,
 * functions/events/catalogue.ts.
 */
export interface EventEnvelope {
  /** `evt_` and 26 characters: unique, the receiver's key for deduplication (`webhook-id`). */
  id: string;
  type: string;
  tenantId: string;
  /** When the change was made (ISO 8601, UTC, milliseconds). */
  timestamp: string;
  /** What the event is about: its events are delivered in order. */
  subject: { type: 'process-instance' | 'identity-user' | 'webhook'; id: string };
  data: Record<string, unknown>;
}

/** An event about a process instance (what an instance's events read lists). */
export type InstanceEventEnvelope = EventEnvelope & { subject: { type: 'process-instance'; id: string } };

/** How long an event is kept for reading, replay and redelivery (as Stripe keeps events: 30 days). */
export const EVENT_RETENTION_DAYS = 30;

/** When an event (and what is kept of its deliveries) expires: the TTL attribute, epoch seconds. */
export function eventExpiresAt(e: Pick<EventEnvelope, 'timestamp'>): number {
  return Math.floor(Date.parse(e.timestamp) / 1000) + EVENT_RETENTION_DAYS * 86_400;
}

/**
 * What every outbox item's sort key starts with, and no other item's: how the table stream's
 * consumer tells events from the rest of the table's writes (functions/store/keys.ts builds the
 * keys; functions/events/relay.ts filters on it).
 */
export const OUTBOX_SORT_PREFIX = 'EVT#';

/**
 * Where an event sits among its subject's events, in the order they were made: the outbox's sort
 * key (`EVT#{timestamp}#{id}`). A page of an instance's events starts after one.
 */
export function eventPosition(e: Pick<EventEnvelope, 'timestamp' | 'id'>): string {
  return `${OUTBOX_SORT_PREFIX}${e.timestamp}#${e.id}`;
}

/** The shape of an `eventPosition`: a cursor may carry no other. */
export const EVENT_POSITION = /^EVT#\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z#evt_[0-9A-HJKMNP-TV-Z]{26}$/;


let last = { ms: -1, random: 0n };

/**
 * `evt_` and 26 characters of Crockford's base 32: 48 bits of the time in milliseconds, then 80
 * random bits (a ULID), so ids sort by when they were made and cannot be guessed. Monotonic in a
 * process, as ULIDs may be: within one millisecond the random part counts up, so two events made
 * for one change (status-changed, then completed) keep their order in the outbox's sort key.
 */
export function newEventId(now: Date): string {
  const ms = now.getTime();
  const random = ms === last.ms ? (last.random + 1n) & ((1n << 80n) - 1n) : BigInt(`0x${randomBytes(10).toString('hex')}`);
  last = { ms, random };
  return `evt_${crockford((BigInt(ms) << 80n) | random, 26)}`;
}

/** What an identity store event says (its event log's record, functions/identity-store/model.ts). */
export interface IdentityEventRef {
  eventId: string;
  tenantId: string;
  /** The log's type, `PASSCODE_REGISTERED`: the outgoing event is `identity-store.passcode-registered`. */
  type: string;
  storeName: string;
  userId?: string;
  externalId?: string;
  at: string;
  actor: string;
  details: Record<string, string>;
}

/**
 * The outgoing event of an identity store event: the same instant, an id of its own (the log's
 * id stays the log's, as `logEventId`). `details` names the policy, credential or relying party,
 * or the reason of a failure; never a passcode, a verifier or a key.
 */
export function identityStoreEvent(e: IdentityEventRef): EventEnvelope {
  return {
    id: newEventId(new Date(e.at)),
    type: `identity-store.${e.type.toLowerCase().replaceAll('_', '-')}`,
    tenantId: e.tenantId,
    timestamp: e.at,
    subject: { type: 'identity-user', id: e.userId ?? e.externalId ?? e.storeName },
    data: {
      storeName: e.storeName,
      ...(e.userId ? { userId: e.userId } : {}),
      ...(e.externalId ? { externalId: e.externalId } : {}),
      logEventId: e.eventId,
      actor: e.actor,
      details: e.details,
    },
  };
}

/** When an event id was made: the ULID's first 48 bits (milliseconds); undefined for a string that is not an event id. */
export function eventIdTime(id: string): Date | undefined {
  const m = /^evt_([0-9A-HJKMNP-TV-Z]{10})[0-9A-HJKMNP-TV-Z]{16}$/.exec(id);
  if (!m) return undefined;
  let ms = 0;
  for (const c of m[1]!) ms = ms * 32 + CROCKFORD.indexOf(c);
  return new Date(ms);
}
