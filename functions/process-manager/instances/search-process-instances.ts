import { apiHandler } from '../../http/wrapper.js';
import { instances } from '../deps.js';
import { searchInstances } from './instance-search.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.searchProcessInstances, async ({ tenantId, query, now }) => {
  return { status: 200, body: await searchInstances(instances, tenantId, query, query, now) };
});
