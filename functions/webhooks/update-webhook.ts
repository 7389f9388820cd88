import { apiHandler } from '../http/wrapper.js';
import { sealer, webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { updateWebhook, webhookView } from './webhooks.js';

export const handler = apiHandler(routes.updateWebhook, async ({ tenantId, path, body, now }) => ({
  status: 200,
  body: webhookView(await updateWebhook({ webhooks, sealer }, tenantId, path.webhookId, body, now)),
}));
