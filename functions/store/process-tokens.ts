import type { ProcessTokenRecord, ProcessTokenStore } from '../process-manager/model.js';
import type { Row } from '../shared/keyed-list.js';
import { itemCodec } from './codec.js';
import { dynamo, queryAll, transactWrite, type TransactItem } from './client.js';
import { keys } from './keys.js';
import { isIndexed, markIndexed } from './list-meta.js';
import { countRange, getMany, readRange, type KeyRange } from './ranges.js';
import { PROCESS_TOKEN_USE_SHARDS, useShares } from './shards.js';

const tokens = /* @__PURE__ */ itemCodec<ProcessTokenRecord & { expiresAt?: number }>('ProcessToken');
const nameLocks = /* @__PURE__ */ itemCodec<{ processTokenId: string; expiresAt?: number }>('ProcessTokenName');
/** A token's list view: what the list filters on (the name, which never changes) and the token's TTL. */
const views = /* @__PURE__ */ itemCodec<{ processTokenId: string; name: string; expiresAt?: number }>('ProcessTokenView');

const viewItem = (record: ProcessTokenRecord, ttl: { expiresAt?: number }) =>
  views.encode({ processTokenId: record.id, name: record.name, ...ttl }, keys.processTokenView(record.tenantId, record.createdDtm, record.id));

/** The views of a tenant's tokens, by creation time; a view past its TTL is not listed (nor is its token). */
function viewRange(tenantId: string, now: Date): KeyRange {
  return {
    pk: keys.processTokenPartition(tenantId),
    prefix: keys.processTokenViewPrefix,
    filter: { expression: 'attribute_not_exists(expiresAt) OR expiresAt > :now', values: { ':now': Math.floor(now.getTime() / 1000) } },
  };
}

/**
 * A token's use shard: a share of its uses (`limit`, none for a token without `maxCount`) and how
 * many were taken (`used`), with copies of what the creation's condition checks on the token
 * (status, validity window: a token never changes after it is made), so a use is one conditional
 * write on one small item of its own partition.
 */
const useShardCodec = /* @__PURE__ */ itemCodec<{
  tenantId: string;
  processTokenId: string;
  used: number;
  limit?: number;
  status: string;
  validFromDtm: string | null;
  validToDtm: string | null;
  expiresAt?: number;
}>('ProcessTokenUse');

/**
 * The use shards of a token with `remaining` uses left (its `maxCount`, or what was left of it
 * when an old token was moved onto shards; null: no limit): PROCESS_TOKEN_USE_SHARDS, or as many as
 * it has uses, each with its share (shards.ts `useShares`: they add up to `remaining` exactly).
 */
export function useShardItems(record: ProcessTokenRecord, remaining: number | null, ttl: { expiresAt?: number }): Record<string, unknown>[] {
  const limits: (number | undefined)[] = remaining === null ? Array.from({ length: PROCESS_TOKEN_USE_SHARDS }, () => undefined) : useShares(remaining);
  return limits.map((limit, shard) =>
    useShardCodec.encode(
      {
        tenantId: record.tenantId,
        processTokenId: record.id,
        used: 0,
        ...(limit === undefined ? {} : { limit }),
        status: record.status,
        validFromDtm: record.validFromDtm,
        validToDtm: record.validToDtm,
        ...ttl,
      },
      keys.processTokenUse(record.tenantId, record.id, shard),
    ),
  );
}

/** The conditions a use checks beside the count: the token is ACTIVE and within its validity window at `now`. */
const USABLE = 'attribute_exists(PK) AND #status = :active AND (validFromDtm = :null OR validFromDtm <= :now) AND (validToDtm = :null OR validToDtm > :now)';

/**
 * The transaction item that takes one use of `token` at `now`: on use shard `shard` (a token with
 * shards), or on the token's own item (a token made before shards; refused once it has shards,
 * so a token moved onto shards meanwhile is counted on them).
 */
