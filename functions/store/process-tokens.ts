import type { ProcessTokenRecord, ProcessTokenStore } from '../process-manager/model.js';
import type { Row } from '../shared/keyed-list.js';
import { itemCodec } from './codec.js';
import { dynamo, queryAll, transactWrite } from './client.js';
import { keys } from './keys.js';
import { isIndexed, markIndexed } from './list-meta.js';
import { countRange, getMany, readRange, type KeyRange } from './ranges.js';

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
    const outcome = await transactWrite({
      token: { Put: { Item: tokens.encode({ ...record, ...ttl }, keys.processToken(record.tenantId, record.id)), ConditionExpression: 'attribute_not_exists(PK)' } },
      name: { Put: { Item: nameLocks.encode({ processTokenId: record.id, ...ttl }, keys.processTokenName(record.tenantId, record.name)), ConditionExpression: 'attribute_not_exists(PK)' } },
      view: { Put: { Item: viewItem(record, ttl) } },
    });
    return outcome.written;
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.processToken(tenantId, id), ConsistentRead: true }));
    return live(tokens.decode(out.Item));
  },

  async list(tenantId) {
    return tokens.decodeAll(await queryAll(keys.processTokenPartition(tenantId), keys.processTokenSortPrefix)).flatMap((t) => live(t) ?? []);
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
        tokens
          .decodeAll(await getMany(rows.filter((r) => r.record.id).map((r) => keys.processToken(tenantId, r.record.id))))
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
