/**
 * The outbox relay: what leaves the table's stream as events. On AWS an event source mapping
 * hands this the stream's records (functions/webhooks/on-table-stream.ts), filtered by
 * OUTBOX_STREAM_FILTER; on one machine a poller of DynamoDB Local's stream does the same with
 * the same filter (lib/local/stream-poller.ts). Records are taken in stream order, and a failure
 * stops there: the caller resumes from that record, so an event is relayed at least once, and
 * never before an earlier one of the same batch.
 */
import type { EventBus } from './bus.js';
import { EVENTBRIDGE_MAX_ENTRIES, EVENTBRIDGE_MAX_ENTRY_BYTES, putEventsEntry, putEventsEntrySize } from './bus.js';
import { OUTBOX_SORT_PREFIX, type EventEnvelope } from '../shared/events.js';
import { log } from '../observability/logger.js';

/** The part of a stream record read here: the same in a Lambda event and in GetRecords' answer. */
export interface StreamRecord {
  eventName?: string;
  dynamodb?: { Keys?: Record<string, { S?: string }>; SequenceNumber?: string };
}

/** A pattern in Lambda's event filtering syntax: values are lists of literals or `{prefix}`. */
export type FilterPattern = { [key: string]: FilterPattern | readonly (string | { prefix: string })[] };

/**
 * Only new outbox items (the stream is KEYS_ONLY: keys and event name). The event source
 * mapping's filter in lib/constructs/events.ts is this object, so AWS and the local poller pass
 * the same records.
 */
export const OUTBOX_STREAM_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { Keys: { SK: { S: [{ prefix: OUTBOX_SORT_PREFIX }] } } },
} as const satisfies FilterPattern;

/** Whether `value` matches `pattern` as Lambda's event filtering decides it, for the syntax FilterPattern allows. */
export function matchesFilter(pattern: FilterPattern, value: unknown): boolean {
  return Object.entries(pattern).every(([key, want]) => {
    const got = (value as Record<string, unknown> | null | undefined)?.[key];
    if (!Array.isArray(want)) return matchesFilter(want as FilterPattern, got);
    return (want as readonly (string | { prefix: string })[]).some((w) =>
      typeof w === 'string' ? got === w : typeof got === 'string' && got.startsWith(w.prefix),
    );
  });
}

export interface RelayDeps {
  outbox: { get(key: { PK: string; SK: string }): Promise<EventEnvelope | undefined> };
  bus: () => Promise<EventBus>;
  /**
   * What else takes the events once they are on the bus, in the same order (the webhooks' fan-out).
   * Throwing fails the chunk: it is relayed again (the bus sees it twice, deduplicated by id).
   */
  fanOut?: (events: EventEnvelope[]) => Promise<void>;
}

export interface RelayOutcome {
  /** Events put on the bus. */
  relayed: EventEnvelope[];
  /** The sequence number of the first record not relayed (retry from it); absent when all were. */
  failedAt?: string;
}

function keyOf(record: StreamRecord): { PK: string; SK: string } | undefined {
  const PK = record.dynamodb?.Keys?.PK?.S;
  const SK = record.dynamodb?.Keys?.SK?.S;
  return PK && SK ? { PK, SK } : undefined;
}

/** Relays the outbox events among `records` to the bus, in order, stopping at the first failure. */
export async function relayRecords(d: RelayDeps, records: readonly StreamRecord[]): Promise<RelayOutcome> {
  const mine = records.filter((r) => matchesFilter(OUTBOX_STREAM_FILTER, r));
  const read = await Promise.allSettled(mine.map((r) => (keyOf(r) ? d.outbox.get(keyOf(r)!) : Promise.resolve(undefined))));
  const relayed: EventEnvelope[] = [];
  const failedAt = (i: number): RelayOutcome => ({ relayed, ...(mine[i]?.dynamodb?.SequenceNumber ? { failedAt: mine[i]!.dynamodb!.SequenceNumber! } : {}) });

  // Chunks as PutEvents takes them: at most 10 entries and 256 KB, in stream order.
  let chunk: { index: number; event: EventEnvelope }[] = [];
  let bytes = 0;
  const flush = async (): Promise<number | undefined> => {
    if (!chunk.length) return undefined;
    const sent = chunk;
    chunk = [];
    bytes = 0;
    let refused: number | undefined;
    try {
      refused = await (await d.bus()).put(sent.map((c) => c.event));
    } catch (error) {
      log().warn('events not relayed; retried from the first', { error: error as Error, eventId: sent[0]!.event.id });
      return sent[0]!.index;
    }
    const taken = refused === undefined ? sent : sent.slice(0, refused);
    if (d.fanOut && taken.length) {
      try {
        await d.fanOut(taken.map((c) => c.event));
      } catch (error) {
        log().warn('events not handed to the webhooks; retried from the first', { error: error as Error, eventId: sent[0]!.event.id });
        return sent[0]!.index;
      }
    }
    relayed.push(...taken.map((c) => c.event));
    if (refused === undefined) return undefined;
    log().warn('the bus refused an event; retried from it', { eventId: sent[refused]!.event.id });
    return sent[refused]!.index;
  };

  for (let i = 0; i < mine.length; i++) {
    const got = read[i]!;
    if (got.status === 'rejected') {
      const stop = await flush();
      log().warn('an outbox item could not be read; retried from it', { error: got.reason as Error });
      return failedAt(stop ?? i);
    }
    const event = got.value;
    if (!event) {
      // Not an outbox item after all, or gone (kept 30 days): nothing to send.
      log().warn('a stream record names no outbox event', { key: keyOf(mine[i]!) });
      continue;
    }
    const size = putEventsEntrySize(putEventsEntry(event));
    if (size > EVENTBRIDGE_MAX_ENTRY_BYTES) {
      // Cannot be sent, ever: holding the stream for it would stop every later event. Payloads are
      // ids and statuses, far under the limit; the event stays readable in the outbox.
      log().error('an event is over EventBridge\'s 256 KB and is not relayed', { eventId: event.id, type: event.type, size });
      continue;
    }
    if (chunk.length === EVENTBRIDGE_MAX_ENTRIES || bytes + size > EVENTBRIDGE_MAX_ENTRY_BYTES) {
      const stop = await flush();
      if (stop !== undefined) return failedAt(stop);
    }
    chunk.push({ index: i, event });
    bytes += size;
  }
  const stop = await flush();
  return stop !== undefined ? failedAt(stop) : { relayed };
}
