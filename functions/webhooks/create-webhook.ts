import { apiHandler, actorOf } from '../http/wrapper.js';
import { sealer, webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { createWebhook, webhookView } from './webhooks.js';

export const handler = apiHandler(routes.createWebhook, async ({ tenantId, auth, body, now }) => {
  const { record, secret } = await createWebhook({ webhooks, sealer }, body, { tenantId, actor: actorOf(auth), now });
  return { status: 201, body: { ...webhookView(record), secret }, headers: { location: `/api/webhook-manager/webhooks/${record.id}` } };
});
