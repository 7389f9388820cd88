import { getStoreConfig, webhookRetrySeconds } from '../config.js';
import { guardedFetch } from '../shared/outbound.js';
import { log } from '../observability/logger.js';
import type { DeliveryMessage, DeliveryQueue } from './model.js';
import { deliver, type DeliverDeps } from './deliver.js';
import { deliveries, outbox, queue, sealer, webhooks } from './deps.js';
import { webhookGuard } from './webhooks.js';
import { awsTargetSender } from './targets.js';

/** Kept for the function's life: its per-tenant credentials are renewed, not fetched per message. */
const targets = awsTargetSender();

/** The part of an SQS record read here: the same in a Lambda event and (reshaped) from ReceiveMessage locally. */
export interface QueueRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: { MessageGroupId?: string };
}

export function deliverDeps(): DeliverDeps & { queue: Pick<DeliveryQueue, 'delay'> } {
  const config = getStoreConfig();
  return {
    queue,
    webhooks,
    deliveries,
    outbox,
    sealer,
    fetch: guardedFetch,
    targets,
    guard: webhookGuard(),
    retrySeconds: webhookRetrySeconds(config.WEBHOOK_RETRY_SECONDS),
  };
}

/**
 * The delivery queues' consumer (SQS FIFO: fresh deliveries, and replays on a queue of their
 * own). Each message is one attempt; a failed one is hidden for its backoff
 * (ChangeMessageVisibility) and reported failed, and so is every later message of its group in
 * the batch, so a subject's events reach the webhook in order: none overtakes one that is waiting
 * for its retry.
 */
export async function handleDeliveries(d: DeliverDeps & { queue: Pick<DeliveryQueue, 'delay'> }, records: readonly QueueRecord[], now = () => new Date()): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  const held = new Set<string>();
  for (const r of records) {
    const group = r.attributes.MessageGroupId ?? r.messageId;
    if (held.has(group)) {
      failures.push({ itemIdentifier: r.messageId });
      continue;
    }
    try {
      const message = JSON.parse(r.body) as DeliveryMessage;
      const out = await deliver(d, message, now());
      if (out.done) continue;
      // Hidden on the queue it came from: the delivery queue, or the replay queue.
      await d.queue.delay(r.receiptHandle, out.retryInSeconds, message.lane);
    } catch (error) {
      // Not the endpoint's answer (that is a retry above): a read or write of ours failed. The
      // message comes back after the queue's visibility timeout.
      log().error('webhook delivery not attempted', { error: error as Error, messageId: r.messageId });
    }
    failures.push({ itemIdentifier: r.messageId });
    held.add(group);
  }
  return { batchItemFailures: failures };
}

export async function handler(event: { Records: QueueRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  return handleDeliveries(deliverDeps(), event.Records);
}
