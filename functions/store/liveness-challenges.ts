import type { LivenessChallengeRecord, LivenessChallengeStore } from '../faces/model.js';
import { itemCodec, unexpired } from './codec.js';
import { dynamo, transactWrite, type TransactItem } from './client.js';
import { keys } from './keys.js';

const challenges = /* @__PURE__ */ itemCodec<LivenessChallengeRecord>('LivenessChallenge');
const frames = /* @__PURE__ */ itemCodec<{ tenantId: string; sha256: string; seenAt: string; expiresAt: number }>('LivenessFrame');

/**
 * The active liveness challenges (in their instance's partition, expiring with their plan) and
 * the frames taken (their hashes only, tenant-wide, for as long as a replay is worth refusing).
 */
export const livenessChallengeStore: LivenessChallengeStore = {
  async put(record) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.PutCommand({
        TableName: tableName,
        Item: challenges.encode(record, keys.instanceLivenessChallenge(record.tenantId, record.instanceId, record.nonceHash)),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  },

  async get(tenantId, instanceId, nonceHash, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instanceLivenessChallenge(tenantId, instanceId, nonceHash), ConsistentRead: true }));
    return unexpired(challenges.decode(out.Item), now);
  },

  async consume(record, hashes, at, framesExpireAt) {
    const key = keys.instanceLivenessChallenge(record.tenantId, record.instanceId, record.nonceHash);
    const challenge: TransactItem = {
      Update: {
        Key: key,
        UpdateExpression: 'SET usedAt = :at',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(usedAt)',
        ExpressionAttributeValues: { ':at': at },
      },
    };
    const unique = [...new Set(hashes)];
    const frameItems = Object.fromEntries(
      unique.map((sha256) => [
        sha256,
        {
          Put: {
            Item: frames.encode({ tenantId: record.tenantId, sha256, seenAt: at, expiresAt: framesExpireAt }, keys.livenessFrame(record.tenantId, sha256)),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        } satisfies TransactItem,
      ]),
    );
    const outcome = await transactWrite({ challenge, ...frameItems }, { retryConflicts: 2 });
    if (outcome.written) return { seen: [] };
    if (outcome.failed.includes('challenge')) return 'used';
    // Frames seen before: the challenge is still taken (its frames judged, and failed, once).
    const seen = outcome.failed.filter((name) => name !== 'challenge');
    const { doc, tableName, commands } = await dynamo();
    try {
      await doc.send(new commands.UpdateCommand({ TableName: tableName, Key: key, ...(challenge.Update as object) }));
    } catch (err) {
      if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return 'used';
      throw err;
    }
    return { seen };
  },
};
