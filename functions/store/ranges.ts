import { dynamo } from './client.js';
import type { Item } from './codec.js';

/**
 * Reading a list a page at a time: one key range of one partition (of the table, or of GSI1),
 * in key order or its reverse, from a position on, never more than asked. What the paged lists
 * (functions/shared/keyed-list.ts) read through.
 */
export interface KeyRange {
  /** The partition key's value (the tenant's partition: always built from the request's tenant). */
  pk: string;
  /** The sort keys of the list's items begin with this. */
  prefix: string;
  /** GSI1 (keys GSI1PK / GSI1SK) instead of the table; its reads are eventually consistent. */
  index?: 'GSI1' | undefined;
  /** The full key of the item at a position, for ExclusiveStartKey (an index needs the table's key too). */
  startKey?: ((at: string) => Record<string, unknown>) | undefined;
  /** Items that are not listed although in the range (past their TTL): a FilterExpression. */
  filter?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> } | undefined;
}

export interface RangeRead {
  items: Item[];
  /** The sort key of each item, its position. */
  positions: string[];
  /** The range ended: nothing follows the last item. */
  done: boolean;
  /** Items DynamoDB read for this (before the filter). */
  scanned: number;
}

function keyNames(range: KeyRange) {
  return range.index === 'GSI1' ? { pk: 'GSI1PK', sk: 'GSI1SK' } : { pk: 'PK', sk: 'SK' };
}

function base(range: KeyRange, tableName: string) {
  const { pk, sk } = keyNames(range);
  return {
    TableName: tableName,
    ...(range.index ? { IndexName: range.index } : { ConsistentRead: true }),
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ...(range.filter ? { FilterExpression: range.filter.expression } : {}),
    ExpressionAttributeNames: { '#pk': pk, '#sk': sk, ...(range.filter?.names ?? {}) },
    ExpressionAttributeValues: { ':pk': range.pk, ':prefix': range.prefix, ...(range.filter?.values ?? {}) },
  };
}

/**
 * Up to `limit` items of the range after position `after` (exclusive), in key order or, with
 * `descending`, its reverse. Each Query asks for no more than are still wanted (`Limit`), so
 * without a filter this is one Query of `limit` items. `projection`: only these attributes (and
 * the keys), for walking positions (it saves transfer and memory, not read capacity, which
 * DynamoDB counts on whole items).
 */
export async function readRange(
  range: KeyRange,
  o: { after?: string | undefined; limit: number; descending?: boolean | undefined; projection?: readonly string[] | undefined },
): Promise<RangeRead> {
  const { doc, tableName, commands } = await dynamo();
  const { sk } = keyNames(range);
  const input = base(range, tableName);
  const names: Record<string, string> = { ...input.ExpressionAttributeNames };
  const projection = o.projection
    ? [...new Set(['PK', 'SK', ...(range.index ? ['GSI1PK', 'GSI1SK'] : []), 'itemType', ...o.projection])].map((a, i) => ((names[`#p${i}`] = a), `#p${i}`)).join(', ')
    : undefined;
  const out: RangeRead = { items: [], positions: [], done: false, scanned: 0 };
  let start = o.after === undefined ? undefined : (range.startKey?.(o.after) ?? { PK: range.pk, SK: o.after });
  while (out.items.length < o.limit) {
    const page = await doc.send(
      new commands.QueryCommand({
        ...input,
        ExpressionAttributeNames: names,
        ...(projection ? { ProjectionExpression: projection } : {}),
        ScanIndexForward: !o.descending,
        ExclusiveStartKey: start,
        Limit: o.limit - out.items.length,
      }),
    );
    out.scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      out.items.push(item);
      out.positions.push(String(item[sk]));
    }
    start = page.LastEvaluatedKey;
    if (!start) {
      out.done = true;
      break;
    }
  }
  return out;
}

/**
 * How many items the range lists, counting no further than `cap` (Select COUNT: nothing is
 * returned, but DynamoDB reads, and bills, each item counted).
 */
export async function countRange(range: KeyRange, cap: number): Promise<{ count: number; capped: boolean }> {
  const { doc, tableName, commands } = await dynamo();
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new commands.QueryCommand({ ...base(range, tableName), Select: 'COUNT', ExclusiveStartKey: start, Limit: Math.min(cap + 1 - count, 5_000) }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start && count <= cap);
  return { count: Math.min(count, cap), capped: count > cap };
}

/** How many BatchGetItem calls one chunk of keys gets while DynamoDB leaves keys unprocessed (throttled). */
export const BATCH_GET_ATTEMPTS = 8;

/**
 * The items at `keys` (consistent reads), in the order of `keys`; a key with no item is left
 * out. BatchGetItem, 100 keys a call, unprocessed keys asked again with jittered backoff, at most
 * BATCH_GET_ATTEMPTS calls; keys still unprocessed then fail the read as a throttle (a 503 the
 * caller retries), never a page with items silently missing.
 */
export async function getMany(keys: readonly { PK: string; SK: string }[]): Promise<Item[]> {
  if (keys.length === 0) return [];
  const { doc, tableName, commands } = await dynamo();
  const found = new Map<string, Item>();
  const id = (k: { PK?: unknown; SK?: unknown }) => `${String(k.PK)}\u0000${String(k.SK)}`;
  for (let i = 0; i < keys.length; i += 100) {
    let pending: Record<string, unknown>[] = keys.slice(i, i + 100).map((k) => ({ PK: k.PK, SK: k.SK }));
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt === BATCH_GET_ATTEMPTS) {
        // What the SDK's own retry strategy would call a throttle (functions/shared/aws-errors.ts).
        throw Object.assign(new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${BATCH_GET_ATTEMPTS} calls.`), {
          name: 'UnprocessedKeysError',
          $retryable: { throttling: true },
        });
      }
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt) * Math.random()));
      const out = await doc.send(new commands.BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
      for (const item of out.Responses?.[tableName] ?? []) found.set(id(item), item);
      pending = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return keys.flatMap((k): Item[] => {
    const item = found.get(id(k));
    return item ? [item] : [];
  });
}
