import { BatchWriteItemCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../../functions/store/schema.js';
import { log } from '../../functions/http/log.js';
import { keys, type ItemKey } from '../../functions/store/keys.js';
import { imageStore } from '../../functions/adapters/images.js';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { asOperation } from './aws-usage.js';
import { repeatAfterEach } from './repeat.js';

/**
 * DynamoDB Local keeps TTL settings but never deletes: this does what the TTL sweep does on AWS,
 * deleting every item whose TTL attribute is in the past. Reads already treat such items as
 * gone, so the sweep only frees the space.
 */
export async function sweepExpired(client: DynamoDBClient, tableName: string, now = new Date()): Promise<number> {
  const ttl = TABLE_SCHEMA.ttlAttribute;
  let deleted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#ttl <= :now',
        ExpressionAttributeNames: { '#ttl': ttl, '#pk': TABLE_SCHEMA.partitionKey, '#sk': TABLE_SCHEMA.sortKey },
        ExpressionAttributeValues: { ':now': { N: String(Math.floor(now.getTime() / 1000)) } },
        ProjectionExpression: '#pk, #sk',
        ExclusiveStartKey: start as never,
      }),
    );
    const items = out.Items ?? [];
    for (let i = 0; i < items.length; i += 25) {
      const batch = items.slice(i, i + 25);
      await client.send(
        new BatchWriteItemCommand({ RequestItems: { [tableName]: batch.map((Key) => ({ DeleteRequest: { Key } })) } }),
      );
      deleted += batch.length;
      // What the table's stream does on AWS for a TTL removal (functions/userdata/on-instance-expired.ts).
      for (const key of batch) {
        const instance = keys.parseInstance(unmarshall(key) as ItemKey);
        if (instance) await asOperation('onInstanceExpired', () => imageStore.deleteInstance(instance.tenantId, instance.processInstanceId));
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return deleted;
}

/** Sweeps now, then again `intervalSeconds` after each sweep ends (lib/local/repeat.ts), until stopped. */
export function startSweeper(client: DynamoDBClient, tableName: string, intervalSeconds: number): { stop(): Promise<void> } {
  return repeatAfterEach(
    intervalSeconds,
    () =>
      sweepExpired(client, tableName)
        .then((n) => n && log().info('swept expired items', { deleted: n }))
        .catch((error: Error) => log().warn('sweep failed', { error })),
    { now: true },
  );
}
