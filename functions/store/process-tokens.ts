import type { ProcessTokenRecord, ProcessTokenStore } from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { dynamo, putWithLock, queryAll } from './client.js';
import { keys } from './keys.js';

const tokens = /* @__PURE__ */ itemCodec<ProcessTokenRecord & { expiresAt?: number }>('ProcessToken');
const nameLocks = /* @__PURE__ */ itemCodec<{ processTokenId: string; expiresAt?: number }>('ProcessTokenName');

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
    // The name lock: a second token of the same name fails the transaction.
    const expiresAt = tokenExpiresAt(record);
    const ttl = expiresAt === undefined ? {} : { expiresAt };
    return putWithLock(
      tokens.encode({ ...record, ...ttl }, keys.processToken(record.tenantId, record.id)),
      nameLocks.encode({ processTokenId: record.id, ...ttl }, keys.processTokenName(record.tenantId, record.name)),
    );
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.processToken(tenantId, id), ConsistentRead: true }));
    return live(tokens.decode(out.Item));
  },

  async list(tenantId) {
    return tokens.decodeAll(await queryAll(keys.processTokenPartition(tenantId), keys.processTokenSortPrefix)).flatMap((t) => live(t) ?? []);
  },
};
