/**
 * A DynamoDB Local table for a unit test file: started before its tests (with the store modules'
 * endpoint and table name set, so stores imported in `then` use it), stopped after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';

export function useLocalTable(table: string, then: () => Promise<void>): { client: () => DynamoDBClient } {
  let local: LocalDynamo | undefined;
  let client: DynamoDBClient | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `${table}-`));
    local = await startDynamoDbLocal(dir);
    process.env.DYNAMODB_ENDPOINT = local.endpoint;
    process.env.TABLE_NAME = table;
    client = localClient(local.endpoint);
    await ensureTable(client, table);
    await then();
  }, 90_000);
  afterAll(async () => {
    client?.destroy();
    await local?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return { client: () => client! };
}
