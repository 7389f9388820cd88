/**
 * The EventBridge bus events are relayed to (functions/events/relay.ts): the stack's own bus on
 * AWS, where relying parties' rules and the webhook deliveries hang off it; an in-process bus on
 * one machine (installed by the local runtime, lib/local/events.ts).
 */
import type { EventEnvelope } from '../shared/events.js';
import { getStoreConfig } from '../config.js';
import { traced } from '../observability/tracer.js';

/** The source of every event the service puts on its bus (a rule matches it, and `detail-type`, the event's type). */
export const EVENT_SOURCE = 'arthr.events';

/**
 * EventBridge's limit on one PutEvents entry and on a whole request: 256 KB, counted as
 * `putEventsEntrySize` counts. Over it, PutEvents refuses the request.
 */
export const EVENTBRIDGE_MAX_ENTRY_BYTES = 256 * 1024;
/** PutEvents takes at most 10 entries a request. */
export const EVENTBRIDGE_MAX_ENTRIES = 10;

export interface PutEventsEntry {
  EventBusName?: string;
  Source: string;
  DetailType: string;
  Detail: string;
  Time: Date;
  Resources?: string[];
}

/** The PutEvents entry an event is sent as (on AWS; the local bus checks the same entry). */
export function putEventsEntry(event: EventEnvelope): PutEventsEntry {
  const bus = getStoreConfig().EVENT_BUS_NAME;
  return {
    ...(bus ? { EventBusName: bus } : {}),
    Source: EVENT_SOURCE,
    DetailType: event.type,
    Detail: JSON.stringify(event),
    Time: new Date(event.timestamp),
  };
}

/**
 * An entry's size as EventBridge counts it ("Calculating PutEvents event entry size"): 14 bytes
 * for Time when given, and the UTF-8 bytes of Source, DetailType, Detail and each of Resources.
 */
export function putEventsEntrySize(entry: { Time?: Date; Source: string; DetailType: string; Detail?: string; Resources?: string[] }): number {
  let size = entry.Time ? 14 : 0;
  size += Buffer.byteLength(entry.Source, 'utf8') + Buffer.byteLength(entry.DetailType, 'utf8');
  if (entry.Detail !== undefined) size += Buffer.byteLength(entry.Detail, 'utf8');
  for (const r of entry.Resources ?? []) size += Buffer.byteLength(r, 'utf8');
  return size;
}

export interface EventBus {
  /**
   * Puts up to 10 events (within 256 KB together) in one request. Resolves with the index of the
   * first event the bus refused, or undefined when it took them all; rejects when the request
   * itself failed (nothing is known to be taken).
   */
  put(events: readonly EventEnvelope[]): Promise<number | undefined>;
}

let installed: EventBus | undefined;

export function installEventBus(bus: EventBus): void {
  installed = bus;
}

export async function eventBus(): Promise<EventBus> {
  if (!installed) {
    const sdk = await import('@aws-sdk/client-eventbridge');
    const client = await traced(new sdk.EventBridgeClient({}));
    installed = {
      async put(events) {
        const out = await client.send(new sdk.PutEventsCommand({ Entries: events.map(putEventsEntry) }));
        if (!out.FailedEntryCount) return undefined;
        // Entries answer in the order sent; a refused one has an ErrorCode.
        const first = (out.Entries ?? []).findIndex((e) => e.ErrorCode !== undefined);
        return first < 0 ? 0 : first;
      },
    };
  }
  return installed;
}
