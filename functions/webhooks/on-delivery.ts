import { getStoreConfig, webhookRetrySeconds, webhookSweepMarginSeconds } from '../config.js';
import { guardedFetch } from '../shared/outbound.js';
import { log } from '../observability/logger.js';
import type { DeliveryMessage } from './model.js';
import { deliver, type DeliverDeps } from './deliver.js';
import { deliveries, health, holds, outbox, queue, sealer, subscriberCredentials, webhooks } from './deps.js';
import { webhookGuard } from './webhooks.js';
import { awsTargetSender } from './targets.js';
import { forRecordTenant } from '../shared/tenant-scope.js';

/** Kept for the function's life: its per-tenant credentials are renewed, not fetched per message. */
const targets = awsTargetSender(subscriberCredentials);

/** The part of an SQS record read here: the same in a Lambda event and (reshaped) from ReceiveMessage locally. */
export interface QueueRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: { MessageGroupId?: string };
}

export function deliverDeps(): DeliverDeps {
  const config = getStoreConfig();
  return {
    queue,
    webhooks,
    deliveries,
    holds,
    health,
    outbox,
    sealer,
    fetch: guardedFetch,
    targets,
    guard: webhookGuard(),
    retrySeconds: webhookRetrySeconds(config.WEBHOOK_RETRY_SECONDS),
    sweepMarginSeconds: webhookSweepMarginSeconds(),
  };
}

/**
 * The delivery queues' consumer: the FIFO queues (fresh deliveries, replays) and the standard
 * retry queue. Each message is one turn of a delivery (deliver.ts): an attempt, a parking behind
 * its subject, or a retry queued on. Whatever the endpoint answers, the message is done with
 * (deleted): a retry is a new message on the retry queue, never this one hidden, so a failing
 * endpoint holds no FIFO group and no batch. Only a failure of ours (a read or write, SQS
 * refusing the retry) reports the message failed, so it comes back after the visibility timeout;
 * from a FIFO queue so does every later message of its group in the batch, so none overtakes it.
 */
export async function handleDeliveries(d: DeliverDeps, records: readonly QueueRecord[], now = () => new Date()): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  const held = new Set<string>();
  for (const r of records) {
    const group = r.attributes.MessageGroupId;
    if (group !== undefined && held.has(group)) {
      failures.push({ itemIdentifier: r.messageId });
      continue;
    }
    try {
      // For the delivery's tenant, as the message names it: the service queued it (the relay, the
      // sweeper, a retry, a replay route for its own tenant); SQS takes messages from those alone.
      // A message naming none fails, never delivered unscoped.
      const message = JSON.parse(r.body) as DeliveryMessage;
      await forRecordTenant(message.tenantId, () => deliver(d, message, now()));
    } catch (error) {
      log().error('webhook delivery not attempted', { error: error as Error, messageId: r.messageId });
      failures.push({ itemIdentifier: r.messageId });
      if (group !== undefined) held.add(group);
    }
  }
  return { batchItemFailures: failures };
}

export async function handler(event: { Records: QueueRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  return handleDeliveries(deliverDeps(), event.Records);
}
