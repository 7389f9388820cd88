import type { ReplayBudget } from '../webhooks/model.js';
import { conditionally, dynamo, isConditionFailure } from './client.js';
import { keys, type RateWindow } from './keys.js';

/** How long a window's item is kept after its second (DynamoDB's TTL deletes it later still). */
const WINDOW_TTL_SECONDS = 120;

/**
 * Per-tenant request counting: one item per tenant and second, and one atomic conditional write
 * per request that adds one only while the count is under the limit. Nothing is read first, so
 * concurrent requests of a tenant can never together pass more than `limit` in one second, and
 * the cost is one write per request.
 */
export const rateLimitStore = {
  /** True when the request is within `limit` for `tenantId` in the second of `now` (and is counted). */
  async take(tenantId: string, now: Date, limit: number, window: RateWindow = 'requests'): Promise<boolean> {
    const { doc, tableName, commands } = await dynamo();
    const second = Math.floor(now.getTime() / 1000);
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.rateWindow(tenantId, second, window),
          UpdateExpression: 'ADD requests :one SET itemType = :type, expiresAt = :ttl',
          ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':type': 'RateWindow', ':ttl': second + WINDOW_TTL_SECONDS },
        }),
      ),
    );
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
