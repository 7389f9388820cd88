/**
 * The webhooks' storage and ports, put together here and only here: the subscriptions and their
 * deliveries (the table), the subjects held for a retry and the endpoints' health (the table), the outbox, the delivery queues (SQS), the secrets' sealer (KMS), the
 * replay limits' counter (the table).
 */
import type { DeliveryHolds, DeliveryQueue, DeliveryStore, ReplayBudget, WebhookHealthStore, WebhookSecretSealer, WebhookStore } from './model.js';
import { REPLAY_LIMITS } from './webhooks.js';
import { replayBudget } from '../store/rate-limits.js';
import { deliveryHolds, deliveryStore, webhookHealthStore, webhookStore } from '../store/webhooks.js';
import { deliveryQueue } from '../adapters/delivery-queue.js';
import { outboxStore, type OutboxStore } from '../store/outbox.js';
import { webhookSecretSealer } from '../adapters/sealer.js';
import { tenantCredentials, type TenantCredentials } from '../adapters/tenant-credentials.js';
import { keys } from '../store/keys.js';

export const webhooks: WebhookStore = webhookStore;
export const deliveries: DeliveryStore = deliveryStore;
export const queue: DeliveryQueue = deliveryQueue;
export const holds: DeliveryHolds = deliveryHolds;
export const health: WebhookHealthStore = webhookHealthStore;
export const outbox: OutboxStore = outboxStore;
export const sealer: WebhookSecretSealer = webhookSecretSealer;
export const replayLimits: ReplayBudget = replayBudget(REPLAY_LIMITS);
/** The tenant an outbox item's key names (as the table's stream gives it), or undefined for another key. */
export const outboxTenant = (key: { PK: string; SK: string }): string | undefined => keys.parseOutboxEvent(key)?.tenantId;

/**
 * Sessions of the subscriber delivery role per tenant (functions/webhooks/targets.ts): STS
 * AssumeRole with the tenant's session tag, 15 minutes, kept per tenant while they last.
 */
export function subscriberSessions(): (roleArn: string, tenantId: string) => ReturnType<TenantCredentials> {
  const byRole = new Map<string, TenantCredentials>();
  return (roleArn, tenantId) => {
    let sessions = byRole.get(roleArn);
    if (!sessions) byRole.set(roleArn, (sessions = tenantCredentials({ roleArn, durationSeconds: 900 })));
    return sessions(tenantId);
  };
}

/** The delivery worker's. */
export const subscriberCredentials = subscriberSessions();
