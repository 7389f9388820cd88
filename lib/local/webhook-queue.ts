import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DeliveryQueue, DeliveryRecord } from '../../functions/webhooks/model.js';
import type { QueueRecord } from '../../functions/webhooks/on-delivery.js';
import { messageOf } from '../../functions/webhooks/deliver.js';
import { log } from '../../functions/observability/logger.js';

/**
 * The queues' names (`.fifo`: SQS FIFO), starting with the deployment's prefix (`arthr-{region}-`)
 * as every name the stack gives its own resources does: that prefix is what tells a webhook target
 * that is the service's own queue (functions/webhooks/targets.ts), here as on AWS.
 */
const names = (prefix: string) => ({
  deliveries: `${prefix}-webhook-deliveries.fifo`,
  replays: `${prefix}-webhook-replays.fifo`,
  deadLetters: `${prefix}-webhook-deliveries-dlq.fifo`,
  retries: `${prefix}-webhook-retries`,
  retryDeadLetters: `${prefix}-webhook-retries-dlq`,
});

function sqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/**
 * The webhook delivery queues on fauxqs, made as the stack makes them (lib/constructs/events.ts):
 * a standard queue for every later attempt (with its dead letters), and
 * fresh deliveries and replays each on a queue of their own, FIFO with content-based
 * deduplication off (the sender gives each message's id), a visibility timeout above one
 * attempt's 15 s, and one dead-letter queue for messages received more often than any delivery is
 * attempted (a worker that keeps failing before it can record the attempt).
 */
export async function ensureWebhookQueues(endpoint: string, maxAttempts: number, prefix: string): Promise<{ deliveries: string; replays: string; retries: string }> {
  const sqs = sqsClient(endpoint);
  const named = names(prefix);
  try {
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: named.deadLetters, Attributes: { FifoQueue: 'true' } }));
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const make = async (QueueName: string) =>
      (
        await sqs.send(
          new CreateQueueCommand({
            QueueName,
            Attributes: {
              FifoQueue: 'true',
              VisibilityTimeout: '60',
              RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: maxAttempts * 2 + 5 }),
            },
          }),
        )
      ).QueueUrl!;
    // Every later attempt: a standard queue (DelaySeconds per message), with a dead-letter queue of its own.
    const retryDlq = await sqs.send(new CreateQueueCommand({ QueueName: named.retryDeadLetters }));
    const retryDlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: retryDlq.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const retries = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: named.retries,
          Attributes: { VisibilityTimeout: '60', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: retryDlqArn, maxReceiveCount: 5 }) },
        }),
      )
    ).QueueUrl!;
    return { deliveries: await make(named.deliveries), replays: await make(named.replays), retries };
  } finally {
    sqs.destroy();
  }
}

/**
 * fauxqs keeps messages in memory: what a stop or a crash left queued is queued again from the
 * table, where every delivery not yet settled is PENDING (the relay writes it before it queues
 * it). In each webhook's order of events, so a subject's order holds.
 */
export async function requeuePendingDeliveries(client: DynamoDBClient, tableName: string, queue: Pick<DeliveryQueue, 'send' | 'sendReplays'>): Promise<number> {
  const pending: DeliveryRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'itemType = :t AND #s = :p',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':t': { S: 'WebhookDelivery' }, ':p': { S: 'PENDING' } },
        ExclusiveStartKey: start as never,
      }),
    );
    pending.push(...(out.Items ?? []).map((i) => unmarshall(i) as DeliveryRecord));
    start = out.LastEvaluatedKey;
  } while (start);
  pending.sort((a, b) => a.webhookId.localeCompare(b.webhookId) || a.eventTimestamp.localeCompare(b.eventTimestamp) || a.eventId.localeCompare(b.eventId));
  // A message of its own (not deduplicated against one sent before the restart).
  const restart = String(Date.now());
  // A delivery a replay restarted (it has `attemptsBefore`) goes back on the replay lane.
  const replayed = pending.filter((d) => d.attemptsBefore !== undefined);
  const fresh = pending.filter((d) => d.attemptsBefore === undefined);
  // Each may make the attempt it is at: one waiting for its retry is sent on to the retry queue
  // with the rest of its wait, one parked parks again (functions/webhooks/deliver.ts).
  if (fresh.length) await queue.send(fresh.map((d) => messageOf(d, `restart-${restart}`, d.attempts.length)));
  if (replayed.length) await queue.sendReplays(replayed.map((d) => ({ ...messageOf(d, `restart-${restart}`, d.attempts.length), lane: 'replay' as const })));
  return pending.length;
}

/**
 * What Lambda's event source mapping does on AWS for a FIFO delivery queue: receives a message
 * (a group's in order, never two of one group at once), hands it to `handle` as SQS
 * records, and deletes the ones it did not report failed. A reported one stays, hidden for as
 * long as `handle` set (its backoff). `workers` loops run at once, as the mapping runs batches of
 * different groups side by side (at most its maximum concurrency). One worker per queue: the
 * replay queue's loops are apart from the delivery queue's, as its mapping is on AWS.
 */
export function startDeliveryWorker(opts: {
  endpoint: string;
  queueUrl: string;
  workers?: number;
  handle(records: QueueRecord[]): Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
}): { stop(): Promise<void> } {
  const sqs = sqsClient(opts.endpoint);
  let stopping = false;
  const loop = async () => {
    while (!stopping) {
      try {
        const out = await sqs.send(
          // One at a time, as the mapping's batch size 1: a message held behind its group's failed
          // head would otherwise be received (and counted) with every one of the head's attempts.
          new ReceiveMessageCommand({ QueueUrl: opts.queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount'] }),
        );
        const messages = out.Messages ?? [];
        if (!messages.length) continue;
        const records: QueueRecord[] = messages.map((m) => ({
          messageId: m.MessageId!,
          receiptHandle: m.ReceiptHandle!,
          body: m.Body!,
          attributes: { ...(m.Attributes?.MessageGroupId ? { MessageGroupId: m.Attributes.MessageGroupId } : {}) },
        }));
        const { batchItemFailures } = await opts.handle(records);
        const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
        const done = messages.filter((m) => !failed.has(m.MessageId!));
        if (done.length) {
          await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: opts.queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
        }
      } catch (error) {
        if (!stopping) log().warn('webhook delivery worker: receive failed; retrying', { error: error as Error });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  const loops = Array.from({ length: opts.workers ?? 4 }, loop);
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
      sqs.destroy();
    },
  };
}
