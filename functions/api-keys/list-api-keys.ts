import { apiHandler } from '../http/wrapper.js';
import { apiKeyStore } from '../store/api-keys.js';
import { listPage } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listApiKeys, async ({ tenantId, query }) => {
  const records = await apiKeyStore.list(tenantId);
  return { status: 200, body: listPage(records, query) };
});
