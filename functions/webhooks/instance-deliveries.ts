import { instanceEventsPage, type InstanceEventsDeps } from '../process-manager/instances/instance-events.js';
import { deliveryView } from './delivery-view.js';
import type { DeliveryStore, WebhookStore } from './model.js';

export interface InstanceDeliveriesDeps extends InstanceEventsDeps {
  webhooks: Pick<WebhookStore, 'list'>;
  deliveries: Pick<DeliveryStore, 'many'>;
}

/**
 * The webhook deliveries of a page of one instance's events: the page's events (its events
 * index, oldest first), then each event's delivery to each of the tenant's webhooks (at most
 * MAX_WEBHOOKS) found by key, so a page reads at most `size` × 20 deliveries (BatchGetItem, 100
 * a call) and never a webhook's whole log. Only the webhooks the tenant has now: a deleted
 * webhook's log is not read.
 */
export async function instanceDeliveries(deps: InstanceDeliveriesDeps, tenantId: string, instanceId: string, o: { size: number; nextToken?: string | undefined }, now: Date) {
  const page = await instanceEventsPage(deps, tenantId, instanceId, { ...o, list: 'instanceWebhookDeliveries', where: 'query.nextToken' }, now);
  const hooks = page.events.length ? await deps.webhooks.list(tenantId) : [];
  const at = page.events.flatMap((e) => hooks.map((h) => ({ webhookId: h.id, eventTimestamp: e.timestamp, eventId: e.id, subjectId: instanceId })));
  const found = await deps.deliveries.many(tenantId, at);
  return {
    deliveries: found.map((d) => ({ webhookId: d.webhookId, ...deliveryView(d) })),
    ...(page.nextToken ? { nextToken: page.nextToken } : {}),
  };
}
