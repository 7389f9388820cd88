import type { ReplayBudget } from '../webhooks/model.js';
import { dynamo, isConditionFailure } from './client.js';
import { keys, type RateWindow } from './keys.js';

/** How long a window's item is kept after its second (DynamoDB's TTL deletes it later still). */
const WINDOW_TTL_SECONDS = 120;

/** How many times a lease asks again for what is left when the window had less than it asked. */
const LEASE_TRIES = 3;

/**
 * Per-tenant request budgets: one item per tenant and second, and one atomic conditional write
 * per lease, which adds `want` to the second's count only while the count stays within the
 * limit. Nothing is read first, so leases made at once by every container of the deployment can
 * never together take more than `limit` in one second. A lease that does not fit is told (by the
 * failed write itself, which returns the item as it was) how much is left and asks for that: so
 * the last requests of a second are granted one by one, exactly.
 */
export const rateLimitStore = {
  /** How many of `want` requests `tenantId` may make in the second of `now` (all of them, fewer, or 0), counted as made. */
  async lease(tenantId: string, now: Date, limit: number, want: number, window: RateWindow = 'requests'): Promise<number> {
    const { doc, tableName, commands } = await dynamo();
    const second = Math.floor(now.getTime() / 1000);
    let asked = Math.max(1, Math.min(want, limit));
    for (let attempt = 0; attempt < LEASE_TRIES; attempt++) {
      try {
        await doc.send(
          new commands.UpdateCommand({
            TableName: tableName,
            Key: keys.rateWindow(tenantId, second, window),
            UpdateExpression: 'ADD requests :n SET itemType = :type, expiresAt = :ttl',
            ConditionExpression: 'attribute_not_exists(requests) OR requests <= :room',
            ExpressionAttributeValues: { ':n': asked, ':room': limit - asked, ':type': 'RateWindow', ':ttl': second + WINDOW_TTL_SECONDS },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return asked;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
        // The item as it was, in DynamoDB's own form (the document client does not convert it).
        const taken = Number((err.Item as { requests?: { N?: string } } | undefined)?.requests?.N ?? limit);
        const left = limit - taken;
        if (!(left > 0)) return 0;
        asked = Math.min(asked, left);
      }
    }
    return 0;
  },
};

/** A webhook's count of replay calls, as an attribute of its tenant's replay window (the webhook id is a UUID). */
const callsOf = (webhookId: string) => `calls#${webhookId}`;

/**
 * The webhooks' replay limits (functions/webhooks/webhooks.ts REPLAY_LIMITS): one item per tenant
 * and window holding the tenant's replayed deliveries and each webhook's replay calls, and one
 * conditional UpdateItem per replay that adds the call and its deliveries only while both stay
 * within their limits. Nothing is read first, so replays made at once can never together pass
 * more than the limits; on a refusal the item as it was (returned by the failed write itself)
 * says which limit was met.
 */
export function replayBudget(limits: { windowSeconds: number; callsPerWebhook: number; deliveriesPerTenant: number }): ReplayBudget {
  return {
    async take(tenantId, webhookId, deliveries, now) {
      const second = Math.floor(now.getTime() / 1000);
      const windowStart = second - (second % limits.windowSeconds);
      const retryAfterSeconds = windowStart + limits.windowSeconds - second;
      if (deliveries > limits.deliveriesPerTenant) return { ok: false, over: 'tenant', retryAfterSeconds };
      const { doc, tableName, commands } = await dynamo();
      try {
        await doc.send(
          new commands.UpdateCommand({
            TableName: tableName,
            Key: keys.webhookReplayWindow(tenantId, windowStart),
            UpdateExpression: 'ADD #calls :one, deliveries :n SET itemType = :type, expiresAt = :ttl',
            ConditionExpression: '(attribute_not_exists(#calls) OR #calls < :maxCalls) AND (attribute_not_exists(deliveries) OR deliveries <= :room)',
            ExpressionAttributeNames: { '#calls': callsOf(webhookId) },
            ExpressionAttributeValues: {
              ':one': 1,
              ':n': deliveries,
              ':maxCalls': limits.callsPerWebhook,
              ':room': limits.deliveriesPerTenant - deliveries,
              ':type': 'ReplayWindow',
              ':ttl': windowStart + limits.windowSeconds + WINDOW_TTL_SECONDS,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { ok: true };
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
        // Loaded only here: this module is in every handler's bundle (the tenant rate limit).
        const { unmarshall } = await import('@aws-sdk/util-dynamodb');
        const was = err.Item ? (unmarshall(err.Item as never) as Record<string, unknown>) : {};
        const calls = Number(was[callsOf(webhookId)] ?? 0);
        return { ok: false, over: calls >= limits.callsPerWebhook ? 'webhook' : 'tenant', retryAfterSeconds };
      }
    },
  };
}
