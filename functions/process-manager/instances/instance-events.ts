import { decodeCursor, encodeCursor } from '../../shared/cursor.js';
import { EVENT_POSITION, eventPosition, type InstanceEventEnvelope } from '../../shared/events.js';
import type { ProcessInstanceStore } from '../model.js';
import { getLiveInstance } from './instances.js';

/** What reading an instance's events needs of the outbox (functions/store/outbox.ts implements it). */
export interface InstanceEventReader {
  /** The instance's events after `after` (an `eventPosition`), oldest first, at most `limit`; `more` when events follow. */
  instanceEvents(tenantId: string, instanceId: string, limit: number, after?: string): Promise<{ events: InstanceEventEnvelope[]; more: boolean }>;
}

export interface InstanceEventsDeps {
  instances: Pick<ProcessInstanceStore, 'getLiveRecord'>;
  events: InstanceEventReader;
}

/**
 * A page of an instance's events, from `nextToken` on: the instance must be the tenant's and
 * live (404 otherwise, as every instance read), and a token is bound to the tenant, the list and
 * the instance, so one handed out for another instance or list is refused (400 INVALID_CURSOR at
 * `where`), never read as a position elsewhere.
 */
export async function instanceEventsPage(
  deps: InstanceEventsDeps,
  tenantId: string,
  instanceId: string,
  o: { size: number; nextToken?: string | undefined; list: string; where: string },
  now: Date,
): Promise<{ events: InstanceEventEnvelope[]; nextToken?: string }> {
  const binding = { tenantId, list: o.list, scope: [instanceId] };
  // The token first: a bad one is the caller's mistake whatever the instance.
  const after = o.nextToken === undefined ? undefined : decodeCursor(binding, o.nextToken, (at) => EVENT_POSITION.test(at), o.where).after;
  await getLiveInstance(deps.instances, tenantId, instanceId, now);
  const page = await deps.events.instanceEvents(tenantId, instanceId, o.size, after);
  const last = page.events.at(-1);
  return { events: page.events, ...(page.more && last ? { nextToken: encodeCursor(binding, { after: eventPosition(last) }) } : {}) };
}
