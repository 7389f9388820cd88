import { conditionally, dynamo } from './client.js';
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
