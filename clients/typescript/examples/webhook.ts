/**
 * Webhook verification: the service signs every delivery as Standard Webhooks describe
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`), so the `standardwebhooks` package
 * verifies it with the webhook's secret (`whsec_...`, shown once when the webhook is made or its
 * secret rotated). Verify the raw body, before parsing it; deduplicate on `webhook-id`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { ArthrClient, WebhookEvent, webhooks } from '../src/index.js';

/** Any event the service sends, told apart by `type`. */
export type AnyEvent = { [T in keyof webhooks]: WebhookEvent<T> }[keyof webhooks];

/** Subscribes `url` to completed and reviewed instances; keep the secret it answers, it is shown once. */
export async function subscribe(client: ArthrClient, url: string, eventTypes: (keyof webhooks)[] = ['process-instance.completed', 'process-instance.reviewed']) {
  const { data, error } = await client.POST('/api/webhook-manager/webhooks', {
    body: { url, description: 'Onboarding results', eventTypes },
  });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return { webhookId: data.id, secret: data.secret };
}

/** The event when the signature is good, or undefined (answer 400 then). */
export function verify(secret: string, rawBody: string, headers: Record<string, string | string[] | undefined>): AnyEvent | undefined {
  const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
  try {
    return new Webhook(secret).verify(rawBody, flat) as AnyEvent;
  } catch (e) {
    if (e instanceof WebhookVerificationError) return undefined;
    throw e;
  }
}

/**
 * A receiver's request handler: verifies, then hands on the event; any 2xx acknowledges the
 * delivery. `createServer(webhookHandler(secret, onEvent)).listen(3000)`; narrow on `type` to read
 * an event's own data: `if (event.type === 'process-instance.completed') event.data.status`.
 */
export function webhookHandler(secret: string, onEvent: (event: AnyEvent) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const event = verify(secret, body, req.headers);
      if (!event) return void res.writeHead(400).end();
      onEvent(event);
      res.writeHead(204).end();
    });
  };
}
