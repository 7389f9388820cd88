/**
 * Webhook subscriptions: where a tenant's events are sent (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), which events, and the secrets they are signed with.
 * A secret is shown once, when it is made (as Stripe shows an endpoint's); it is kept sealed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ConcurrentUpdateError, ValidationError, WebhookLimitError, WebhookNotFoundError, WebhookUrlRefusedError } from '../errors.js';
import { checkOutboundUrl, OutboundFailed, OutboundRefused, type GuardOptions } from '../shared/outbound.js';
import { EVENT_TYPES } from '../events/catalogue.js';
import { getStoreConfig, localServiceEndpoints } from '../config.js';
import { parseSort, sortBy, toPage } from '../shared/page.js';
import type { WebhookRecord, WebhookSecretSealer, WebhookStore } from './model.js';
import { targetRefusal } from './targets.js';

/** The most webhooks a tenant has (Stripe allows 16 endpoints an account). */
export const MAX_WEBHOOKS = 20;
/** How long a replaced secret still signs after a rotation (Stripe's longest expiry is 7 days; 24 hours is its default). */
export const SECRET_OVERLAP_HOURS = 24;
/**
 * How much a tenant may replay, per fixed window (an hour, from the top of the hour), as Svix
 * and Stripe limit their resend and recover calls apart from the rest of the API:
 * - `callsPerWebhook` replay calls per webhook: enough to resend failed events one by one or to
 *   page through a range (`more`, `last`), too few for a loop that replays the same range over
 *   and over (each call of which queued up to 500 deliveries again);
 * - `deliveriesPerTenant` replayed deliveries for all of a tenant's webhooks together: ten full
 *   ranges an hour, so one tenant cannot keep the replay queue (shared by every tenant) busy
 *   for long.
 * Counted in one conditional write per call, before anything is queued: a replay over either
 * limit queues nothing and is answered 429 WEBHOOK_REPLAY_LIMITED with Retry-After (the window's end)
 * (functions/webhooks/deliver.ts `replay`).
 */
export const REPLAY_LIMITS = { windowSeconds: 3600, callsPerWebhook: 20, deliveriesPerTenant: 5000 } as const;
/** What the test event is called: sent to the one webhook it was asked for. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookDeps {
  webhooks: WebhookStore;
  sealer: WebhookSecretSealer;
}

interface At {
  tenantId: string;
  actor: string;
  now: Date;
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64 (the spec asks for 24 to 64). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** What a webhook reads as: never a secret, sealed or not. */
export function webhookView({ tenantId: _t, secrets, ...r }: WebhookRecord) {
  return { ...r, secretRotatedDtm: secrets[0]!.createdAt, ...(secrets[1]?.expiresAt ? { previousSecretExpiresDtm: secrets[1].expiresAt } : {}) };
}

/**
 * Whether webhooks may go to loopback: only in the local runtime. Never in Lambda, whatever the
 * setting says: there loopback is the Lambda Runtime API.
 */
export function webhookGuard(): GuardOptions {
  return {
    allowLoopback: getStoreConfig().WEBHOOK_ALLOW_LOOPBACK === 'true' && !process.env.AWS_LAMBDA_FUNCTION_NAME,
    // Loopback is a receiver on this machine, never the local runtime's own DynamoDB Local or fauxqs.
    refusedEndpoints: localServiceEndpoints(),
  };
}

/**
 * The URL as a webhook may have it: https:// to a public address (http:// to loopback, locally).
 * Checked now, and again (resolved anew) before every delivery: DNS can change.
 */
export async function checkWebhookUrl(url: string): Promise<string> {
  try {
    await checkOutboundUrl(url, webhookGuard());
  } catch (err) {
    if (err instanceof OutboundRefused) throw new WebhookUrlRefusedError(`The webhook URL is refused: ${err.message}`, [{ location: 'body.url', message: err.message }]);
    if (err instanceof OutboundFailed) throw new WebhookUrlRefusedError('The webhook URL is refused: its host name does not resolve.', [{ location: 'body.url', message: err.message }]);
    throw err;
  }
  return url;
}

