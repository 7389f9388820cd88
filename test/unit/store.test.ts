import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../functions/store/keys.js';
import { apiKeyStore } from '../../functions/store/api-keys.js';
import { newApiKey } from '../../functions/api-keys/domain.js';
import { PERMISSIONS } from '../../functions/auth/permissions.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
beforeEach(() => ddb.reset());

describe('keys', () => {
  it('prefixes every key with the tenant', () => {
    expect(keys.apiKey('acme', 'k1')).toEqual({ PK: 'TNT#acme#APIKEYS', SK: 'APIKEY#k1' });
    expect(keys.tenant('acme').PK.startsWith('TNT#acme#')).toBe(true);
  });
  it('rejects a tenant id or id part that could forge another prefix', () => {
    expect(() => keys.apiKey('acme#APIKEYS', 'x')).toThrow();
    expect(() => keys.apiKey('', 'x')).toThrow();
    expect(() => keys.apiKey('acme', 'x#y')).toThrow();
  });
});

describe('apiKeyStore', () => {
  it("reads a tenant's key only under that tenant's partition", async () => {
    const record = newApiKey({ name: 'k' }, { tenantId: 'acme', id: 'op', permissions: new Set(PERMISSIONS) }, new Date()).record;
    ddb.on(GetCommand).resolves({});
    ddb.on(GetCommand, { Key: keys.apiKey('acme', record.id) }).resolves({ Item: { ...keys.apiKey('acme', record.id), itemType: 'ApiKey', ...record } });
    expect(await apiKeyStore.get('acme', record.id)).toMatchObject({ id: record.id, tenantId: 'acme' });
    expect(await apiKeyStore.get('other', record.id)).toBeUndefined();
    expect(ddb.commandCalls(GetCommand)[1]!.args[0].input.Key).toEqual({ PK: 'TNT#other#APIKEYS', SK: `APIKEY#${record.id}` });
  });

  it("writes, updates and deletes only under the caller's tenant", async () => {
    const record = newApiKey({ name: 'k' }, { tenantId: 'acme', id: 'op', permissions: new Set(PERMISSIONS) }, new Date()).record;
    ddb.on(TransactWriteCommand).resolves({});
    ddb.on(UpdateCommand).resolves({ Attributes: { ...record, itemType: 'ApiKey' } });
    ddb.on(QueryCommand).resolves({ Items: [] });
    await apiKeyStore.create(record);
    await apiKeyStore.replace({ ...record, version: 2 });
    await apiKeyStore.delete(record);
    await apiKeyStore.recordIssue('acme', record.id, record.secretHash, new Date().toISOString(), 'issueToken');
    await apiKeyStore.list('acme');
    const written = ddb.commandCalls(TransactWriteCommand).flatMap((c) => c.args[0].input.TransactItems!);
    const partitions = [
      ...written.map((t) => (t.Put?.Item ?? t.Delete?.Key ?? t.Update?.Key)!.PK),
      ...ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input.Key!.PK),
      ...ddb.commandCalls(QueryCommand).map((c) => c.args[0].input.ExpressionAttributeValues![':pk']),
    ];
    // create: key, view, count; replace: key, view; delete: key, view, count; then the issue and the list.
    expect(partitions).toHaveLength(10);
    for (const pk of partitions) expect(pk).toBe('TNT#acme#APIKEYS');
    // Creation never overwrites, and replacement writes only over the version it read.
    expect(written[0]!.Put!.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(written[3]!.Put!.ExpressionAttributeValues).toEqual({ ':expected': 1 });
  });

  it('checks the hash, status, expiry and operation in the one write of a token issue', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { itemType: 'ApiKey', id: 'k' } });
    await apiKeyStore.recordIssue('acme', 'k', 'h', '2026-01-01T00:00:00.000Z', 'issueToken');
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toContain('secretHash = :hash');
    expect(input.ConditionExpression).toContain('#status = :active');
    expect(input.ConditionExpression).toContain('expiringDtm > :now');
    expect(input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(ddb.calls()).toHaveLength(1);
  });
});
