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
  /**
   * While PENDING: when the sweeper (functions/webhooks/sweep-deliveries.ts) may take the delivery
   * for one whose message was lost: its due time (created, next attempt, parked) plus a margin.
   * The store keeps it as the due index's keys (GSI3), removed when the delivery settles.
   */
  sweepAt?: string;
  /** Set while it waits behind an earlier delivery of its subject (held for its retry): see DeliveryHolds. */
  parkedAt?: string;
  /** Until when a worker holds it for an attempt (DeliveryStore.claim): no other attempt meanwhile. */
  leaseUntil?: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: number;
  /**
   * The store's own: set on a delivery it read from the webhook's partition from before shards,
   * so that its writes go back there. Never stored; absent on every delivery made since.
   */
  beforeShards?: true;
}

/**
 * How the store finds a delivery: by its subject (the subject's shard, then the partition from
 * before shards), or where the due index saw it (`dueForSweep`).
 */
export type DeliveryLocation = { subjectId: string } | { shard: number | 'beforeShards' };

/** What the delivery queue carries: which event, to which webhook. */
export interface DeliveryMessage {
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventTimestamp: string;
  subjectId: string;
  /** Set on a replay (its time): a new message, not a copy SQS's deduplication would drop. */
  replay?: string;
  /**
   * `replay`: it waits on the replay queue (DeliveryQueue.sendReplays), apart from fresh deliveries.
   * `retry`: a delivery already in its subject's order (held, or released from parking), on the
   * standard retry queue with a delay (DeliveryQueue.retry), never on a FIFO queue.
   */
  lane?: 'replay' | 'retry';
  /**
   * How many attempts the delivery had when this message was sent: the message may make the next
   * one only while that is still so (a copy, a late original or a second sweep finds it changed).
   * Absent on messages queued before it was kept: then not checked.
   */
  attempt?: number;
  /** On the retry lane: when its attempt is due (a message received earlier is sent on again with the rest of the delay). */
  dueAt?: string;
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

/** Which delivery: its tenant, webhook and event (and, from the due index, where it is kept). */
export type DeliveryKey = Pick<DeliveryRecord, 'tenantId' | 'webhookId' | 'eventTimestamp' | 'eventId'> & { location?: DeliveryLocation };

/**
 * A webhook's held subjects (functions/webhooks/deliver.ts): a delivery that failed and waits for
 * its retry holds its subject, and the later deliveries of that subject wait parked behind it, in
 * the order they arrived (the relay's order, which an event's own timestamp need not follow), off
 * the queues. One item per waiting delivery, sorted by subject, then when it joined the line
 * (`at`), so the first and the last of a subject are one Query each.
 */
export interface LinePlace {
  /** When it joined its subject's line (ISO 8601, ms): the line's order. */
  at: string;
  eventTimestamp: string;
  eventId: string;
  parked: boolean;
  /** The store's own: this place is in a line begun before shards (the webhook's old partition). */
  heldBeforeShards?: true;
}

export interface DeliveryHolds {
  /** The first waiting delivery of a subject (the holder, or a parked one whose holder has left), if any. */
  first(tenantId: string, webhookId: string, subjectId: string): Promise<LinePlace | undefined>;
  /** The last one in a subject's line, if any. */
  last(tenantId: string, webhookId: string, subjectId: string): Promise<LinePlace | undefined>;
  /** Adds the delivery to its subject's line at `at`: holding it, or parked. */
  put(d: DeliveryRecord, at: string, parked: boolean): Promise<void>;
  /** Takes the delivery out of its subject's line. */
  remove(d: DeliveryKey & { subjectId: string; at: string; heldBeforeShards?: true }): Promise<void>;
  /** Makes a parked delivery the holder, in one conditional write: false when it was not parked (someone else released it). */
  unpark(d: DeliveryKey & { subjectId: string; at: string; heldBeforeShards?: true }): Promise<boolean>;
}

/**
 * A webhook's endpoint health (functions/webhooks/health.ts): failures in a row, and while it
 * counts as failing, when it may next be tried (a probe).
 */
export interface WebhookHealthStore {
  get(tenantId: string, webhookId: string): Promise<{ failures: number; probeAt?: string } | undefined>;
  /** One more failure in a row; `probeAt` when that makes it failing. Answers the count. */
  failed(tenantId: string, webhookId: string, threshold: number, probeAt: string): Promise<number>;
  /** A success: no failures, not failing. */
  succeeded(tenantId: string, webhookId: string): Promise<void>;
  /** Takes the probe due at `seenProbeAt` (one conditional write), moving the next to `probeAt`: false when another took it. */
  takeProbe(tenantId: string, webhookId: string, seenProbeAt: string, probeAt: string): Promise<boolean>;
}

export interface DeliveryStore {
  /** A new delivery (PENDING); false when it exists (the relay ran the batch again). */
  start(record: DeliveryRecord): Promise<boolean>;
  /** A delivery made PENDING again (a replay), its earlier attempts kept; made when there was none. Answers how many attempts it had. */
  restart(record: DeliveryRecord): Promise<number>;
  /** The delivery, found by its subject (every caller but the sweeper knows it) or where the due index saw it. */
  get(tenantId: string, webhookId: string, eventTimestamp: string, eventId: string, location: DeliveryLocation): Promise<DeliveryRecord | undefined>;
  /**
   * Records an attempt and the delivery's new status (and ends its claim); `sweepAt` while it
   * stays PENDING (its next attempt's time and the sweeper's margin).
   */
  record(delivery: DeliveryRecord, attempt: DeliveryAttempt, status: DeliveryStatus, nextAttemptAt: string | undefined, sweepAt?: string): Promise<void>;
  /** Sets the status without an attempt (DISCARDED: the webhook is gone or disabled). */
  settle(delivery: DeliveryRecord, status: DeliveryStatus): Promise<void>;
  /**
   * Claims the delivery for one attempt, in one conditional write: only while it is PENDING,
   * still has `attempts` attempts (undefined: not checked) and no other claim is in force.
   * False when another message, worker or sweep got there first.
   */
  claim(delivery: DeliveryRecord, attempts: number | undefined, leaseUntil: string, now: Date): Promise<boolean>;
  /** Marks it parked behind an earlier delivery of its subject (or no longer: `parkedAt` undefined), and when the sweeper may look again. */
  park(delivery: DeliveryRecord, parkedAt: string | undefined, sweepAt: string): Promise<void>;
  /**
   * The sweeper's claim on a delivery it found due: moves its `sweepAt` on, only if it is still
   * PENDING with the `sweepAt` the sweeper read. False when another sweep or a worker changed it.
   */
  reschedule(delivery: DeliveryRecord, seenSweepAt: string, sweepAt: string): Promise<boolean>;
  /** Deliveries whose `sweepAt` is before `before`, from the due index, a page at a time. */
  dueForSweep(before: Date, cursor?: string): Promise<{ due: DeliveryKey[]; next?: string }>;
  /** A webhook's deliveries, newest first, a page at a time; `invalidToken` for a cursor this did not hand out. */
  page(tenantId: string, webhookId: string, size: number, cursor?: string): Promise<{ deliveries: DeliveryRecord[]; next?: string } | 'invalidToken'>;
  /**
   * The deliveries at these places (each in its subject's shard), in the order asked; a place with
   * no delivery is left out. Consistent reads, 100 a call.
   */
  many(tenantId: string, at: readonly DeliveryPlace[]): Promise<DeliveryRecord[]>;
}

/** Where one event's delivery to one webhook is kept, if it was made. */
export interface DeliveryPlace {
  webhookId: string;
  eventTimestamp: string;
  eventId: string;
  subjectId: string;
}

/**
 * The queues deliveries wait in: SQS FIFO, a message group per webhook and subject (so in order),
 * for their first attempt. Two FIFO lanes, each with workers of its own: fresh deliveries (the
 * relay's), and replays, so that one tenant's replay of hundreds of events never queues ahead of
 * another tenant's new event. A third, standard queue for every later attempt (retries, and
 * deliveries released from parking), with workers of its own too.
 */
export interface DeliveryQueue {
  /** Fresh deliveries, on the delivery queue. */
  send(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Replayed deliveries, on the replay queue (each message's `lane` is `replay`). */
  sendReplays(messages: readonly DeliveryMessage[]): Promise<void>;
  /**
   * A delivery's next attempt, on the standard retry queue with DelaySeconds (at most SQS's 15
   * minutes: a longer wait is sent on again when it arrives early). Never on a FIFO queue, so a
   * waiting delivery holds no message group, no place in a FIFO queue's window, and no batch.
   */
  retry(message: DeliveryMessage, delaySeconds: number): Promise<void>;
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
