import type { DeliveryRecord, DeliveryStore, WebhookRecord, WebhookStore } from '../webhooks/model.js';
import { conditionally, dynamo, queryAll, transactWrite } from './client.js';
import { itemCodec } from './codec.js';
import { keys } from './keys.js';

const webhooks = itemCodec<WebhookRecord>('Webhook');
const deliveries = itemCodec<DeliveryRecord>('WebhookDelivery');

export const webhookStore: WebhookStore = {
  /** The webhook and the tenant's count in one transaction: the limit holds however many create at once. */
  async create(record, max) {
    const outcome = await transactWrite(
      {
        count: {
          Update: {
            Key: keys.webhookCount(record.tenantId),
            UpdateExpression: 'ADD webhooks :one',
            ConditionExpression: 'attribute_not_exists(webhooks) OR webhooks < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': max },
          },
        },
        webhook: { Put: { Item: webhooks.encode(record, keys.webhook(record.tenantId, record.id)), ConditionExpression: 'attribute_not_exists(PK)' } },
      },
      { retryConflicts: 5 },
    );
    if (outcome.written) return 'created';
    if (outcome.failed.includes('count')) return 'full';
    throw outcome.error;
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.webhook(tenantId, id), ConsistentRead: true }));
    return webhooks.decode(out.Item);
  },

  async list(tenantId) {
    return webhooks.decodeAll(await queryAll(keys.webhookPartition(tenantId), 'WH#'));
  },

  async update(record, previousUpdatedDtm) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: webhooks.encode(record, keys.webhook(record.tenantId, record.id)),
          ConditionExpression: 'attribute_exists(PK) AND updatedDtm = :read',
          ExpressionAttributeValues: { ':read': previousUpdatedDtm },
        }),
      ),
    );
  },

  async delete(tenantId, id) {
    const outcome = await transactWrite(
      {
        webhook: { Delete: { Key: keys.webhook(tenantId, id), ConditionExpression: 'attribute_exists(PK)' } },
        count: { Update: { Key: keys.webhookCount(tenantId), UpdateExpression: 'ADD webhooks :minus', ExpressionAttributeValues: { ':minus': -1 } } },
      },
      { retryConflicts: 5 },
    );
    if (outcome.written) return true;
    if (outcome.failed.includes('webhook')) return false;
    throw outcome.error;
  },
};

export const deliveryStore: DeliveryStore = {
  async start(record) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: deliveries.encode(record, keys.webhookDelivery(record.tenantId, record.webhookId, record.eventTimestamp, record.eventId)),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  },

  async restart(record) {
    const { doc, tableName, commands } = await dynamo();
    const { attempts: _a, createdAt, tenantId, webhookId, eventId, eventTimestamp, ...fields } = record;
    // The retry schedule starts again after the attempts made before (they stay in the log).
    const before = (await deliveryStore.get(tenantId, webhookId, eventTimestamp, eventId))?.attempts.length ?? 0;
    const rest = { ...fields, attemptsBefore: before };
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':none': [], ':created': createdAt, ':type': 'WebhookDelivery' };
    const sets = Object.entries({ tenantId, webhookId, eventId, eventTimestamp, ...rest }).map(([k, v], i) => {
      names[`#a${i}`] = k;
      values[`:a${i}`] = v;
      return `#a${i} = :a${i}`;
    });
    await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: keys.webhookDelivery(tenantId, webhookId, eventTimestamp, eventId),
        UpdateExpression: `SET ${sets.join(', ')}, attempts = if_not_exists(attempts, :none), createdAt = if_not_exists(createdAt, :created), itemType = :type REMOVE nextAttemptAt`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  },

  async get(tenantId, webhookId, eventTimestamp, eventId) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(
      new commands.GetCommand({ TableName: tableName, Key: keys.webhookDelivery(tenantId, webhookId, eventTimestamp, eventId), ConsistentRead: true }),
    );
    return deliveries.decode(out.Item);
  },

  async record(delivery, attempt, status, nextAttemptAt) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: keys.webhookDelivery(delivery.tenantId, delivery.webhookId, delivery.eventTimestamp, delivery.eventId),
        UpdateExpression: `SET attempts = list_append(if_not_exists(attempts, :none), :attempt), #status = :status, updatedAt = :at${nextAttemptAt ? ', nextAttemptAt = :next' : ''}${nextAttemptAt ? '' : ' REMOVE nextAttemptAt'}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':none': [], ':attempt': [attempt], ':status': status, ':at': attempt.at, ...(nextAttemptAt ? { ':next': nextAttemptAt } : {}) },
      }),
    );
  },

  async settle(delivery, status) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: keys.webhookDelivery(delivery.tenantId, delivery.webhookId, delivery.eventTimestamp, delivery.eventId),
        UpdateExpression: 'SET #status = :status, updatedAt = :at REMOVE nextAttemptAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status, ':at': new Date().toISOString() },
      }),
    );
  },

  async page(tenantId, webhookId, size, cursor) {
    const { doc, tableName, commands } = await dynamo();
    const pk = keys.webhookDeliveryPartition(tenantId, webhookId);
    let start: Record<string, unknown> | undefined;
    if (cursor) {
      const sk = Buffer.from(cursor, 'base64url').toString('utf8');
      // Only a sort key of this partition's shape: a cursor cannot point elsewhere.
      if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z#evt_[0-9A-Z]{26}$/.test(sk)) return 'invalidToken';
      start = { PK: pk, SK: sk };
    }
    const out = await doc.send(
      new commands.QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        Limit: size,
        ExclusiveStartKey: start,
      }),
    );
    const last = out.LastEvaluatedKey?.SK;
    return {
      deliveries: deliveries.decodeAll(out.Items ?? []),
      ...(typeof last === 'string' ? { next: Buffer.from(last, 'utf8').toString('base64url') } : {}),
    };
  },
};
