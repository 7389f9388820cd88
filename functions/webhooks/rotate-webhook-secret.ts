import { apiHandler } from '../http/wrapper.js';
import { sealer, webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { rotateSecret, webhookView } from './webhooks.js';

export const handler = apiHandler(routes.rotateWebhookSecret, async ({ tenantId, path, now }) => {
  const { record, secret } = await rotateSecret({ webhooks, sealer }, tenantId, path.webhookId, now);
  return { status: 200, body: { ...webhookView(record), secret } };
});
