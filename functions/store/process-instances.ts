import { isExpired, type ProcessInstanceRecord } from '../process-manager/instances.js';
import type { ProcessTokenRecord } from '../process-manager/tokens.js';
import { cancellationReasons, conditionally, dynamo, isTransactionConflict, queryAll, queryPages } from './client.js';
import { keys } from './keys.js';

const ITEM_TYPE = 'ProcessInstance';
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export interface IdempotentResult {
  fingerprint: string;
  status: number;
  body: Record<string, unknown>;
}

export interface WaitingStep {
  activityId: string;
  activityType: string;
  /** The step's inputs with references resolved (what the page shows). */
  inputs: Record<string, unknown>;
  /** The session data when the step began; the submission resumes from it. */
  state: Record<string, unknown>;
  taskToken: string;
  since: string;
}

/** What the end user gave at one user step. */
export interface StepUserData {
  activityId: string;
  activityType: string;
  /** Where the step keeps its result in the session (a data form's `Form data Key`). */
  dataKey: string;
  submittedAt: string;
  values: Record<string, unknown>;
  /** The step's check, when it makes one (a face capture does). */
  check?: CheckRecord;
  /** Images the step stored in S3 (their bytes are there, not here). */
  images?: ImageRecord[];
}

export type CheckResult = 'PASS' | 'FAIL' | 'REVIEW';

/** A check result, as `_checks.{key}` in the session and `userdata/checks` show it. */
export interface CheckRecord {
  checkId: string;
  activityId: string;
  checkType: string;
  result: CheckResult;
  /** Human readable; not for application logic (the spec's CheckResponse). */
  displayName: string;
  description: string;
  moreinfo?: string;
  checkedAt: string;
  reports: { name: string; result: CheckResult; description: string; reportType?: string }[];
}

/** An image an instance stored; the bytes are in S3 at `objectKey`. */
export interface ImageRecord {
  imageKey: string;
  captureId: string;
  kind: 'FACE';
  format: 'JPEG' | 'PNG';
  contentType: string;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  objectKey: string;
  capturedAt: string;
}

export type CreateOutcome =
  | { outcome: 'created' }
  | { outcome: 'tokenRefused' }
  | { outcome: 'idempotencyKeyTaken' };

function fromItem(item: Record<string, unknown> | undefined): ProcessInstanceRecord | undefined {
  if (!item || item.itemType !== ITEM_TYPE) return undefined;
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, itemType: _t, ...record } = item;
  return record as unknown as ProcessInstanceRecord;
}

