import { apiHandler } from '../http/wrapper.js';
import { ConflictError } from '../errors.js';
import { webhookTestEvent } from '../events/catalogue.js';
import { outbox, webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { getWebhook } from './webhooks.js';

/** The test event goes out as every event does: into the outbox, through the relay, to this webhook only. */
export const handler = apiHandler(routes.testWebhook, async ({ tenantId, path, now }) => {
  const webhook = await getWebhook({ webhooks }, tenantId, path.webhookId);
  // It would not be sent: say so rather than answer 202 for nothing.
  if (!webhook.enabled) throw new ConflictError('The webhook is disabled: enable it first.');
  const event = webhookTestEvent(tenantId, webhook.id, now);
  await outbox.put(event);
  return { status: 202, body: { eventId: event.id } };
});
