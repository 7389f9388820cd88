import { apiError, ValidationError } from '../../errors.js';
import { newId26 } from '../../shared/ids.js';
import type { EventFilters, EventQueryRecord, IdentityEvent, IdentityEventStore } from '../model.js';

export { IDENTITY_EVENT_TYPES } from '../model.js';
export type { EventFilters, EventPage, EventQueryRecord, IdentityEvent, IdentityEventStore, IdentityEventType } from '../model.js';

export function newEvent(input: Omit<IdentityEvent, 'eventId' | 'at'> & { now: Date }): IdentityEvent {
  const { now, ...rest } = input;
  return { eventId: newId26(), at: now.toISOString(), ...rest };
}

export const EVENT_QUERY_TTL_SECONDS = 3600;
export const DEFAULT_EVENT_PAGE_SIZE = 100;
export const MAX_EVENT_PAGE_SIZE = 1000;

export class EventQueryNotFoundError extends apiError('EVENT_QUERY_NOT_FOUND') {}

export function newEventQuery(tenantId: string, filters: EventFilters, size: number, now: Date): EventQueryRecord {
  if (filters.from && filters.to && filters.from > filters.to) {
    throw new ValidationError('The time range is empty.', [{ location: 'body.from', message: 'must not be after to' }]);
  }
  return {
    tenantId,
    executionId: newId26(),
    filters,
    size,
    createdDtm: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + EVENT_QUERY_TTL_SECONDS,
  };
}

export function eventView(e: IdentityEvent) {
  return {
    eventId: e.eventId,
    type: e.type,
    storeName: e.storeName,
    ...(e.userId ? { userId: e.userId } : {}),
    ...(e.externalId ? { externalId: e.externalId } : {}),
    at: e.at,
    actor: e.actor,
    details: e.details,
  };
}

/** A page of a started query's result: 404 when the query is unknown or over, 400 for a page token it did not hand out. */
export async function eventQueryPage(
  events: IdentityEventStore,
  input: { tenantId: string; executionId: string; size?: number | undefined; nextToken?: string | undefined; now: Date },
) {
  const started = await events.getQuery(input.tenantId, input.executionId, input.now);
  if (!started) throw new EventQueryNotFoundError();
  const page = await events.page(input.tenantId, started.filters, input.size ?? started.size, input.nextToken);
  if (page.outcome === 'invalidPageToken') {
    throw new ValidationError('The page token is not valid.', [{ location: 'query.nextToken', message: 'must be a nextToken from this query' }]);
  }
  return { executionId: started.executionId, events: page.events.map(eventView), ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
}
