import { apiHandler } from '../http/wrapper.js';
import { apiKeyStore } from '../store/api-keys.js';
import { actorOf } from './actor.js';
import { newApiKey, toView } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.createApiKey, async ({ tenantId, auth, body, now }) => {
  const { record, secret } = newApiKey(body, actorOf(tenantId, auth), now);
  await apiKeyStore.create(record);
  return {
    status: 201,
    body: { ...toView(record), secret },
    headers: { location: `/api/arthr/apiKeys/${record.id}` },
  };
});