export const processInstanceStore = {
  /**
   * One transaction: the token's use (a conditional counter increment that also checks its
   * status and validity window), the instance, and the idempotency record if any. Concurrent
   * creations on one token conflict inside DynamoDB and are retried, so every request ends as
   * exactly one instance or one clear refusal.
   */
  async createWithToken(
    record: ProcessInstanceRecord,
    token: ProcessTokenRecord,
    now: Date,
    idempotency?: { key: string; result: IdempotentResult },
  ): Promise<CreateOutcome> {
    const { doc, tableName, commands } = await dynamo();
    const stamp = now.toISOString();
    const input = {
      TransactItems: [
        {
          Update: {
            TableName: tableName,
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
        {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.instance(record.tenantId, record.id),
              ...keys.instanceIndex(record.tenantId, record.createdAt, record.id),
              itemType: ITEM_TYPE,
              ...record,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...(idempotency
          ? [
              {
                Put: {
                  TableName: tableName,
                  Item: {
                    ...keys.idempotency(record.tenantId, idempotency.key),
                    itemType: 'Idempotency',
                    ...idempotency.result,
                    expiresAt: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_TTL_SECONDS,
                  },
                  // A record past its TTL that DynamoDB has not deleted yet no longer counts.
                  ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :nowEpoch',
                  ExpressionAttributeValues: { ':nowEpoch': Math.floor(now.getTime() / 1000) },
                },
              },
            ]
          : []),
      ],
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await doc.send(new commands.TransactWriteCommand(input));
        return { outcome: 'created' };
      } catch (err) {
        const codes = cancellationReasons(err);
        if (!codes) throw err;
        if (codes[0] === 'ConditionalCheckFailed') return { outcome: 'tokenRefused' };
        if (codes[2] === 'ConditionalCheckFailed') return { outcome: 'idempotencyKeyTaken' };
        // Another transaction held the token: back off with jitter and try again.
        if (codes.includes('TransactionConflict') && attempt < 20) {
          await new Promise((r) => setTimeout(r, Math.random() * 20 * (attempt + 1)));
          continue;
        }
        throw err;
      }
    }
  },

  /**
   * A tenant's instances by creation time (GSI1), optionally within a creation range. Index
   * reads are eventually consistent: an instance made a moment ago may show a moment later.
   */
  async listByCreation(tenantId: string, range: { from?: string | undefined; to?: string | undefined } = {}): Promise<ProcessInstanceRecord[]> {
    const from = range.from ? new Date(range.from).toISOString() : '0';
    // Sort keys are `{createdAt}#{id}`: '~' sorts after every character they contain.
    const to = range.to ? `${new Date(range.to).toISOString()}~` : '~';
    const items = await queryPages({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': keys.instanceIndexPartition(tenantId), ':from': from, ':to': to },
    });
    return items.map(fromItem).filter((r): r is ProcessInstanceRecord => !!r);
  },

  /** The instance unless it is past its retention: expired instances are gone for every reader. */
  async getLive(tenantId: string, id: string, now: Date): Promise<ProcessInstanceRecord | undefined> {
    const record = await processInstanceStore.get(tenantId, id);
    return record && !isExpired(record, now) ? record : undefined;
  },

  async get(tenantId: string, id: string): Promise<ProcessInstanceRecord | undefined> {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instance(tenantId, id), ConsistentRead: true }));
    return fromItem(out.Item);
  },

  async getIdempotent(tenantId: string, key: string, now: Date): Promise<IdempotentResult | undefined> {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.idempotency(tenantId, key), ConsistentRead: true }));
    const item = out.Item;
    if (!item || (item.expiresAt as number) * 1000 <= now.getTime()) return undefined;
    return { fingerprint: item.fingerprint as string, status: item.status as number, body: item.body as Record<string, unknown> };
  },

  /** The user step the journey now waits at (its task token stays in the table, never leaves it). */
  async setWaitingStep(tenantId: string, id: string, step: WaitingStep): Promise<boolean> {
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
  async completeStep(tenantId: string, id: string, taskToken: string, data: StepUserData, expiresAt: number, now: Date): Promise<boolean> {
    const { doc, tableName, commands } = await dynamo();
    try {
      await doc.send(
        new commands.TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: keys.instance(tenantId, id),
                UpdateExpression: 'REMOVE currentStep SET lastUpdatedAt = :now',
                ConditionExpression: 'currentStep.taskToken = :token',
                ExpressionAttributeValues: { ':token': taskToken, ':now': now.toISOString() },
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: { ...keys.instanceUserData(tenantId, id, data.activityId), itemType: 'UserData', ...data, expiresAt },
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (isTransactionConflict(err)) return false;
      throw err;
    }
  },

  async listUserData(tenantId: string, id: string): Promise<StepUserData[]> {
    const items = await queryAll(keys.instancePartition(tenantId, id), keys.instanceUserDataPrefix);
    return items
      .filter((i) => i.itemType === 'UserData')
      .map(
        ({ activityId, activityType, dataKey, submittedAt, values, check, images }) =>
          ({ activityId, activityType, dataKey, submittedAt, values, ...(check ? { check } : {}), ...(images ? { images } : {}) }) as StepUserData,
      );
  },

  /** A status change, written only over the status it read (the caller publishes the event). */
  async setStatus(record: ProcessInstanceRecord, from: string, to: string, now: Date): Promise<boolean> {
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
