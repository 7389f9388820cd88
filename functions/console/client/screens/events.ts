import { api, explain } from '../api.js';
import { can, type Session } from '../session.js';
import type { InstanceEvent } from '../types.js';

export const EVENTS_PERMISSION = 'ProcessManager:getProcessInstanceEvents';
/** Pages of 500 the timeline reads at most: a journey's events are a handful, a long one's a few hundred. */
const MAX_PAGES = 5;

/** What the timeline gets of an instance's events: them (and whether more were left unread), or why not. */
export type EventsRead = { events: InstanceEvent[]; more: boolean } | { unread: string; tone: 'info' | 'error' };

/**
 * An instance's events, oldest first (GET .../processInstances/{id}/events, following its
 * nextToken), or why they cannot be shown: the key lacks the permission, or the read failed.
 */
export async function eventsOf(session: Session, instanceId: string): Promise<EventsRead> {
  if (!can(session, EVENTS_PERMISSION)) return { unread: `This key cannot read the instance\u2019s events: it needs ${EVENTS_PERMISSION}.`, tone: 'info' };
  const events: InstanceEvent[] = [];
  let nextToken: string | undefined;
  try {
    for (let n = 0; n < MAX_PAGES; n++) {
      const page = await api<{ events: InstanceEvent[]; nextToken?: string }>('GET', `/api/process-manager/processInstances/${encodeURIComponent(instanceId)}/events`, {
        query: { size: 500, nextToken },
      });
      events.push(...page.events);
      nextToken = page.nextToken;
      if (!nextToken) break;
    }
  } catch (err) {
    return { unread: `The instance\u2019s events could not be read: ${explain(err)}`, tone: 'error' };
  }
  return { events, more: nextToken !== undefined };
}
