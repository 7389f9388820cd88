import { createHash } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { getStoreConfig } from '../config.js';
import { traced } from '../observability/tracer.js';
import type { DeliveryMessage, DeliveryQueue } from '../webhooks/model.js';

/** SQS takes at most 10 messages a SendMessageBatch. */
const BATCH = 10;

/** An id SQS takes (at most 128 characters of `[A-Za-z0-9!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~]`): the value, or its SHA-256 when it would not fit. */
function sqsId(value: string): string {
  return value.length <= 128 && /^[\x21-\x7e]+$/.test(value) ? value : createHash('sha256').update(value).digest('hex');
}

let client: Promise<SQSClient> | undefined;
function sqs(): Promise<SQSClient> {
  client ??= import('@aws-sdk/client-sqs').then(({ SQSClient }) => {
    const { SQS_ENDPOINT } = getStoreConfig();
    return traced(
      new SQSClient(
        SQS_ENDPOINT ? { endpoint: SQS_ENDPOINT, region: process.env.AWS_REGION ?? 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {},
      ),
    );
  });
  return client;
}

function queueUrl(lane?: 'replay' | 'retry'): string {
  const name = lane === 'replay' ? 'WEBHOOK_REPLAY_QUEUE_URL' : lane === 'retry' ? 'WEBHOOK_RETRY_QUEUE_URL' : 'WEBHOOK_QUEUE_URL';
  const url = getStoreConfig()[name];
  if (!url) throw new Error(`${name} is not configured for this function`);
  return url;
}

async function sendTo(url: string, messages: readonly DeliveryMessage[]): Promise<void> {
  const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  const c = await sqs();
  for (let i = 0; i < messages.length; i += BATCH) {
    const chunk = messages.slice(i, i + BATCH);
    const out = await c.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: chunk.map((m: DeliveryMessage, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify(m),
          MessageGroupId: sqsId(`${m.webhookId}:${m.subjectId}`),
          MessageDeduplicationId: sqsId(`${m.webhookId}:${m.eventId}${m.replay ? `:${m.replay}` : ''}`),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} deliveries: ${out.Failed[0]!.Code}`);
  }
}

/**
 * The delivery queues: SQS FIFO (fauxqs locally, the same calls). A message group per webhook
 * and subject, so one subject's events reach a webhook in the order they were relayed and a
 * failing one holds back only those after it; the deduplication id is the webhook and event, so
 * a batch the relay sends again within five minutes is not queued twice. Replays go to a queue
 * of their own (WEBHOOK_REPLAY_QUEUE_URL), worked apart: a message's place in a FIFO queue is
 * its turn, so hundreds of replayed deliveries queued ahead of a new event would hold it back
 * (and a FIFO queue takes no per-message DelaySeconds to pace them with). Every later attempt
 * (a retry, a delivery released from parking, one the sweeper found lost) goes to a standard
 * queue with DelaySeconds (WEBHOOK_RETRY_QUEUE_URL): a delivery waiting for its retry then holds
 * no FIFO message group and no in-flight message, so however many deliveries one dead endpoint
 * has waiting, the FIFO queues' window (the first 120,000 messages, where SQS looks for a group
 * it may hand out) stays free for every other tenant's.
 */
export const deliveryQueue: DeliveryQueue = {
  async send(messages) {
    await sendTo(queueUrl(), messages);
  },
  async sendReplays(messages) {
    await sendTo(queueUrl('replay'), messages);
  },
  async retry(message, delaySeconds) {
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    // A standard queue: no group, no deduplication id (the message's `attempt` keeps copies from attempting twice).
    await (await sqs()).send(
      new SendMessageCommand({ QueueUrl: queueUrl('retry'), MessageBody: JSON.stringify({ ...message, lane: 'retry' }), DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))) }),
    );
  },
};
