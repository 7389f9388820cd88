import { apiHandler } from '../http/wrapper.js';
import { instanceEvents, instances } from '../process-manager/deps.js';
import { deliveries, webhooks } from './deps.js';
import { instanceDeliveries } from './instance-deliveries.js';
import { webhookRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listInstanceWebhookDeliveries, async ({ tenantId, query, now }) => {
  const body = await instanceDeliveries({ instances, events: instanceEvents, webhooks, deliveries }, tenantId, query.processInstanceId, query, now);
  return { status: 200, body };
});
