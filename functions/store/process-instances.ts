import type {
  IdempotentResult,
  ProcessInstanceRecord,
  ProcessInstanceStore,
  StepUserData,
} from '../process-manager/model.js';
import { itemCodec, unexpired } from './codec.js';
import { conditionally, dynamo, queryAll, queryPages, transactWrite } from './client.js';
import { keys } from './keys.js';

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

const instances = /* @__PURE__ */ itemCodec<ProcessInstanceRecord>('ProcessInstance');
const idempotencyRecords = /* @__PURE__ */ itemCodec<IdempotentResult & { expiresAt: number }>('Idempotency');
const userData = /* @__PURE__ */ itemCodec<StepUserData & { expiresAt: number }>('UserData');

export const processInstanceStore: ProcessInstanceStore = {
  /**
   * One transaction: the token's use (a conditional counter increment that also checks its
   * status and validity window), the instance, and the idempotency record if any. Concurrent
   * creations on one token conflict inside DynamoDB and are retried, so every request ends as
   * exactly one instance or one clear refusal.
   */
  async createWithToken(record, token, now, idempotency) {
    const stamp = now.toISOString();
    const nowEpoch = Math.floor(now.getTime() / 1000);
    const outcome = await transactWrite(
      {
        tokenUse: {
          Update: {
            Key: keys.processToken(token.tenantId, token.id),
            UpdateExpression: 'SET #counter = #counter + :one',
            ConditionExpression:
              'attribute_exists(PK) AND #status = :active' +
              ' AND (#maxCount = :null OR #counter < #maxCount)' +
              ' AND (validFromDtm = :null OR validFromDtm <= :now)' +
              ' AND (validToDtm = :null OR validToDtm > :now)',
            ExpressionAttributeNames: { '#counter': 'counter', '#status': 'status', '#maxCount': 'maxCount' },
            ExpressionAttributeValues: { ':one': 1, ':active': 'ACTIVE', ':null': null, ':now': stamp },
          },
        },
        instance: {
          Put: {
            Item: instances.encode(record, {
              ...keys.instance(record.tenantId, record.id),
              ...keys.instanceIndex(record.tenantId, record.createdAt, record.id),
            }),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        idempotency: idempotency && {
          Put: {
            Item: idempotencyRecords.encode(
              { ...idempotency.result, expiresAt: nowEpoch + IDEMPOTENCY_TTL_SECONDS },
              keys.idempotency(record.tenantId, idempotency.key),
            ),
            // A record past its TTL that DynamoDB has not deleted yet no longer counts.
            ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :nowEpoch',
            ExpressionAttributeValues: { ':nowEpoch': nowEpoch },
          },
        },
      },
      // Another transaction held the token: back off with jitter and try again.
      { retryConflicts: 20 },
    );
    if (outcome.written) return { outcome: 'created' };
    if (outcome.failed.includes('tokenUse')) return { outcome: 'tokenRefused' };
    if (outcome.failed.includes('idempotency')) return { outcome: 'idempotencyKeyTaken' };
    throw outcome.error;
  },

  /**
   * A tenant's instances by creation time (GSI1), optionally within a creation range. Index
   * reads are eventually consistent: an instance made a moment ago may show a moment later.
   */
  async listByCreation(tenantId, range = {}) {
    const from = range.from ? new Date(range.from).toISOString() : '0';
    // Sort keys are `{createdAt}#{id}`: '~' sorts after every character they contain.
    const to = range.to ? `${new Date(range.to).toISOString()}~` : '~';
    const items = await queryPages({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': keys.instanceIndexPartition(tenantId), ':from': from, ':to': to },
    });
    return instances.decodeAll(items);
  },

  /** The instance unless it is past its retention: expired instances are gone for every reader. */
  async getLive(tenantId, id, now) {
    return unexpired(await processInstanceStore.get(tenantId, id), now);
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instance(tenantId, id), ConsistentRead: true }));
    return instances.decode(out.Item);
  },

  async getIdempotent(tenantId, key, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.idempotency(tenantId, key), ConsistentRead: true }));
    const kept = unexpired(idempotencyRecords.decode(out.Item), now);
    return kept && { fingerprint: kept.fingerprint, status: kept.status, body: kept.body };
  },

  /** The user step the journey now waits at (its task token stays in the table, never leaves it). */
  async setWaitingStep(tenantId, id, step) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET currentStep = :step, lastUpdatedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':step': step, ':now': step.since },
        }),
      ),
    );
  },

  /**
   * A user step done, in one transaction: the waiting step comes off the instance (only if it is
   * still the one with this token) and what the end user gave is kept, with the instance's TTL.
   */
  async completeStep(tenantId, id, taskToken, data, expiresAt, now) {
    const outcome = await transactWrite({
      step: {
        Update: {
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'REMOVE currentStep SET lastUpdatedAt = :now',
          ConditionExpression: 'currentStep.taskToken = :token',
          ExpressionAttributeValues: { ':token': taskToken, ':now': now.toISOString() },
        },
      },
      userData: { Put: { Item: userData.encode({ ...data, expiresAt }, keys.instanceUserData(tenantId, id, data.activityId)) } },
    });
    return outcome.written;
  },

  async releaseStep(tenantId, id, taskToken, now) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'REMOVE currentStep SET lastUpdatedAt = :now',
          ConditionExpression: 'currentStep.taskToken = :token',
          ExpressionAttributeValues: { ':token': taskToken, ':now': now.toISOString() },
        }),
      ),
    );
  },

  /** An atomic counter on the waiting step, so two refusals at once both count. */
  async countRefusal(tenantId, id, taskToken) {
    const { doc, tableName, commands } = await dynamo();
    let count: number | undefined;
    const counted = await conditionally(async () => {
      const out = await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'ADD currentStep.refusals :one',
          ConditionExpression: 'currentStep.taskToken = :token',
          ExpressionAttributeValues: { ':token': taskToken, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      count = Number((out.Attributes as { currentStep?: { refusals?: number } } | undefined)?.currentStep?.refusals);
    });
    return counted && count !== undefined && Number.isFinite(count) ? count : undefined;
  },

  async listUserData(tenantId, id) {
    const items = await queryAll(keys.instancePartition(tenantId, id), keys.instanceUserDataPrefix);
    return userData.decodeAll(items).map(({ expiresAt: _ttl, ...data }) => data);
  },

  /** A status change, written only over the status it read (the caller publishes the event). */
  async setStatus(record, from, to, now) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(record.tenantId, record.id),
          UpdateExpression: 'SET #status = :to, lastUpdatedAt = :now',
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to, ':from': from, ':now': now.toISOString() },
        }),
      ),
    );
  },
};
