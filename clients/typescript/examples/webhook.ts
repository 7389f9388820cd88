/**
 * Webhook verification: the service signs every delivery as Standard Webhooks describe
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`), so the `standardwebhooks` package
 * verifies it with the webhook's secret (`whsec_...`, shown once when the webhook is made or its
 * secret rotated). Verify the raw body, before parsing it; deduplicate on `webhook-id`.
 */
import { createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { ArthrClient, WebhookEvent } from '../src/index.js';

type Completed = WebhookEvent<'process-instance.completed'>;

/** Subscribes `url` to completed and reviewed instances; keep the secret it answers, it is shown once. */
export async function subscribe(client: ArthrClient, url: string) {
  const { data, error } = await client.POST('/api/webhook-manager/webhooks', {
    body: { url, description: 'Onboarding results', eventTypes: ['process-instance.completed', 'process-instance.reviewed'] },
  });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return { webhookId: data.id, secret: data.secret };
}

/** The event when the signature is good, or undefined (answer 400 then). */
export function verify(secret: string, rawBody: string, headers: Record<string, string | string[] | undefined>): { type: string; id: string } | undefined {
  const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
  try {
    return new Webhook(secret).verify(rawBody, flat) as { type: string; id: string };
  } catch (e) {
    if (e instanceof WebhookVerificationError) return undefined;
    throw e;
  }
}

/** A receiver: verifies, then acts on the events it wants; any 2xx acknowledges the delivery. */
export function receiver(secret: string, onCompleted: (event: Completed) => void) {
  return createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const event = verify(secret, body, req.headers);
      if (!event) return void res.writeHead(400).end();
      if (event.type === 'process-instance.completed') onCompleted(event as Completed);
      res.writeHead(204).end();
    });
  });
}
