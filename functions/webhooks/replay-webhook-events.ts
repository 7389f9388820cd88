import { apiHandler } from '../http/wrapper.js';
import { deliveries, outbox, queue, replayLimits, webhooks } from './deps.js';
import { replay } from './deliver.js';
import { webhookRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.replayWebhookEvents, async ({ tenantId, path, body, now }) => ({
  status: 202,
  body: await replay({ webhooks, outbox, deliveries, queue, budget: replayLimits }, tenantId, path.webhookId, body, now),
}));