export function tokenUseItem(token: Pick<ProcessTokenRecord, 'tenantId' | 'id' | 'useShards'>, now: Date, shard?: number): TransactItem {
  const values = { ':one': 1, ':active': 'ACTIVE', ':null': null, ':now': now.toISOString() };
  if (token.useShards === undefined) {
    return {
      Update: {
        Key: keys.processToken(token.tenantId, token.id),
        UpdateExpression: 'SET #counter = #counter + :one',
        ConditionExpression: `${USABLE} AND (#maxCount = :null OR #counter < #maxCount) AND attribute_not_exists(useShards)`,
        ExpressionAttributeNames: { '#counter': 'counter', '#status': 'status', '#maxCount': 'maxCount' },
        ExpressionAttributeValues: values,
      },
    };
  }
  if (shard === undefined || shard < 0 || shard >= token.useShards) throw new Error('a use shard of the token must be given');
  return {
    Update: {
      Key: keys.processTokenUse(token.tenantId, token.id, shard),
      UpdateExpression: 'SET used = used + :one',
      ConditionExpression: `${USABLE} AND (attribute_not_exists(#limit) OR used < #limit)`,
      ExpressionAttributeNames: { '#status': 'status', '#limit': 'limit' },
      ExpressionAttributeValues: values,
    },
  };
}

/** Each use shard's uses taken and its share, in shard order (consistent reads, one GetItem each: what the routes are granted). */
export async function useShardCounts(token: Pick<ProcessTokenRecord, 'tenantId' | 'id' | 'useShards'>): Promise<{ shard: number; used: number; limit?: number }[]> {
  const { doc, tableName, commands } = await dynamo();
  const shards = Array.from({ length: token.useShards ?? 0 }, (_, s) => s);
  const read = await Promise.all(
    shards.map(async (shard) => useShardCodec.decode((await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.processTokenUse(token.tenantId, token.id, shard), ConsistentRead: true }))).Item)),
  );
  return read.flatMap((u, shard) => (u ? [{ shard, used: u.used, ...(u.limit === undefined ? {} : { limit: u.limit }) }] : []));
}

/** The tokens with their `counter` as read: what each one's own item counted (before shards) and its use shards' uses. */
async function withUses(found: (ProcessTokenRecord & { expiresAt?: number })[]): Promise<(ProcessTokenRecord & { expiresAt?: number })[]> {
  const shardKeys = found.flatMap((t) => Array.from({ length: t.useShards ?? 0 }, (_, s) => keys.processTokenUse(t.tenantId, t.id, s)));
  if (!shardKeys.length) return found;
  const used = new Map<string, number>();
  for (const u of useShardCodec.decodeAll(await getMany(shardKeys))) used.set(u.processTokenId, (used.get(u.processTokenId) ?? 0) + u.used);
  return found.map((t) => (t.useShards === undefined ? t : { ...t, counter: t.counter + (used.get(t.id) ?? 0) }));
}

const VIEW_POSITION = /^PTOKENC#\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z#[0-9a-f-]{36}$/;

/**
 * A token with an end of validity is kept 90 days past it (the instances' usual retention), then
 * DynamoDB TTL deletes it and its name lock (the name becomes free); reads treat it as gone at
 * once. A token without `validToDtm` is live until made inactive and has no TTL.
 */
export const PROCESS_TOKEN_RETENTION_DAYS = 90;

export function tokenExpiresAt(record: Pick<ProcessTokenRecord, 'validToDtm'>): number | undefined {
  if (!record.validToDtm) return undefined;
  return Math.floor(new Date(record.validToDtm).getTime() / 1000) + PROCESS_TOKEN_RETENTION_DAYS * 86_400;
}

function live(record: (ProcessTokenRecord & { expiresAt?: number }) | undefined, now = Date.now()): ProcessTokenRecord | undefined {
  if (!record) return undefined;
  const { expiresAt, ...token } = record;
  return expiresAt !== undefined && expiresAt * 1000 <= now ? undefined : token;
}

