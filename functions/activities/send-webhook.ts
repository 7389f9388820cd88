import { instanceEvents } from '../events/catalogue.js';
import { ActivityError, type ActivityAccess, type ServiceRun , activityError } from './contract.js';
import { spec, MAX_WEBHOOK_BODY_BYTES, MAX_EVENT_NAME } from './specs/send-webhook.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The webhook read; the event written to the outbox (the relay sends it on). */
export const aws = { table: ['GetItem', 'PutItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ activityId, inputs, session, tenantId, now, deps: { outbox, webhooks } }) => {
  const webhookId = inputs['Webhook ID'];
  // Not a webhook id at all (a reference that resolved to something else): no such webhook.
  const webhook = UUID.test(webhookId) ? await webhooks.get(tenantId, webhookId) : undefined;
  if (!webhook || !webhook.enabled) throw activityError(spec, 'WebhookNotFound', `Send Webhook: the tenant has no enabled webhook ${webhookId}.`);
  const body = (inputs.Body ?? {}) as Record<string, unknown>;
  if ([...inputs['Event Name']].length > MAX_EVENT_NAME) {
    throw activityError(spec, 'InvalidInput', `Send Webhook: input "Event Name" is over ${MAX_EVENT_NAME} characters.`);
  }
  if (Buffer.byteLength(JSON.stringify(body), 'utf8') > MAX_WEBHOOK_BODY_BYTES) {
    throw activityError(spec, 'InvalidInput', `Send Webhook: input "Body" is over ${MAX_WEBHOOK_BODY_BYTES} bytes as JSON.`);
  }
  const i = session.instance;
  await outbox.put(
    instanceEvents.notification(
      { tenantId, id: i.processInstanceId, processDefnId: i.processDefnId ?? '', processDefnName: i.processDefnName ?? '', processDefnVersion: i.processDefnVersion ?? 0 },
      { webhookId, activityId, name: inputs['Event Name'], body },
      now,
    ),
  );
  return session;
};
