import { apiHandler } from '../http/wrapper.js';
import { ValidationError } from '../errors.js';
import { deliveries, webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { getWebhook } from './webhooks.js';
import { deliveryView } from './delivery-view.js';

export const handler = apiHandler(routes.listWebhookDeliveries, async ({ tenantId, path, query }) => {
  await getWebhook({ webhooks }, tenantId, path.webhookId);
  const page = await deliveries.page(tenantId, path.webhookId, query.size, query.nextToken);
  if (page === 'invalidToken') throw new ValidationError('Invalid nextToken.', [{ location: 'query.nextToken', message: 'not a token this list handed out' }]);
  return {
    status: 200,
    body: {
      deliveries: page.deliveries.map(deliveryView),
      ...(page.next ? { nextToken: page.next } : {}),
    },
  };
});
