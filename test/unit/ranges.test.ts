import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BATCH_GET_ATTEMPTS, getMany } from '../../functions/store/ranges.js';
import { isThrottlingError } from '../../functions/shared/aws-errors.js';

const ddb = mockClient(DynamoDBDocumentClient);
const saved = process.env.TABLE_NAME;
beforeAll(() => {
  process.env.TABLE_NAME = 't';
});
afterAll(() => {
  ddb.restore();
  if (saved === undefined) delete process.env.TABLE_NAME;
  else process.env.TABLE_NAME = saved;
});
beforeEach(() => ddb.reset());

const key = (n: number) => ({ PK: 'TNT#acme#PTOKENS', SK: `T#${n}` });

describe('getMany', () => {
  it('asks again for the keys DynamoDB left unprocessed (as it does when throttled), and keeps the order of the keys', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { t: [{ ...key(2), n: 2 }] }, UnprocessedKeys: { t: { Keys: [key(1), key(3)] } } })
      .resolvesOnce({ Responses: { t: [{ ...key(3), n: 3 }, { ...key(1), n: 1 }] } });
    expect((await getMany([key(1), key(2), key(3)])).map((i) => i.n)).toEqual([1, 2, 3]);
    expect(ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!.t!.Keys)).toEqual([[key(1), key(2), key(3)], [key(1), key(3)]]);
  });

  it('fails as a throttle when keys stay unprocessed, rather than answering a page with items missing', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { t: [] }, UnprocessedKeys: { t: { Keys: [key(1)] } } });
    const err = await getMany([key(1)]).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'UnprocessedKeysError' });
    expect(isThrottlingError(err)).toBe(true);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(BATCH_GET_ATTEMPTS);
  }, 20_000);
});
