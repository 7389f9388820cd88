import { apiHandler } from '../http/wrapper.js';
import { keyActorOf } from './actor.js';
import { apiKeys } from './deps.js';
import { readApiKey, toView } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getApiKey, async ({ tenantId, auth, path, now }) => {
  return { status: 200, body: toView(await readApiKey(apiKeys, path.apiKeyId, keyActorOf(tenantId, auth), now)) };
});
