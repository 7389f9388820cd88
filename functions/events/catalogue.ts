/**
 * The event catalogue: every type of event the service sends (to its EventBridge bus, to
 * webhooks), its payload's schema (the OpenAPI document's `webhooks`), and how each is made from
 * the change it reports. Payloads carry ids, names and statuses, never what the end user entered:
 * a subscriber reads that through the API with its own token.
 */
import * as z from '../shared/zod.js';
import { newEventId, type EventEnvelope } from '../shared/events.js';

export const PROCESS_INSTANCE_EVENT_TYPES = [
  'process-instance.created',
  'process-instance.status-changed',
  'process-instance.step-changed',
  'process-instance.completed',
  'process-instance.notification',
  'process-instance.reviewed',
] as const;
export type ProcessInstanceEventType = (typeof PROCESS_INSTANCE_EVENT_TYPES)[number];

/** The identity store's events (its event log's types, functions/identity-store/model.ts, in this catalogue's spelling). */
export const IDENTITY_STORE_EVENT_TYPES = [
  'identity-store.user-added',
  'identity-store.passcode-registered',
  'identity-store.passcode-deregistered',
  'identity-store.passcode-authenticated',
  'identity-store.passcode-authentication-failed',
  'identity-store.passcode-locked',
  'identity-store.passkey-registered',
  'identity-store.passkey-authenticated',
  'identity-store.passkey-authentication-failed',
] as const;
export type IdentityStoreEventType = (typeof IDENTITY_STORE_EVENT_TYPES)[number];

/** Sent to one webhook on its owner's request (`POST .../webhooks/{id}/test`), to try the endpoint. */
export const WEBHOOK_EVENT_TYPES = ['webhook.test'] as const;

