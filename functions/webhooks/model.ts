/**
 * Webhooks' model: a tenant's subscriptions, their deliveries, and the storage and queue they
 * need. Types and plain constants only: `store/` imports this file.
 */

/** A signing secret, sealed at rest (KMS on AWS); `expiresAt` only on the one a rotation replaced. */
export interface SealedSecret {
  sealed: string;
  createdAt: string;
  /** Until when a replaced secret still signs (both signatures are sent meanwhile). */
  expiresAt?: string;
}

export interface WebhookRecord {
  tenantId: string;
  id: string;
  /** Where events are POSTed; absent when they go to `target` instead. */
  url?: string;
  /** A relying party's own SQS queue or EventBridge bus (functions/webhooks/targets.ts), instead of a URL. */
  target?: { type: 'sqs'; queueArn: string } | { type: 'eventbridge'; eventBusArn: string };
  description: string;
  /** Event types sent to it; `*` for all. */
  eventTypes: string[];
  /** Only instance events of these definitions (names); empty for all. Identity store events are not filtered by it. */
  processDefnNames: string[];
  enabled: boolean;
  /** Why it was disabled: by its owner, or because its endpoint answered 410 Gone. */
  disabledReason?: 'DISABLED' | 'ENDPOINT_GONE';
  /** The current secret first. */
  secrets: SealedSecret[];
  createdDtm: string;
  createdBy: string;
  updatedDtm: string;
}

/** One attempt at delivering an event to a webhook. */
export interface DeliveryAttempt {
  at: string;
  /** The HTTP status, or absent when no response came (`error` says why). */
  status?: number;
  error?: string;
  latencyMs: number;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'DISCARDED';

/** An event's delivery to one webhook: its log (kept 30 days, as events are). */
export interface DeliveryRecord {
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  /** When the event was made (the delivery's sort key, and its order). */
  eventTimestamp: string;
  subjectId: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** How many of `attempts` came before the last replay: the retry schedule counts from there. */
  attemptsBefore?: number;
  /** When the next attempt is due, while PENDING after a failure. */
  nextAttemptAt?: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: number;
}

/** What the delivery queue carries: which event, to which webhook. */
export interface DeliveryMessage {
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventTimestamp: string;
  subjectId: string;
  /** Set on a replay (its time): a new message, not a copy SQS's deduplication would drop. */
  replay?: string;
  /** `replay`: it waits on the replay queue (DeliveryQueue.sendReplays), apart from fresh deliveries. */
  lane?: 'replay';
}

export interface WebhookStore {
  /** The webhook, counted against the tenant's limit in the same write; `full` at the limit. */
  create(record: WebhookRecord, max: number): Promise<'created' | 'full'>;
  get(tenantId: string, id: string): Promise<WebhookRecord | undefined>;
  list(tenantId: string): Promise<WebhookRecord[]>;
  /** Written over the record read (`updatedDtm`): false when it changed meanwhile or is gone. */
  update(record: WebhookRecord, previousUpdatedDtm: string): Promise<boolean>;
  /** False when there was none. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

export interface DeliveryStore {
  /** A new delivery (PENDING); false when it exists (the relay ran the batch again). */
  start(record: DeliveryRecord): Promise<boolean>;
  /** A delivery made PENDING again (a replay), its earlier attempts kept; made when there was none. */
  restart(record: DeliveryRecord): Promise<void>;
  get(tenantId: string, webhookId: string, eventTimestamp: string, eventId: string): Promise<DeliveryRecord | undefined>;
  /** Records an attempt and the delivery's new status. */
  record(delivery: DeliveryRecord, attempt: DeliveryAttempt, status: DeliveryStatus, nextAttemptAt: string | undefined): Promise<void>;
  /** Sets the status without an attempt (DISCARDED: the webhook is gone or disabled). */
  settle(delivery: DeliveryRecord, status: DeliveryStatus): Promise<void>;
  /** A webhook's deliveries, newest first, a page at a time; `invalidToken` for a cursor this did not hand out. */
  page(tenantId: string, webhookId: string, size: number, cursor?: string): Promise<{ deliveries: DeliveryRecord[]; next?: string } | 'invalidToken'>;
}

/**
 * The queues deliveries wait in: SQS FIFO, a message group per webhook and subject (so in order).
 * Two lanes, each with workers of its own: fresh deliveries (the relay's), and replays, so that
 * one tenant's replay of hundreds of events never queues ahead of another tenant's new event.
 */
export interface DeliveryQueue {
  /** Fresh deliveries, on the delivery queue. */
  send(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Replayed deliveries, on the replay queue (each message's `lane` is `replay`). */
  sendReplays(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Hides a received message for `seconds` (the backoff before its next attempt), on the queue of its lane. */
  delay(receiptHandle: string, seconds: number, lane?: 'replay'): Promise<void>;
}

/**
 * A tenant's replay budget (counted in one conditional write): `ok` when the replay is within
 * both limits (and is counted), else which limit it is over and when its window ends.
 */
export interface ReplayBudget {
  take(tenantId: string, webhookId: string, deliveries: number, now: Date): Promise<{ ok: true } | { ok: false; over: 'webhook' | 'tenant'; retryAfterSeconds: number }>;
}

/** Seals a webhook's signing secret, bound to its tenant and webhook. */
export interface WebhookSecretSealer {
  seal(plain: string, ref: { tenantId: string; webhookId: string }): Promise<string>;
  unseal(sealed: string, ref: { tenantId: string; webhookId: string }): Promise<string>;
}
