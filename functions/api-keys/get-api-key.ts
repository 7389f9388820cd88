import { apiHandler } from '../http/wrapper.js';
import { apiKeys } from './deps.js';
import { getApiKey, toView } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getApiKey, async ({ tenantId, path }) => {
  return { status: 200, body: toView(await getApiKey(apiKeys, tenantId, path.apiKeyId)) };
});
