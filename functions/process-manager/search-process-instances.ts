import { apiHandler } from '../http/wrapper.js';
import { instances } from './deps.js';
import { filterInstances, instancePage } from './instance-search.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.searchProcessInstances, async ({ tenantId, query, now }) => {
  const candidates = await instances.listByCreation(tenantId, { from: query.startDateTime, to: query.endDateTime });
  return { status: 200, body: instancePage(filterInstances(candidates, query, now), query) };
});
