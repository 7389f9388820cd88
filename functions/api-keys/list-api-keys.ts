import { apiHandler } from '../http/wrapper.js';
import { apiKeys } from './deps.js';
import { listPage } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listApiKeys, async ({ tenantId, query }) => {
  return { status: 200, body: listPage(await apiKeys.list(tenantId), query) };
});
