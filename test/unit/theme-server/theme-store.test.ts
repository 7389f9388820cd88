import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { themeStore } from '../../../functions/store/themes.js';
import type { ThemeRecord } from '../../../functions/theme-server/model.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
beforeEach(() => ddb.reset());

const ID = '3b241101-e2bb-4255-8caf-4136c566a962';
const record: ThemeRecord = {
  tenantId: 'demo',
  id: ID,
  name: 'Brand',
  version: 3,
  description: 'Ours',
  status: 'EDITABLE',
  createdDtm: '2026-11-28T06:00:00.000Z',
  createdBy: 'apikey:k',
  lastUpdatedDtm: '2026-11-28T06:05:00.000Z',
  lastUpdatedBy: 'apikey:k',
  palette: { header: { backgroundColor: '#0b1f4d' } },
  assets: [],
  revision: 2,
};

function cancelled(...codes: string[]): Error {
  return Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });
}

describe('themeStore.update', () => {
  it("writes the content only over the revision it read and the status it saw, in the tenant's own partition", async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await themeStore.update(record)).toBe('updated');
    const [item, version] = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(item!.Update).toMatchObject({
      Key: { PK: 'TNT#demo#THEMES', SK: `THM#${ID}` },
      ConditionExpression: '#status = :status AND revision = :read',
      ExpressionAttributeValues: expect.objectContaining({ ':read': 1, ':revision': 2, ':status': 'EDITABLE', ':palette': record.palette }),
    });
    expect(version!.Update!.Key).toEqual({ PK: 'TNT#demo#THEMES', SK: `THMNV#${Buffer.from('Brand').toString('base64url')}#000000003` });
  });

  it('tells a version changed meanwhile from one that is gone', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    ddb.on(GetCommand).resolvesOnce({ Item: { PK: 'TNT#demo#THEMES', SK: `THM#${ID}`, itemType: 'Theme', ...record } }).resolves({});
    expect(await themeStore.update(record)).toBe('changed');
    expect(await themeStore.update(record)).toBe('gone');
  });
});

describe('themeStore.allVersions', () => {
  it("reads only the tenant's name + version items, in key order", async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    await themeStore.allVersions('demo').read({ limit: 10, descending: false });
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      ExpressionAttributeValues: expect.objectContaining({ ':pk': 'TNT#demo#THEMES' }),
    });
    expect(JSON.stringify(ddb.commandCalls(QueryCommand)[0]!.args[0].input)).toContain('THMNV#');
  });
});
