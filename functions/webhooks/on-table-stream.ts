import { eventBus } from '../events/bus.js';
import { relayRecords, type RelayDeps, type StreamRecord } from '../events/relay.js';
import { deliveries, outbox, outboxTenant, queue, webhooks } from './deps.js';
import { fanOut } from './deliver.js';
import { forRecordTenant } from '../shared/tenant-scope.js';

/**
 * One outbox item, read for the tenant its key names (the stream record's keys: the partition
 * the service wrote the event to, `TNT#{tenantId}#...EVENTS`), on AWS through the relay's tenant
 * role. A key that is no outbox item's (every outbox key names its tenant) is not read at all,
 * scoped or not: nothing to relay, as the store itself answers. An event that says another tenant
 * than its partition fails the record, so the fan-out, which acts for the event's tenant, acts
 * for the partition's.
 */
export async function readOutboxItem(key: { PK: string; SK: string }) {
  const tenantId = outboxTenant(key);
  if (tenantId === undefined) return undefined;
  const event = await forRecordTenant(tenantId, () => outbox.get(key));
  if (event && event.tenantId !== tenantId) throw new Error('an outbox event names another tenant than its partition');
  return event;
}

/** The relay as the table stream's consumer runs it: to the bus, then to the webhooks that want each event. */
export const relayDeps: RelayDeps = {
  outbox: { get: readOutboxItem },
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
