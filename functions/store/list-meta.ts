import { itemCodec } from './codec.js';
import { conditionally, dynamo } from './client.js';
import { keys, type ItemKey } from './keys.js';

/**
 * A list's own item (`keys.listMeta`): `indexed` once every item of the list has its list view,
 * which a list needs before it pages by its views (until then it reads as it did before views);
 * `total`, for lists that keep their count with each create and delete.
 */
export interface ListMeta {
  indexed?: boolean;
  total?: number;
  /** Raised by every create and delete of a counted list: a backfill that saw it move counts again. */
  changes?: number;
}

export const listMetas = /* @__PURE__ */ itemCodec<ListMeta>('ListMeta');

/** The lists with views (and whether each keeps its count): their partitions. */
const VIEWED_LISTS: { partition: (tenantId: string) => string; counted: boolean }[] = [
  { partition: keys.processTokenPartition, counted: false },
  { partition: keys.apiKeyPartition, counted: true },
  { partition: keys.cloudSecretPartition, counted: false },
];

/** A list's item (consistent read); an absent one is a list with no views yet. */
export async function readListMeta(key: ItemKey): Promise<ListMeta> {
  const { doc, tableName, commands } = await dynamo();
  const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return listMetas.decode(out.Item) ?? {};
}

/**
 * Lists this container has seen indexed. A list is indexed once, by its backfill or from its
 * tenant's creation, and never goes back: so each container reads the flag until it is true,
 * and no list request pays that read again.
 */
const seenIndexed = new Set<string>();

/** Whether a list pages by its views (`indexed`): one consistent read, until this container has seen it true. */
export async function isIndexed(key: ItemKey): Promise<boolean> {
  const id = `${key.PK}|${key.SK}`;
  if (seenIndexed.has(id)) return true;
  const indexed = (await readListMeta(key)).indexed === true;
  if (indexed) seenIndexed.add(id);
  return indexed;
}

/** The list items a new tenant starts with: every list indexed (there is nothing to backfill) and counted from zero. */
export function newTenantListItems(tenantId: string): Record<string, unknown>[] {
  return VIEWED_LISTS.map((l) => listMetas.encode({ indexed: true, ...(l.counted ? { total: 0 } : {}) }, keys.listMeta(l.partition(tenantId))));
}

/** The update of a counted list's item that goes in the transaction of a create (+1) or a delete (-1). */
export function countUpdate(partition: string, delta: 1 | -1) {
  return {
    Update: {
      Key: keys.listMeta(partition),
      UpdateExpression: 'ADD #total :delta, #changes :one SET itemType = :type',
      ExpressionAttributeNames: { '#total': 'total', '#changes': 'changes' },
      ExpressionAttributeValues: { ':delta': delta, ':one': 1, ':type': listMetas.itemType },
    },
  };
}

/**
 * Sets a counted list's total and marks it indexed, only if no create or delete ran since `seen`
 * was read (its `changes` did not move); false when one did (count again).
 */
export async function settleCount(key: ItemKey, seen: ListMeta, total: number): Promise<boolean> {
  const { doc, tableName, commands } = await dynamo();
  return conditionally(() =>
    doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #total = :total, #indexed = :true, itemType = :type',
        ConditionExpression: seen.changes === undefined ? 'attribute_not_exists(#changes)' : '#changes = :seen',
        ExpressionAttributeNames: { '#total': 'total', '#indexed': 'indexed', '#changes': 'changes' },
        ExpressionAttributeValues: { ':total': total, ':true': true, ':type': listMetas.itemType, ...(seen.changes === undefined ? {} : { ':seen': seen.changes }) },
      }),
    ),
  );
}

/** Marks a list indexed (the backfill, once every item has its view). */
export async function markIndexed(key: ItemKey): Promise<void> {
  const { doc, tableName, commands } = await dynamo();
  await doc.send(
    new commands.UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET #indexed = :true, itemType = :type',
      ExpressionAttributeNames: { '#indexed': 'indexed' },
      ExpressionAttributeValues: { ':true': true, ':type': listMetas.itemType },
    }),
  );
}