/** The types a webhook takes: absent means all (`*`); an empty list or an unknown type is refused. */
function eventTypes(types: string[] | null | undefined): string[] {
  if (!types) return ['*'];
  if (types.length === 0) throw new ValidationError('eventTypes is empty: name the types, or `*` for all.', [{ location: 'body.eventTypes', message: 'must not be empty' }]);
  const known = new Set<string>([...EVENT_TYPES, '*']);
  const unknown = types.filter((t) => !known.has(t));
  if (unknown.length) {
    throw new ValidationError('Unknown event types.', unknown.map((t) => ({ location: 'body.eventTypes', message: `no event type ${t}` })));
  }
  return types.includes('*') ? ['*'] : [...new Set(types)];
}

type Target = NonNullable<WebhookRecord['target']>;

export interface WebhookInput {
  url?: string | null | undefined;
  target?: Target | null | undefined;
  description?: string | null | undefined;
  eventTypes?: string[] | null | undefined;
  processDefnNames?: string[] | null | undefined;
  enabled?: boolean | null | undefined;
}

/** A relying party's queue or bus as it may be a target; refused with WEBHOOK_URL_REFUSED otherwise. */
function checkTarget(target: Target): Target {
  const why = targetRefusal(target);
  if (why) throw new WebhookUrlRefusedError(`The webhook target is refused: ${why}.`, [{ location: 'body.target', message: why }]);
  return target;
}

/** Where it sends: a URL, or a relying party's queue or bus; exactly one. */
async function destination(body: Pick<WebhookInput, 'url' | 'target'>): Promise<{ url: string } | { target: Target }> {
  if (body.url != null && body.target != null) throw new ValidationError('Give a url or a target, not both.', [{ location: 'body', message: 'url or target, not both' }]);
  if (body.target != null) return { target: checkTarget(body.target) };
  if (body.url != null) return { url: await checkWebhookUrl(body.url) };
  throw new ValidationError('Give a url or a target.', [{ location: 'body.url', message: 'required (or a target)' }]);
}

/** A new webhook and its secret (the only time the secret is shown). */
export async function createWebhook(d: WebhookDeps, body: WebhookInput, at: At): Promise<{ record: WebhookRecord; secret: string }> {
  const id = randomUUID();
  const secret = newSecret();
  const stamp = at.now.toISOString();
  const record: WebhookRecord = {
    tenantId: at.tenantId,
    id,
    ...(await destination(body)),
    description: body.description ?? '',
    eventTypes: eventTypes(body.eventTypes),
    processDefnNames: [...new Set(body.processDefnNames ?? [])],
    enabled: body.enabled ?? true,
    ...(body.enabled === false ? { disabledReason: 'DISABLED' as const } : {}),
    secrets: [{ sealed: await d.sealer.seal(secret, { tenantId: at.tenantId, webhookId: id }), createdAt: stamp }],
    createdDtm: stamp,
    createdBy: at.actor,
    updatedDtm: stamp,
  };
  if ((await d.webhooks.create(record, MAX_WEBHOOKS)) === 'full') {
    throw new WebhookLimitError(`The tenant has ${MAX_WEBHOOKS} webhooks, the most it may have; delete one first.`);
  }
  return { record, secret };
}

export async function getWebhook(d: Pick<WebhookDeps, 'webhooks'>, tenantId: string, id: string): Promise<WebhookRecord> {
  const record = await d.webhooks.get(tenantId, id);
  if (!record) throw new WebhookNotFoundError('No such webhook in this tenant.');
  return record;
}

const SORTABLE = ['createdDtm', 'updatedDtm', 'url'] as const;

