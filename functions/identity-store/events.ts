import { apiError, ValidationError } from '../errors.js';
import { newId26 } from '../shared/ids.js';

/** What the identity store records: every registration, authentication and deregistration. */
export const IDENTITY_EVENT_TYPES = [
  'USER_ADDED',
  'PASSCODE_REGISTERED',
  'PASSCODE_DEREGISTERED',
  'PASSCODE_AUTHENTICATED',
  'PASSCODE_AUTHENTICATION_FAILED',
  'PASSKEY_REGISTERED',
  'PASSKEY_AUTHENTICATED',
  'PASSKEY_AUTHENTICATION_FAILED',
] as const;
export type IdentityEventType = (typeof IDENTITY_EVENT_TYPES)[number];

export interface IdentityEvent {
  eventId: string;
  tenantId: string;
  type: IdentityEventType;
  storeName: string;
  userId?: string;
  externalId?: string;
  at: string;
  /** Who did it: an API key (`apikey:{id}`), or a journey (`journey:{processInstanceId}`). */
  actor: string;
  /** The policy, credential, relying party or reason, as the event type has them. */
  details: Record<string, string>;
}

export function newEvent(input: Omit<IdentityEvent, 'eventId' | 'at'> & { now: Date }): IdentityEvent {
  const { now, ...rest } = input;
  return { eventId: newId26(), at: now.toISOString(), ...rest };
}

export interface EventFilters {
  storeName?: string | undefined;
  userId?: string | undefined;
  externalId?: string | undefined;
  types?: IdentityEventType[] | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A started query: its filters and page size, kept for an hour so its result can be paged. */
export interface EventQueryRecord {
  tenantId: string;
  executionId: string;
  filters: EventFilters;
  size: number;
  createdDtm: string;
  expiresAt: number;
}

export interface EventPage {
  events: IdentityEvent[];
  /** Where the next page starts; absent on the last page. */
  nextToken?: string;
}

export interface IdentityEventStore {
  put(event: IdentityEvent): Promise<void>;
  saveQuery(query: EventQueryRecord): Promise<void>;
  getQuery(tenantId: string, executionId: string, now: Date): Promise<EventQueryRecord | undefined>;
  page(tenantId: string, filters: EventFilters, size: number, nextToken: string | undefined): Promise<EventPage>;
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
