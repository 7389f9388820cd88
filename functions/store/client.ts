import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getStoreConfig } from '../config.js';
import { traced } from '../observability/tracer.js';
import { tenantAwareClient, type AwsCredentialIdentity } from '../adapters/tenant-credentials.js';

export interface Dynamo {
  raw: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  tableName: string;
  /** The document-client command classes (GetCommand, PutCommand, ...). */
  commands: typeof import('@aws-sdk/lib-dynamodb');
}

/** Tenants whose clients a container keeps (each holds its own connections); the least recently used is closed past it. */
export const KEPT_TENANT_CLIENTS = 64;

const clients = tenantAwareClient(makeDynamo, (d) => d.raw.destroy(), KEPT_TENANT_CLIENTS);

/**
 * The DynamoDB client to call with. A function given a tenant role (TENANT_ROLE_ARN, on AWS)
 * calls as that role assumed for the tenant the current work acts for
 * (functions/shared/tenant-scope.ts), whose grants name only that tenant's partitions: a handler
 * that built another tenant's key would be refused by IAM, not only by its own code. Such a
 * function has no table grant of its own, so work with no tenant named is refused here, before
 * any call. Without a tenant role (locally, and the functions that act for the service itself),
 * the process's one client.
 *
 * The SDK is loaded on first use, not at import: loading it costs about 160 ms, which would
 * otherwise be paid by every handler import, including those of requests that are refused before
 * any read (bad input, bad token).
 */
export function dynamo(): Promise<Dynamo> {
  return clients.forWork();
}

/**
 * The function's own client, whatever TENANT_ROLE_ARN says: only for what belongs to no tenant.
 * The reconciler and the webhook sweeper Scan their sparse, keys-only index (GSI2, GSI3) across
 * tenants with it, the one table grant their own role keeps; each item they find is then read and
 * written in its tenant's scope, through `dynamo()`.
 */
export function ownDynamo(): Promise<Dynamo> {
  return clients.own();
}

async function makeDynamo(credentials?: () => Promise<AwsCredentialIdentity>): Promise<Dynamo> {
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
      : credentials
        ? { credentials }
        : {},
  ));
  // convertClassInstanceToMap: a map with a user's key named `constructor` (a parameter, a
  // policy name) is still a plain map; without it the marshaller takes it for a class instance
  // and throws.
  const doc = commands.DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true } });
  return { raw, doc, tableName: config.TABLE_NAME, commands };
}

/** A failed condition, told by name so no SDK class has to be loaded to recognise it. */
export function isConditionFailure(err: unknown): err is Error & { Item?: Record<string, unknown> } {
  return err instanceof Error && err.name === 'ConditionalCheckFailedException';
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

type TransactWriteItem = NonNullable<import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput['TransactItems']>[number];
type WithoutTable<T> = T extends object ? Omit<T, 'TableName'> : never;

/** One item of a transaction, without the table name (`transactWrite` fills it in). */
export type TransactItem =
  | { Put: WithoutTable<TransactWriteItem['Put']> }
  | { Update: WithoutTable<TransactWriteItem['Update']> }
  | { Delete: WithoutTable<TransactWriteItem['Delete']> }
  | { ConditionCheck: WithoutTable<TransactWriteItem['ConditionCheck']> };

/** A transaction's items by name; an undefined entry is left out (an optional item). */
export type NamedTransactItems<N extends string> = { readonly [K in N]: TransactItem | undefined };

/** Written, or the names of the items whose condition failed (and the cancellation, to rethrow). */
export type TransactOutcome<N extends string> = { written: true } | { written: false; failed: N[]; error: Error };

/**
 * One TransactWriteItems of named items. When DynamoDB cancels it, its cancellation reasons
 * (one per item, in order) are read back onto the names, so a caller asks "did the token's
 * condition fail?", never "did item 0 fail?". A cancellation with no failed condition (another
 * transaction held an item) is retried `retryConflicts` times with jittered back-off, then
 * thrown, like any other error.
 */
export async function transactWrite<N extends string>(
  items: NamedTransactItems<N>,
  options: { retryConflicts?: number } = {},
): Promise<TransactOutcome<N>> {
  const { doc, tableName, commands } = await dynamo();
  const named = (Object.entries(items) as [N, TransactItem | undefined][]).filter((e): e is [N, TransactItem] => e[1] !== undefined);
  const TransactItems = named.map(([, item]) =>
    Object.fromEntries(Object.entries(item).map(([op, body]) => [op, { TableName: tableName, ...body }])),
  ) as TransactWriteItem[];
  for (let attempt = 0; ; attempt++) {
    try {
      await doc.send(new commands.TransactWriteCommand({ TransactItems }));
      return { written: true };
    } catch (err) {
      if (!(err instanceof Error) || err.name !== 'TransactionCanceledException') throw err;
      // One reason per item, in order: ConditionalCheckFailed, TransactionConflict, None, ...
      const codes = ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code);
      const failed = named.filter((_, i) => codes[i] === 'ConditionalCheckFailed').map(([name]) => name);
      if (failed.length) return { written: false, failed, error: err };
      if (codes.includes('TransactionConflict') && attempt < (options.retryConflicts ?? 0)) {
        await new Promise((r) => setTimeout(r, Math.random() * 20 * (attempt + 1)));
        continue;
      }
      throw err;
    }
  }
}

/**
 * Puts an item together with a lock item that makes one of its attributes unique (a name, a
 * name + version): a transaction that fails when either already exists.
 */
export async function putWithLock(item: Record<string, unknown>, lock: Record<string, unknown>): Promise<boolean> {
  const outcome = await transactWrite({
    item: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    lock: { Put: { Item: lock, ConditionExpression: 'attribute_not_exists(PK)' } },
  });
  return outcome.written;
}