export const processTokenStore: ProcessTokenStore = {
  async create(record) {
    // The name lock: a second token of the same name fails the transaction. The list view goes with them.
    const expiresAt = tokenExpiresAt(record);
    const ttl = expiresAt === undefined ? {} : { expiresAt };
    // Its uses are counted on shards of their own (at most PROCESS_TOKEN_USE_SHARDS items more).
    const shards = useShardItems(record, record.maxCount ?? null, ttl);
    const outcome = await transactWrite({
      token: {
        Put: { Item: tokens.encode({ ...record, counter: 0, useShards: shards.length, ...ttl }, keys.processToken(record.tenantId, record.id)), ConditionExpression: 'attribute_not_exists(PK)' },
      },
      name: { Put: { Item: nameLocks.encode({ processTokenId: record.id, ...ttl }, keys.processTokenName(record.tenantId, record.name)), ConditionExpression: 'attribute_not_exists(PK)' } },
      view: { Put: { Item: viewItem(record, ttl) } },
      ...Object.fromEntries(shards.map((item, i) => [`use${i}`, { Put: { Item: item } }])),
    });
    return outcome.written;
  },

  async get(tenantId, id, options) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.processToken(tenantId, id), ConsistentRead: true }));
    const token = live(tokens.decode(out.Item));
    if (!token || options?.counted === false || token.useShards === undefined) return token;
    const shards = await useShardCounts(token);
    return { ...token, counter: token.counter + shards.reduce((sum, u) => sum + u.used, 0) };
  },

  async list(tenantId) {
    return (await withUses(tokens.decodeAll(await queryAll(keys.processTokenPartition(tenantId), keys.processTokenSortPrefix)))).flatMap((t) => live(t) ?? []);
  },

  async viewed(tenantId) {
    return isIndexed(keys.listMeta(keys.processTokenPartition(tenantId)));
  },

  byCreation(tenantId, now) {
    const range = viewRange(tenantId, now);
    // What a view says of its token: enough to filter by name and to load it.
    const partial = (item: Record<string, unknown>) => {
      const view = views.decode(item);
      return { id: view?.processTokenId ?? '', name: view?.name ?? '' } as ProcessTokenRecord;
    };
    const load = async (rows: Row<ProcessTokenRecord>[]) => {
      const found = new Map(
        (await withUses(tokens.decodeAll(await getMany(rows.filter((r) => r.record.id).map((r) => keys.processToken(tenantId, r.record.id))))))
          .flatMap((t) => live(t, now.getTime()) ?? [])
          .map((t) => [t.id, t]),
      );
      return rows.flatMap((r) => (found.has(r.record.id) ? [{ record: found.get(r.record.id)!, at: r.at }] : []));
    };
    return {
      async read(o) {
        const read = await readRange(range, { ...o, projection: o.projection ? ['processTokenId', 'name'] : undefined });
        const rows = read.items.map((item, i) => ({ record: partial(item), at: read.positions[i]! }));
        return { rows: o.projection ? rows : await load(rows), done: read.done };
      },
      load,
      isPosition: (at) => VIEW_POSITION.test(at),
      count: (cap) => countRange(range, cap),
    };
  },

  /**
   * Moves a token made before shards onto use shards: in one transaction, over the count read
   * (`counter`, which stays on the token as its uses before shards), the token is marked as
   * sharded and the shards are made with what is left of `maxCount`. A creation that read the
   * token before finds its use on the token item refused (`attribute_not_exists(useShards)`)
   * and tries the shards. False when it has shards already, is gone, or was used meanwhile (try again).
   */
  async shardUses(tenantId, id) {
    const token = await processTokenStore.get(tenantId, id, { counted: false });
    if (!token || token.useShards !== undefined) return false;
    const expiresAt = tokenExpiresAt(token);
    const ttl = expiresAt === undefined ? {} : { expiresAt };
    const shards = useShardItems(token, token.maxCount === null ? null : Math.max(0, token.maxCount - token.counter), ttl);
    const outcome = await transactWrite({
      token: {
        Update: {
          Key: keys.processToken(tenantId, id),
          UpdateExpression: 'SET useShards = :n',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(useShards) AND #counter = :seen',
          ExpressionAttributeNames: { '#counter': 'counter' },
          ExpressionAttributeValues: { ':n': shards.length, ':seen': token.counter },
        },
      },
      ...Object.fromEntries(shards.map((item, i) => [`use${i}`, { Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }])),
    });
    return outcome.written;
  },

  async backfillViews(tenantId) {
    const stored = tokens.decodeAll(await queryAll(keys.processTokenPartition(tenantId), keys.processTokenSortPrefix));
    const { doc, tableName, commands } = await dynamo();
    let written = 0;
    // Each view says only what never changes (id, name, creation time, TTL): writing it again is harmless.
    for (const token of stored) {
      const { expiresAt, ...record } = token;
      await doc.send(new commands.PutCommand({ TableName: tableName, Item: viewItem(record, expiresAt === undefined ? {} : { expiresAt }) }));
      written++;
    }
    await markIndexed(keys.listMeta(keys.processTokenPartition(tenantId)));
    return { items: stored.length, views: written };
  },
};
