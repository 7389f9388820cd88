import { s, type ActivitySpec } from '../spec.js';

/** The most a notification's body may be, as JSON: far inside EventBridge's 256 KB an event may be. */
export const MAX_WEBHOOK_BODY_BYTES = 64 * 1024;

/** The longest Event Name. */
export const MAX_EVENT_NAME = 200;

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
  family: { beans: ['sendWebhookV1'] },
} as const satisfies ActivitySpec;
