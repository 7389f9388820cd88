/**
 * The one publisher of instance events: every status change (and, later, step change) goes
 * through here, so webhooks and subscribers hang off one place. EventBridge on AWS; an
 * in-process bus on one machine (installed by the local runtime).
 */
import { traced } from '../observability/tracer.js';

interface InstanceEventBase {
  tenantId: string;
  processInstanceId: string;
  processDefnId: string;
  processDefnName: string;
  processDefnVersion: number;
  at: string;
}

/** EventBridge detail-types (`type`) and their details. */
export type InstanceEvent =
  | (InstanceEventBase & { type: 'ProcessInstanceStatusChanged'; status: string; previousStatus: string })
  /** The journey now waits for the end user at a user step. */
  | (InstanceEventBase & { type: 'ProcessInstanceStepChanged'; activityId: string; activityType: string });

/**
 * EventBridge's limit on one PutEvents entry (and on a whole request): 256 KB, counted as
 * `putEventsEntrySize` counts. Over it, PutEvents refuses the request.
 */
export const EVENTBRIDGE_MAX_ENTRY_BYTES = 256 * 1024;

/** The PutEvents entry an instance event is sent as (on AWS; the local bus checks the same entry). */
export function putEventsEntry(event: InstanceEvent): { Source: string; DetailType: string; Detail: string; EventBusName?: string } {
  return {
    ...(process.env.EVENT_BUS_NAME ? { EventBusName: process.env.EVENT_BUS_NAME } : {}),
    Source: 'arthr.process-manager',
    DetailType: event.type,
    Detail: JSON.stringify(event),
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

export interface EventPublisher {
  publish(event: InstanceEvent): Promise<void>;
}

let installed: EventPublisher | undefined;

export function installEventPublisher(publisher: EventPublisher): void {
  installed = publisher;
}

export async function eventPublisher(): Promise<EventPublisher> {
  if (!installed) {
    const sdk = await import('@aws-sdk/client-eventbridge');
    const client = await traced(new sdk.EventBridgeClient({}));
    installed = {
      async publish(event) {
        const out = await client.send(new sdk.PutEventsCommand({ Entries: [putEventsEntry(event)] }));
        if (out.FailedEntryCount) throw new Error(`EventBridge refused the event: ${out.Entries?.[0]?.ErrorCode}`);
      },
    };
  }
  return installed;
}
