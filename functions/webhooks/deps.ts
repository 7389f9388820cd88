/**
 * The webhooks' storage and ports, put together here and only here: the subscriptions and their
 * deliveries (the table), the outbox, the delivery queues (SQS), the secrets' sealer (KMS), the
 * replay limits' counter (the table).
 */
import type { DeliveryQueue, DeliveryStore, ReplayBudget, WebhookSecretSealer, WebhookStore } from './model.js';
import { REPLAY_LIMITS } from './webhooks.js';
import { replayBudget } from '../store/rate-limits.js';
import { deliveryStore, webhookStore } from '../store/webhooks.js';
import { deliveryQueue } from '../adapters/delivery-queue.js';
import { outboxStore, type OutboxStore } from '../store/outbox.js';
import { webhookSecretSealer } from '../adapters/sealer.js';

export const webhooks: WebhookStore = webhookStore;
export const deliveries: DeliveryStore = deliveryStore;
export const queue: DeliveryQueue = deliveryQueue;
export const outbox: OutboxStore = outboxStore;
export const sealer: WebhookSecretSealer = webhookSecretSealer;
export const replayLimits: ReplayBudget = replayBudget(REPLAY_LIMITS);
