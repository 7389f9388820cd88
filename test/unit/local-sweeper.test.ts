import { afterEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchWriteItemCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { startSweeper } from '../../lib/local/sweeper.js';

const db = mockClient(DynamoDBClient);
afterEach(() => db.reset());

describe('the local TTL sweeper', () => {
  it('runs one sweep at a time: a Scan slower than the interval does not start another', async () => {
    let running = 0;
    let most = 0;
    let scans = 0;
    db.on(ScanCommand).callsFake(async () => {
      running++;
      scans++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 120));
      running--;
      return { Items: [] };
    });
    const sweeper = startSweeper(new DynamoDBClient({ region: 'local' }), 't', 0.02);
    await new Promise((r) => setTimeout(r, 600));
    await sweeper.stop();
    expect(most).toBe(1);
    // Each sweep waits for the last: some 600 / (120 + 20) of them, not 600 / 20.
    expect(scans).toBeGreaterThanOrEqual(2);
    expect(scans).toBeLessThanOrEqual(5);
  });

  it('deletes what is past its TTL and sweeps no more once stopped', async () => {
    db.on(ScanCommand).resolves({ Items: [{ PK: { S: 'TNT#a#X' }, SK: { S: 'Y' } }] });
    db.on(BatchWriteItemCommand).resolves({});
    const sweeper = startSweeper(new DynamoDBClient({ region: 'local' }), 't', 0.02);
    await new Promise((r) => setTimeout(r, 100));
    await sweeper.stop();
    const deletes = db.commandCalls(BatchWriteItemCommand).length;
    expect(deletes).toBeGreaterThan(0);
    expect(db.commandCalls(BatchWriteItemCommand)[0]!.args[0].input.RequestItems!.t).toEqual([{ DeleteRequest: { Key: { PK: { S: 'TNT#a#X' }, SK: { S: 'Y' } } } }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(db.commandCalls(BatchWriteItemCommand).length).toBe(deletes);
  });
});
