import { apiHandler } from '../http/wrapper.js';
import { keyActorOf } from './actor.js';
import { apiKeys } from './deps.js';
import { toView, updateApiKey } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.updateApiKey, async ({ tenantId, auth, path, body, now }) => {
  const next = await updateApiKey(apiKeys, tenantId, path.apiKeyId, body, keyActorOf(tenantId, auth), now);
  return { status: 200, body: toView(next) };
});
