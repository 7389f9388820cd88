import { ApiKeyNotFoundError } from '../errors.js';
import { apiHandler } from '../http/wrapper.js';
import { apiKeyStore } from '../store/api-keys.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.deleteApiKey, async ({ tenantId, path }) => {
  if (!(await apiKeyStore.delete(tenantId, path.apiKeyId))) throw new ApiKeyNotFoundError(path.apiKeyId);
  return { status: 204 };
});
