import { apiHandler } from '../http/wrapper.js';
import { webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { deleteWebhook } from './webhooks.js';

export const handler = apiHandler(routes.deleteWebhook, async ({ tenantId, path }) => {
  await deleteWebhook({ webhooks }, tenantId, path.webhookId);
  return { status: 204 };
});
