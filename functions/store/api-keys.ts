import { ConcurrentUpdateError } from '../errors.js';
import type { ApiKeyRecord, ApiKeyStore, DirectOperation } from '../api-keys/domain.js';
import { conditionally, dynamo, isConditionFailure, queryAll } from './client.js';
import { keys } from './keys.js';

const ITEM_TYPE = 'ApiKey';

function toItem(record: ApiKeyRecord) {
  return { ...keys.apiKey(record.tenantId, record.id), itemType: ITEM_TYPE, ...record };
}

function fromItem(item: Record<string, unknown> | undefined): ApiKeyRecord | undefined {
  if (!item || item.itemType !== ITEM_TYPE) return undefined;
  const { PK: _pk, SK: _sk, itemType: _t, ...record } = item;
  return record as unknown as ApiKeyRecord;
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
    return fromItem(out.Item);
  },

  async list(tenantId) {
    const items = await queryAll(keys.apiKeyPartition(tenantId), keys.apiKeySortPrefix);
    return items.map(fromItem).filter((r): r is ApiKeyRecord => !!r);
  },

  async replace(record) {
    const { doc, tableName, commands } = await dynamo();
    try {
      await doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: toItem(record),
          ConditionExpression: '#version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': record.version - 1 },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) throw new ConcurrentUpdateError();
      throw err;
    }
  },

  async delete(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.DeleteCommand({ TableName: tableName, Key: keys.apiKey(tenantId, id), ConditionExpression: 'attribute_exists(PK)' }),
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
      return { issued: true as const, record: fromItem(out.Attributes)! };
    } catch (err) {
      if (isConditionFailure(err)) {
        const { unmarshall } = await import('@aws-sdk/util-dynamodb');
        return { issued: false as const, current: err.Item ? fromItem(unmarshall(err.Item as never)) : undefined };
      }
      throw err;
    }
  },
};