export const EVENT_TYPES = [...PROCESS_INSTANCE_EVENT_TYPES, ...IDENTITY_STORE_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_ID_PATTERN = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

// ---------------------------------------------------------------------------------------------
// Process instances

/** What an instance event says of its instance (the fields of ProcessInstanceRecord it reads). */
export interface InstanceRef {
  tenantId: string;
  id: string;
  processDefnId: string;
  processDefnName: string;
  processDefnVersion: number;
  processTokenId?: string;
}

function instanceEvent(type: ProcessInstanceEventType, record: InstanceRef, now: Date, data: Record<string, unknown>): EventEnvelope {
  return {
    id: newEventId(now),
    type,
    tenantId: record.tenantId,
    timestamp: now.toISOString(),
    subject: { type: 'process-instance', id: record.id },
    data: {
      processInstanceId: record.id,
      processDefnId: record.processDefnId,
      processDefnName: record.processDefnName,
      processDefnVersion: record.processDefnVersion,
      ...(record.processTokenId ? { processTokenId: record.processTokenId } : {}),
      ...data,
    },
  };
}

export const instanceEvents = {
  created: (record: InstanceRef, now: Date) => instanceEvent('process-instance.created', record, now, { status: 'PENDING' }),
  /** A status change; into a `final` status (the caller knows which are) it is also the instance's `completed` event (two events, one write). */
  statusChanged(record: InstanceRef, from: string, to: string, now: Date, final: boolean): EventEnvelope[] {
    const changed = instanceEvent('process-instance.status-changed', record, now, { status: to, previousStatus: from });
    return final ? [changed, instanceEvent('process-instance.completed', record, now, { status: to })] : [changed];
  },
  /** The journey now waits for the end user at a user step. */
  stepChanged: (record: InstanceRef, step: { activityId: string; activityType: string }, now: Date) =>
    instanceEvent('process-instance.step-changed', record, now, { activityId: step.activityId, activityType: step.activityType }),
  /**
   * A Send Webhook step's notification, for one webhook: the body is what the definition's author
   * chose to send (values of its process variables), the one event that carries journey data.
   */
  notification: (record: InstanceRef, n: { webhookId: string; activityId: string; name: string; body: Record<string, unknown> }, now: Date) =>
    instanceEvent('process-instance.notification', record, now, { webhookId: n.webhookId, activityId: n.activityId, name: n.name, body: n.body }),
  /**
   * A reviewer decided (POST .../processInstances/{id}/review): the decision, who made it and
   * when, and the instance's status after it. Not the comment: read it through the API.
   */
  reviewed: (record: InstanceRef, r: { decision: string; status: string; previousStatus: string; reviewedBy: string; reviewedAt: string }, now: Date) =>
    instanceEvent('process-instance.reviewed', record, now, {
      decision: r.decision,
      status: r.status,
      previousStatus: r.previousStatus,
      reviewedBy: r.reviewedBy,
      reviewedAt: r.reviewedAt,
    }),
};

// ---------------------------------------------------------------------------------------------
// The identity store

// The outgoing event of an identity store event is made in functions/shared/events.ts
// (identityStoreEvent), where the store that writes it with the change can reach it.

// ---------------------------------------------------------------------------------------------
// Schemas (the OpenAPI document's `webhooks`: what a subscriber receives)

const DateTime = z.withMeta(z.string(), { format: 'date-time' });

const envelope = <T extends string>(types: readonly [T, ...T[]], subject: 'process-instance' | 'identity-user' | 'webhook', data: z.ZodMiniType) =>
  z.object({
    id: z.withMeta(z.string(), { description: 'Unique; the same in every delivery of the event (`webhook-id`): deduplicate on it.' }),
    type: z.enum(types),
    tenantId: z.string(),
    timestamp: z.withMeta(DateTime, { description: 'When the change was made.' }),
    subject: z.withMeta(z.object({ type: z.literal(subject), id: z.string() }), {
      description: 'What the event is about. Events of one subject reach a subscription in the order they were made.',
    }),
    data,
  });

const instanceData = {
  processInstanceId: z.string(),
  processDefnId: z.string(),
  processDefnName: z.string(),
  processDefnVersion: z.number().check(z.int()),
  processTokenId: z.optional(z.string()),
};

/** Each event type's payload, keyed by type. */
export const EVENT_SCHEMAS: Record<EventType, z.ZodMiniType> = {
  'process-instance.created': envelope(['process-instance.created'], 'process-instance', z.object({ ...instanceData, status: z.literal('PENDING') })),
  'process-instance.status-changed': envelope(
    ['process-instance.status-changed'],
    'process-instance',
    z.object({ ...instanceData, status: z.string(), previousStatus: z.string() }),
  ),
  'process-instance.step-changed': envelope(
    ['process-instance.step-changed'],
    'process-instance',
    z.object({
      ...instanceData,
      activityId: z.withMeta(z.string(), { description: 'The user step the journey now waits at.' }),
      activityType: z.string(),
    }),
  ),
  'process-instance.notification': envelope(
    ['process-instance.notification'],
    'process-instance',
    z.object({
      ...instanceData,
      webhookId: z.withMeta(z.string(), { description: 'The webhook it is sent to (and only to it).' }),
      activityId: z.withMeta(z.string(), { description: 'The Send Webhook step that sent it.' }),
      name: z.withMeta(z.string(), { description: "The step's Event Name." }),
      body: z.withMeta(z.record(z.string(), z.unknown()), { description: "The step's Body, its references replaced by the journey's values." }),
    }),
  ),
  'process-instance.reviewed': envelope(
    ['process-instance.reviewed'],
    'process-instance',
    z.object({
      ...instanceData,
      decision: z.withMeta(z.enum(['APPROVE', 'REJECT', 'REVIEW']), { description: "The reviewer's decision." }),
      status: z.withMeta(z.string(), { description: 'The status after it (a change also sends status-changed and completed).' }),
      previousStatus: z.string(),
      reviewedBy: z.withMeta(z.string(), { description: 'Who decided: the API key (`apikey:{id}`).' }),
      reviewedAt: DateTime,
    }),
  ),
  'process-instance.completed': envelope(
    ['process-instance.completed'],
    'process-instance',
    z.object({ ...instanceData, status: z.withMeta(z.string(), { description: 'The final status; the same instant also sends status-changed.' }) }),
  ),
  'webhook.test': envelope(
    ['webhook.test'],
    'webhook',
    z.object({ webhookId: z.withMeta(z.string(), { description: 'The webhook it was sent to (and only to it).' }) }),
  ),
  ...(Object.fromEntries(
    IDENTITY_STORE_EVENT_TYPES.map((type) => [
      type,
      envelope(
        [type],
        'identity-user',
        z.object({
          storeName: z.string(),
          userId: z.optional(z.string()),
          externalId: z.optional(z.string()),
          logEventId: z.withMeta(z.string(), { description: "The event's id in the identity store's event log." }),
          actor: z.withMeta(z.string(), { description: 'Who did it: an API key (`apikey:{id}`) or a journey (`journey:{processInstanceId}`).' }),
          details: z.record(z.string(), z.string()),
        }),
      ),
    ]),
  ) as unknown as Record<IdentityStoreEventType, z.ZodMiniType>),
};

/** What each event type reports (the `webhooks` entries' summaries). */
export const EVENT_SUMMARIES: Record<EventType, string> = {
  'process-instance.created': 'A process instance was created (status PENDING).',
  'process-instance.status-changed': "A process instance's status changed.",
  'process-instance.step-changed': 'A journey now waits for its end user at a user step.',
  'process-instance.completed': 'A process instance reached a final status.',
  'process-instance.notification': "A journey's Send Webhook step ran: sent to the one webhook it names, with the body it makes.",
  'process-instance.reviewed': "A reviewer approved, rejected or kept in review a process instance (its review's comment is read through the API).",
  'identity-store.user-added': 'A user was added to an identity store.',
  'identity-store.passcode-registered': 'A user registered a passcode.',
  'identity-store.passcode-deregistered': "A user's passcode was deregistered.",
  'identity-store.passcode-authenticated': 'A user proved a passcode.',
  'identity-store.passcode-authentication-failed': 'A passcode proof failed.',
  'identity-store.passcode-locked': 'Too many failed proofs locked a passcode.',
  'identity-store.passkey-registered': 'A user registered a passkey.',
  'identity-store.passkey-authenticated': 'A user authenticated with a passkey.',
  'identity-store.passkey-authentication-failed': 'A passkey authentication failed.',
  'webhook.test': "A test event, sent to one webhook at its owner's request.",
};

/** The test event for a webhook. */
export function webhookTestEvent(tenantId: string, webhookId: string, now: Date): EventEnvelope {
  return { id: newEventId(now), type: 'webhook.test', tenantId, timestamp: now.toISOString(), subject: { type: 'webhook', id: webhookId }, data: { webhookId } };
}
