import { apiHandler, principalOf } from '../http/wrapper.js';
import { webhookTestEvent } from '../events/catalogue.js';
import { outbox, webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { getWebhook } from './webhooks.js';

/** The test event goes out as every event does: into the outbox, through the relay, to this webhook only. */
export const handler = apiHandler(routes.testWebhook, async ({ tenantId, auth, path, now }) => {
  const webhook = await getWebhook({ webhooks }, tenantId, path.webhookId);
  const event = webhookTestEvent(tenantId, webhook.id, principalOf(auth), now);
  await outbox.put(event);
  return { status: 202, body: { eventId: event.id } };
});
