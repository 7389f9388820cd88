import type { ApiKeyRecord, ApiKeyStore, DirectOperation } from '../api-keys/domain.js';
import { itemCodec } from './codec.js';
import { conditionally, dynamo, isConditionFailure, queryAll } from './client.js';
import { keys } from './keys.js';

const apiKeys = /* @__PURE__ */ itemCodec<ApiKeyRecord>('ApiKey');

function toItem(record: ApiKeyRecord) {
  return apiKeys.encode(record, keys.apiKey(record.tenantId, record.id));
}

/** DynamoDB implementation of the API key domain's storage; every key comes from `keys.ts`. */
export const apiKeyStore: ApiKeyStore = {
  async create(record) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.PutCommand({ TableName: tableName, Item: toItem(record), ConditionExpression: 'attribute_not_exists(PK)' }),
    );
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.apiKey(tenantId, id), ConsistentRead: true }));
    return apiKeys.decode(out.Item);
  },

  async list(tenantId) {
    return apiKeys.decodeAll(await queryAll(keys.apiKeyPartition(tenantId), keys.apiKeySortPrefix));
  },

  async replace(record) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: toItem(record),
          ConditionExpression: '#version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': record.version - 1 },
        }),
      ),
    );
  },

  async delete(tenantId, id, version) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.DeleteCommand({
          TableName: tableName,
          Key: keys.apiKey(tenantId, id),
          ...(version === undefined
            ? { ConditionExpression: 'attribute_exists(PK)' }
            : { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } }),
        }),
      ),
    );
  },

  async recordIssue(tenantId, id, secretHash, now, operation: DirectOperation) {
    const { doc, tableName, commands } = await dynamo();
    try {
      const out = await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.apiKey(tenantId, id),
          UpdateExpression: 'SET lastIssuedAtDtm = :now',
          ConditionExpression:
            'secretHash = :hash AND #status = :active' +
            ' AND (attribute_not_exists(expiringDtm) OR expiringDtm = :null OR expiringDtm > :now)' +
            ' AND (size(permittedOperations) = :zero OR contains(permittedOperations, :op))',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':now': now,
            ':hash': secretHash,
            ':active': 'ACTIVE',
            ':null': null,
            ':zero': 0,
            ':op': operation,
          },
          ReturnValues: 'ALL_NEW',
          // One round trip either way: on refusal DynamoDB hands back the item to explain it.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { outcome: 'issued', record: apiKeys.decode(out.Attributes)! };
    } catch (err) {
      if (isConditionFailure(err)) {
        const { unmarshall } = await import('@aws-sdk/util-dynamodb');
        return { outcome: 'refused', current: err.Item ? apiKeys.decode(unmarshall(err.Item as never)) : undefined };
      }
      throw err;
    }
  },
};
