import { relayDeps } from './deps.js';
import { relayRecords, type StreamRecord } from './relay.js';

/**
 * The table stream's consumer on AWS: an event source mapping filtered to new outbox items
 * (OUTBOX_STREAM_FILTER) hands over a batch in stream order; its events go to the bus. The
 * first record not relayed is reported back, so Lambda retries from it and nothing after it is
 * checkpointed (for a stream, Lambda resumes from the lowest sequence number reported).
 */
export async function handler(event: { Records: StreamRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const out = await relayRecords(relayDeps, event.Records);
  return { batchItemFailures: out.failedAt ? [{ itemIdentifier: out.failedAt }] : [] };
}
