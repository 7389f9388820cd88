import { apiHandler } from '../../http/wrapper.js';
import { events } from '../deps.js';
import { DEFAULT_EVENT_PAGE_SIZE, newEventQuery } from './events.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.startIdentityEventQuery, async ({ tenantId, body, now }) => {
  const { size, eventTypes, ...filters } = body;
  const query = newEventQuery(tenantId, { ...filters, types: eventTypes }, size ?? DEFAULT_EVENT_PAGE_SIZE, now);
  await events.saveQuery(query);
  return { status: 201, body: { executionId: query.executionId, status: 'SUCCEEDED', expiresDtm: new Date(query.expiresAt * 1000).toISOString() } };
});
