/**
 * The liveness challenges' store on DynamoDB's terms (aws-sdk-client-mock): a challenge taken
 * once with its frames' hashes in one transaction; frames seen before named, and the challenge
 * spent all the same; a challenge taken meanwhile (its condition failed) is 'used'; a race on the
 * second write too; a throttle is thrown for the route to answer 503.
 */
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { livenessChallengeStore } from '../../functions/store/liveness-challenges.js';
import type { LivenessChallengeRecord } from '../../functions/faces/model.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
beforeEach(() => ddb.reset());

const cancelled = (...codes: string[]) => Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });
const conditionFailed = () => Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

const record: LivenessChallengeRecord = {
  tenantId: 'acme',
  instanceId: '7b0c1f7e-5a0e-4a40-9a43-1d2f0f3e9b11',
  activityId: 'captureFace',
  nonceHash: 'abc',
  plan: { issuedAt: '2026-11-28T10:00:00.000Z', expiresAt: '2026-11-28T10:03:00.000Z', durationMs: 7600, frameMaxSide: 480, segments: [], frames: [700, 1300] },
  expiresAt: 1_800_000_000,
};

describe('the liveness challenge store', () => {
  it("takes a challenge and its frames' hashes in one transaction, each under its tenant's keys with a condition", async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await livenessChallengeStore.consume(record, ['f1', 'f2', 'f1'], '2026-11-28T10:00:09.000Z', 1_790_000_000)).toEqual({ seen: [] });
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    // The challenge, and each distinct frame once (DynamoDB refuses two operations on one item).
    expect(items).toHaveLength(3);
    expect(items[0]!.Update).toMatchObject({ ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(usedAt)', Key: { PK: expect.stringMatching(/^TNT#acme#PI#/), SK: 'LIVENESS#abc' } });
    expect(items[1]!.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK)', Item: { PK: 'TNT#acme#LVFRAME#f1', SK: 'LVFRAME', expiresAt: 1_790_000_000 } });
  });

  it('names the frames seen before, and spends the challenge all the same', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));
    ddb.on(UpdateCommand).resolves({});
    expect(await livenessChallengeStore.consume(record, ['f1', 'f2'], '2026-11-28T10:00:09.000Z', 1_790_000_000)).toEqual({ seen: ['f1'] });
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({ UpdateExpression: 'SET usedAt = :at', ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(usedAt)' });
  });

  it("answers 'used' when the challenge was taken meanwhile, in the transaction or in the second write", async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    expect(await livenessChallengeStore.consume(record, ['f1'], '2026-11-28T10:00:09.000Z', 1_790_000_000)).toBe('used');
    ddb.reset();
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await livenessChallengeStore.consume(record, ['f1'], '2026-11-28T10:00:09.000Z', 1_790_000_000)).toBe('used');
  });

  it('throws a throttle (the route answers 503 and the challenge stays untaken)', async () => {
    ddb.on(TransactWriteCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' }));
    await expect(livenessChallengeStore.consume(record, ['f1'], '2026-11-28T10:00:09.000Z', 1_790_000_000)).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
  });

  it('reads a challenge strongly, and an expired one as gone', async () => {
    ddb.on(GetCommand).resolves({ Item: { PK: 'p', SK: 's', itemType: 'LivenessChallenge', ...record } });
    expect(await livenessChallengeStore.get('acme', record.instanceId, 'abc', new Date('2026-11-28T10:01:00Z'))).toMatchObject({ nonceHash: 'abc' });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead).toBe(true);
    expect(await livenessChallengeStore.get('acme', record.instanceId, 'abc', new Date(record.expiresAt * 1000 + 1))).toBeUndefined();
  });
});
