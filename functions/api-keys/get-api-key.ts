import { apiHandler } from '../http/wrapper.js';
import { apiKeyStore } from '../store/api-keys.js';
import { requireFound, toView } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getApiKey, async ({ tenantId, path }) => {
  const record = requireFound(await apiKeyStore.get(tenantId, path.apiKeyId), path.apiKeyId);
  return { status: 200, body: toView(record) };
});
