import { apiHandler } from '../http/wrapper.js';
import { keyActorOf } from './actor.js';
import { apiKeys } from './deps.js';
import { listApiKeys } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listApiKeys, async ({ tenantId, auth, query, now }) => {
  return { status: 200, body: await listApiKeys(apiKeys, keyActorOf(tenantId, auth), query, now) };
});
