import type { WatchlistMemberRecord, WatchlistRecord, WatchlistStore } from '../faces/model.js';
import { itemCodec } from './codec.js';
import { dynamo, queryAll, transactWrite } from './client.js';
import { keys } from './keys.js';

const watchlists = /* @__PURE__ */ itemCodec<WatchlistRecord>('Watchlist');
const members = /* @__PURE__ */ itemCodec<WatchlistMemberRecord>('WatchlistMember');

/** A watchlist's item in the tenant's watchlists partition; its members in a partition of their own, counted on it. */
export const watchlistStore: WatchlistStore = {
  async create(record, maxWatchlists) {
    const outcome = await transactWrite({
      count: {
        Update: {
          Key: keys.watchlistCount(record.tenantId),
          UpdateExpression: 'ADD watchlists :one',
          ConditionExpression: 'attribute_not_exists(watchlists) OR watchlists < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': maxWatchlists },
        },
      },
      watchlist: { Put: { Item: watchlists.encode(record, keys.watchlist(record.tenantId, record.id)), ConditionExpression: 'attribute_not_exists(PK)' } },
    }, { retryConflicts: 3 });
    if (outcome.written) return 'created';
    if (outcome.failed.includes('count')) return 'full';
    throw outcome.error;
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.watchlist(tenantId, id), ConsistentRead: true }));
    return watchlists.decode(out.Item);
  },

  async list(tenantId) {
    return watchlists.decodeAll(await queryAll(keys.watchlistPartition(tenantId), 'WL#'));
  },

  async delete(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    for (const item of await queryAll(keys.watchlistMemberPartition(tenantId, id), 'M#')) {
      await doc.send(new commands.DeleteCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }));
    }
  },

  async deleteRecord(tenantId, id) {
    const outcome = await transactWrite(
      {
        watchlist: { Delete: { Key: keys.watchlist(tenantId, id), ConditionExpression: 'attribute_exists(PK)' } },
        count: { Update: { Key: keys.watchlistCount(tenantId), UpdateExpression: 'ADD watchlists :minus', ExpressionAttributeValues: { ':minus': -1 } } },
      },
      { retryConflicts: 3 },
    );
    return outcome.written;
  },

  async addMember(member, maxMembers) {
    const outcome = await transactWrite({
      watchlist: {
        Update: {
          Key: keys.watchlist(member.tenantId, member.watchlistId),
          UpdateExpression: 'ADD memberCount :one',
          ConditionExpression: 'attribute_exists(PK) AND memberCount < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': maxMembers },
        },
      },
      member: {
        Put: {
          Item: members.encode(member, keys.watchlistMember(member.tenantId, member.watchlistId, member.id)),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    }, { retryConflicts: 3 });
    if (outcome.written) return 'added';
    if (!outcome.failed.includes('watchlist')) throw outcome.error;
    return (await watchlistStore.get(member.tenantId, member.watchlistId)) ? 'full' : 'gone';
  },

  async getMember(tenantId, watchlistId, memberId) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.watchlistMember(tenantId, watchlistId, memberId), ConsistentRead: true }));
    return members.decode(out.Item);
  },

  async listMembers(tenantId, watchlistId) {
    return members.decodeAll(await queryAll(keys.watchlistMemberPartition(tenantId, watchlistId), 'M#'));
  },

  async removeMember(tenantId, watchlistId, memberId) {
    const outcome = await transactWrite({
      member: { Delete: { Key: keys.watchlistMember(tenantId, watchlistId, memberId), ConditionExpression: 'attribute_exists(PK)' } },
      watchlist: {
        Update: {
          Key: keys.watchlist(tenantId, watchlistId),
          UpdateExpression: 'ADD memberCount :minus',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':minus': -1 },
        },
      },
    }, { retryConflicts: 3 });
    // Not written: the member was not there, or its watchlist went meanwhile (whose delete removes its members).
    return outcome.written;
  },
};
