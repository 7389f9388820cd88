import { apiHandler } from '../http/wrapper.js';
import { apiKeys } from './deps.js';
import { deleteApiKey } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.deleteApiKey, async ({ tenantId, path }) => {
  await deleteApiKey(apiKeys, tenantId, path.apiKeyId);
  return { status: 204 };
});
