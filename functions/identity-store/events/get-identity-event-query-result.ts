import { apiHandler } from '../../http/wrapper.js';
import { events } from '../deps.js';
import { eventQueryPage } from './events.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.getIdentityEventQueryResult, async ({ tenantId, path, query, now }) => ({
  status: 200,
  body: await eventQueryPage(events, { tenantId, executionId: path.executionId, size: query.size, nextToken: query.nextToken, now }),
}));
