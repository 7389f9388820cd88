import { instanceEvents } from '../events/catalogue.js';
import { outbox, webhooks } from '../webhooks/deps.js';
import { ActivityError, type ActivityAccess, type ServiceRun } from './contract.js';
import { s, type ActivitySpec } from './spec.js';

/** The most a notification's body may be, as JSON: far inside EventBridge's 256 KB an event may be. */
export const MAX_WEBHOOK_BODY_BYTES = 64 * 1024;
/** The longest Event Name. */
export const MAX_EVENT_NAME = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const spec = {
  type: 'SEND_WEBHOOK',
  displayName: 'Send Webhook',
  kind: 'service',
  description:
    "Notifies the relying party at this point of the journey: a `process-instance.notification` event to one of the tenant's webhooks, " +
    'with a body made of the values given (each a text or a ${...} reference to the journey\'s data). Delivered as every event is ' +
    '(signed, retried, in order with the instance\'s other events); the step does not wait for the delivery.',
  inputs: [
    s('Webhook ID', true, undefined, "The id of one of the tenant's webhooks."),
    s('Event Name', true, undefined, `What the notification is called: its \`data.name\`, at most ${MAX_EVENT_NAME} characters.`),
    { name: 'Body', type: 'M', required: false, description: `Names to values (texts or \${...} references): the notification's \`data.body\`, at most ${MAX_WEBHOOK_BODY_BYTES / 1024} KB as JSON.` },
  ],
  rules: [],
  outputs: [],
  errorEvents: [
    { name: 'Webhook Not Found', aslError: 'WebhookNotFound', code: 'webhookNotFound', description: 'The tenant has no webhook of this id, or it is disabled.' },
  ],
} as const satisfies ActivitySpec;

export const aliases = ['sendWebhookV1'] as const;

/** The webhook read; the event written to the outbox (the relay sends it on). */
export const aws = { table: ['GetItem', 'PutItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ activityId, inputs, session, tenantId, now }) => {
  const webhookId = inputs['Webhook ID'];
  // Not a webhook id at all (a reference that resolved to something else): no such webhook.
  const webhook = UUID.test(webhookId) ? await webhooks.get(tenantId, webhookId) : undefined;
  if (!webhook || !webhook.enabled) throw new ActivityError('WebhookNotFound', `Send Webhook: the tenant has no enabled webhook ${webhookId}.`);
  const body = (inputs.Body ?? {}) as Record<string, unknown>;
  if ([...inputs['Event Name']].length > MAX_EVENT_NAME) {
    throw new ActivityError('InvalidInput', `Send Webhook: input "Event Name" is over ${MAX_EVENT_NAME} characters.`);
  }
  if (Buffer.byteLength(JSON.stringify(body), 'utf8') > MAX_WEBHOOK_BODY_BYTES) {
    throw new ActivityError('InvalidInput', `Send Webhook: input "Body" is over ${MAX_WEBHOOK_BODY_BYTES} bytes as JSON.`);
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
