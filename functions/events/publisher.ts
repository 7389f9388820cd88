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
        const out = await client.send(
          new sdk.PutEventsCommand({
            Entries: [
              {
                EventBusName: process.env.EVENT_BUS_NAME,
                Source: 'arthr.process-manager',
                DetailType: event.type,
                Detail: JSON.stringify(event),
              },
            ],
          }),
        );
        if (out.FailedEntryCount) throw new Error(`EventBridge refused the event: ${out.Entries?.[0]?.ErrorCode}`);
      },
    };
  }
  return installed;
}
