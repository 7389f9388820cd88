import { apiHandler } from '../http/wrapper.js';
import { ValidationError } from '../errors.js';
import { deliveries, webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { getWebhook } from './webhooks.js';

export const handler = apiHandler(routes.listWebhookDeliveries, async ({ tenantId, path, query }) => {
  await getWebhook({ webhooks }, tenantId, path.webhookId);
  const page = await deliveries.page(tenantId, path.webhookId, query.size, query.nextToken);
  if (page === 'invalidToken') throw new ValidationError('Invalid nextToken.', [{ location: 'query.nextToken', message: 'not a token this list handed out' }]);
  return {
    status: 200,
    body: {
      // The queues' bookkeeping (the sweeper's time, a claim, parking) is not part of the log.
      deliveries: page.deliveries.map(({ tenantId: _t, webhookId: _w, expiresAt: _e, createdAt: _c, updatedAt: _u, attemptsBefore: _b, sweepAt: _s, leaseUntil: _l, parkedAt: _p, ...d }) => d),
      ...(page.next ? { nextToken: page.next } : {}),
    },
  };
});
