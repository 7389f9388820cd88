import { eventBus } from '../events/bus.js';
import { relayRecords, type RelayDeps, type StreamRecord } from '../events/relay.js';
import { deliveries, outbox, queue, webhooks } from './deps.js';
import { fanOut } from './deliver.js';

/** The relay as the table stream's consumer runs it: to the bus, then to the webhooks that want each event. */
export const relayDeps: RelayDeps = {
  outbox,
  bus: eventBus,
  fanOut: async (events) => void (await fanOut({ webhooks, deliveries, queue }, events, new Date())),
};

/**
 * The table stream's consumer on AWS: an event source mapping filtered to new outbox items
 * (OUTBOX_STREAM_FILTER) hands over a batch in stream order; its events go to the bus and the
 * webhooks' queue. The first record not relayed is reported back, so Lambda retries from it and
 * nothing after it is checkpointed (for a stream, Lambda resumes from the lowest sequence number reported).
 *
 * A tenant's outbox is spread over shards by subject (functions/store/outbox.ts), which land in
 * several of the table's partitions and so several stream shards: a busy tenant's events are
 * relayed by several batches at once, each subject's still in order (its events share a
 * partition key, so one stream shard, one batch at a time).
 */
export async function handler(event: { Records: StreamRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const out = await relayRecords(relayDeps, event.Records);
  return { batchItemFailures: out.failedAt ? [{ itemIdentifier: out.failedAt }] : [] };
}
