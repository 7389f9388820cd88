import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getStoreConfig } from '../config.js';
import { traced } from '../observability/tracer.js';

export interface Dynamo {
  raw: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  tableName: string;
  /** The document-client command classes (GetCommand, PutCommand, ...). */
  commands: typeof import('@aws-sdk/lib-dynamodb');
}

let made: Promise<Dynamo> | undefined;

/**
 * The process's DynamoDB client. The SDK is loaded on first use, not at import: loading it
 * costs about 160 ms, which would otherwise be paid by every handler import, including those of
 * requests that are refused before any read (bad input, bad token).
 */
export function dynamo(): Promise<Dynamo> {
  made ??= (async () => {
    const config = getStoreConfig();
    const [{ DynamoDBClient }, commands] = await Promise.all([
      import('@aws-sdk/client-dynamodb'),
      import('@aws-sdk/lib-dynamodb'),
    ]);
    // On X-Ray when tracing is on (the document client sends through this one).
    const raw = await traced(new DynamoDBClient(
      config.DYNAMODB_ENDPOINT
        ? {
            endpoint: config.DYNAMODB_ENDPOINT,
            // DynamoDB Local accepts any credentials; these keep the SDK from searching for some.
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            region: process.env.AWS_REGION ?? 'eu-west-1',
          }
        : {},
    ));
    const doc = commands.DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    return { raw, doc, tableName: config.TABLE_NAME, commands };
  })();
  made.catch(() => (made = undefined));
  return made;
}

/** A failed condition, told by name so no SDK class has to be loaded to recognise it. */
export function isConditionFailure(err: unknown): err is Error & { Item?: Record<string, unknown> } {
  return err instanceof Error && err.name === 'ConditionalCheckFailedException';
}

/** Per item of a cancelled transaction, why (`ConditionalCheckFailed`, `TransactionConflict`, `None`); undefined for other errors. */
export function cancellationReasons(err: unknown): string[] | undefined {
  if (!(err instanceof Error) || err.name !== 'TransactionCanceledException') return undefined;
  return ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/** A transaction cancelled because one of its conditions failed. */
export function isTransactionConflict(err: unknown): boolean {
  return cancellationReasons(err)?.includes('ConditionalCheckFailed') ?? false;
}

/** Every item a query matches, all pages (the table name is filled in). */
export async function queryPages(
  input: Omit<import('@aws-sdk/lib-dynamodb').QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const { doc, tableName, commands } = await dynamo();
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(new commands.QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Every item of a partition whose sort key starts with `prefix` (all pages, consistent). */
export function queryAll(pk: string, prefix: string): Promise<Record<string, unknown>[]> {
  return queryPages({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': pk, ':sk': prefix },
    ConsistentRead: true,
  });
}

/** Runs a conditional write; false when its condition failed. */
export async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/**
 * Puts an item together with a lock item that makes one of its attributes unique (a name, a
 * name + version): a transaction that fails when either already exists.
 */
export async function putWithLock(item: Record<string, unknown>, lock: Record<string, unknown>): Promise<boolean> {
  const { doc, tableName, commands } = await dynamo();
  try {
    await doc.send(
      new commands.TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
          { Put: { TableName: tableName, Item: lock, ConditionExpression: 'attribute_not_exists(PK)' } },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isTransactionConflict(err)) return false;
    throw err;
  }
}
