import { apiHandler } from '../http/wrapper.js';
import { keyActorOf } from './actor.js';
import { apiKeys } from './deps.js';
import { createApiKey, toView } from './domain.js';
import { apiKeyRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.createApiKey, async ({ tenantId, auth, body, now }) => {
  const { record, secret } = await createApiKey(apiKeys, body, keyActorOf(tenantId, auth), now);
  return {
    status: 201,
    body: { ...toView(record), secret },
    headers: { location: `/api/arthr/apiKeys/${record.id}` },
  };
});
