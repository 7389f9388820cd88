import { apiHandler } from '../http/wrapper.js';
import { apiKeyStore } from '../store/api-keys.js';
import { actorOf } from './actor.js';
import { applyUpdate, requireFound, toView } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.updateApiKey, async ({ tenantId, auth, path, body, now }) => {
  const current = requireFound(await apiKeyStore.get(tenantId, path.apiKeyId), path.apiKeyId);
  const next = applyUpdate(current, body, actorOf(tenantId, auth), now);
  await apiKeyStore.replace(next);
  return { status: 200, body: toView(next) };
});
