import { apiHandler } from '../http/wrapper.js';
import { identityEventStore } from '../store/identity-store.js';
import { EventQueryNotFoundError, eventView } from './events.js';
import { identityStoreRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getIdentityEventQueryResult, async ({ tenantId, path, query, now }) => {
  const started = await identityEventStore.getQuery(tenantId, path.executionId, now);
  if (!started) throw new EventQueryNotFoundError();
  const page = await identityEventStore.page(tenantId, started.filters, query.size ?? started.size, query.nextToken);
  return { status: 200, body: { executionId: started.executionId, events: page.events.map(eventView), ...(page.nextToken ? { nextToken: page.nextToken } : {}) } };
});
