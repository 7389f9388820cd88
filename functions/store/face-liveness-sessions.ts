import type { FaceLivenessSessionRecord, FaceLivenessSessionStore } from '../faces/model.js';
import { itemCodec, unexpired } from './codec.js';
import { dynamo, isConditionFailure } from './client.js';
import { keys } from './keys.js';

const sessions = /* @__PURE__ */ itemCodec<FaceLivenessSessionRecord>('FaceLivenessSession');

/**
 * The Rekognition Face Liveness sessions of capture steps (in their instance's partition,
 * expiring soon after the session does) and, per step, how many were started.
 */
export const faceLivenessSessionStore: FaceLivenessSessionStore = {
  async reserve(tenantId, instanceId, activityId, max, expiresAt) {
    const { doc, tableName, commands } = await dynamo();
    try {
      await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instanceFaceLivenessCount(tenantId, instanceId, activityId),
          UpdateExpression: 'SET itemType = :type, expiresAt = :exp ADD started :one',
          ConditionExpression: 'attribute_not_exists(started) OR started < :max',
          ExpressionAttributeValues: { ':type': 'FaceLivenessCount', ':exp': expiresAt, ':one': 1, ':max': max },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  },

  async put(record) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.PutCommand({
        TableName: tableName,
        Item: sessions.encode(record, keys.instanceFaceLivenessSession(record.tenantId, record.instanceId, record.sessionId)),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  },

  async get(tenantId, instanceId, sessionId, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(
      new commands.GetCommand({ TableName: tableName, Key: keys.instanceFaceLivenessSession(tenantId, instanceId, sessionId), ConsistentRead: true }),
    );
    return unexpired(sessions.decode(out.Item), now);
  },

  async use(record, at) {
    const { doc, tableName, commands } = await dynamo();
    try {
      await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instanceFaceLivenessSession(record.tenantId, record.instanceId, record.sessionId),
          UpdateExpression: 'SET usedAt = :at',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(usedAt)',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  },
};