/** The tenant's webhooks, a page at a time; unsorted pages come oldest first. */
export async function listWebhooks(d: Pick<WebhookDeps, 'webhooks'>, tenantId: string, q: { page: number; size: number; sort: string[] }) {
  const { orders, errors } = parseSort(q.sort, SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const all = sortBy(await d.webhooks.list(tenantId), [...orders, { property: 'createdDtm', direction: 'asc' }], (r, k) => r[k]);
  return toPage(all.map(webhookView), q.page, q.size, orders.length > 0);
}

/** Changes what is given (absent fields stay); enabling clears why it was disabled. */
export async function updateWebhook(d: WebhookDeps, tenantId: string, id: string, body: WebhookInput, now: Date): Promise<WebhookRecord> {
  const record = await getWebhook(d, tenantId, id);
  const { url: _url, target: _target, ...kept } = record;
  const next: WebhookRecord = {
    ...(body.url != null || body.target != null ? { ...kept, ...(await destination(body)) } : record),
    ...(body.description != null ? { description: body.description } : {}),
    ...(body.eventTypes != null ? { eventTypes: eventTypes(body.eventTypes) } : {}),
    ...(body.processDefnNames != null ? { processDefnNames: [...new Set(body.processDefnNames)] } : {}),
    updatedDtm: later(now, record.updatedDtm),
  };
  if (body.enabled === true) {
    next.enabled = true;
    delete next.disabledReason;
  } else if (body.enabled === false) {
    next.enabled = false;
    next.disabledReason = 'DISABLED';
  }
  if (!(await d.webhooks.update(next, record.updatedDtm))) throw new ConcurrentUpdateError('The webhook changed meanwhile; read it again and retry.');
  return next;
}

/** A new secret, shown once; the one it replaces signs too for SECRET_OVERLAP_HOURS (both signatures are sent). */
export async function rotateSecret(d: WebhookDeps, tenantId: string, id: string, now: Date): Promise<{ record: WebhookRecord; secret: string }> {
  const record = await getWebhook(d, tenantId, id);
  const secret = newSecret();
  const [current] = record.secrets;
  const next: WebhookRecord = {
    ...record,
    secrets: [
      { sealed: await d.sealer.seal(secret, { tenantId, webhookId: id }), createdAt: now.toISOString() },
      // Only the secret in use now overlaps; one replaced before is dropped.
      { ...current!, expiresAt: new Date(now.getTime() + SECRET_OVERLAP_HOURS * 3_600_000).toISOString() },
    ],
    updatedDtm: later(now, record.updatedDtm),
  };
  if (!(await d.webhooks.update(next, record.updatedDtm))) throw new ConcurrentUpdateError('The webhook changed meanwhile; read it again and retry.');
  return { record: next, secret };
}

export async function deleteWebhook(d: Pick<WebhookDeps, 'webhooks'>, tenantId: string, id: string): Promise<void> {
  if (!(await d.webhooks.delete(tenantId, id))) throw new WebhookNotFoundError('No such webhook in this tenant.');
}

/** A stamp after `previous`, so the optimistic lock always sees a change (two writes in one millisecond). */
export function later(now: Date, previous: string): string {
  const t = Math.max(now.getTime(), Date.parse(previous) + 1);
  return new Date(t).toISOString();
}

/** Whether a webhook takes an event: enabled, of a type it asked for, and of a definition it names (instance events). */
export function wants(w: WebhookRecord, e: { type: string; data: Record<string, unknown> }): boolean {
  if (!w.enabled) return false;
  // Sent to one webhook by name: a test, or a journey's Send Webhook step.
  if (e.type === TEST_EVENT_TYPE || e.type === 'process-instance.notification') return e.data.webhookId === w.id;
  if (!w.eventTypes.includes('*') && !w.eventTypes.includes(e.type)) return false;
  if (w.processDefnNames.length && e.type.startsWith('process-instance.')) return w.processDefnNames.includes(String(e.data.processDefnName));
  return true;
}
