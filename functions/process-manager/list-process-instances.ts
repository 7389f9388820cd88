import { apiHandler } from '../http/wrapper.js';
import { instances } from './deps.js';
import { filterInstances, instancePage } from './instance-search.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.listProcessInstances, async ({ tenantId, query, now }) => {
  const records = filterInstances(await instances.listByCreation(tenantId), {}, now);
  return { status: 200, body: instancePage(records, query) };
});
