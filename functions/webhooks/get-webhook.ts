import { apiHandler } from '../http/wrapper.js';
import { webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { getWebhook, webhookView } from './webhooks.js';

export const handler = apiHandler(routes.getWebhook, async ({ tenantId, path }) => ({
  status: 200,
  body: webhookView(await getWebhook({ webhooks }, tenantId, path.webhookId)),
}));
