import { apiHandler } from '../http/wrapper.js';
import { keyActorOf } from './actor.js';
import { apiKeys } from './deps.js';
import { deleteApiKey } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.deleteApiKey, async ({ tenantId, auth, path, now }) => {
  await deleteApiKey(apiKeys, tenantId, path.apiKeyId, keyActorOf(tenantId, auth), now);
  return { status: 204 };
});
