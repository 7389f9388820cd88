import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { PROCESS_TOKEN_USE_SHARDS } from '../../functions/store/shards.js';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../functions/store/keys.js';
import { processTokenStore } from '../../functions/store/process-tokens.js';
import { identityEventStore } from '../../functions/store/identity-store.js';
import type { ProcessTokenRecord } from '../../functions/process-manager/model.js';
import type { IdentityEvent } from '../../functions/identity-store/model.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
beforeEach(() => ddb.reset());

const token = (validToDtm: string | null) => ({ tenantId: 'acme', id: 'tok', name: 'n', createdDtm: '2025-12-01T00:00:00.000Z', validToDtm }) as ProcessTokenRecord;

describe('process token TTL', () => {
  it('keeps a token 90 days past its validToDtm (token, name lock, list view and use shards), and one without an end for good', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await processTokenStore.create(token('2026-01-01T00:00:00Z'));
    await processTokenStore.create(token(null));
    const [dated, open] = ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!.map((i) => i.Put!.Item!));
    const ttl = Date.parse('2026-01-01T00:00:00Z') / 1000 + 90 * 86_400;
    expect(dated!.map((i) => i.expiresAt)).toEqual(Array(3 + PROCESS_TOKEN_USE_SHARDS).fill(ttl));
    expect(open!.map((i) => i.expiresAt)).toEqual(Array(3 + PROCESS_TOKEN_USE_SHARDS).fill(undefined));
  });

  it('reads a token past its TTL as gone, before DynamoDB deletes it', async () => {
    const item = { ...keys.processToken('acme', 'tok'), itemType: 'ProcessToken', id: 'tok', expiresAt: Math.floor(Date.now() / 1000) - 1 };
    ddb.on(GetCommand).resolves({ Item: item });
    ddb.on(QueryCommand).resolves({ Items: [item, { ...item, id: 'live', expiresAt: Math.floor(Date.now() / 1000) + 60 }, { ...item, id: 'open', expiresAt: undefined }] });
    expect(await processTokenStore.get('acme', 'tok')).toBeUndefined();
    expect((await processTokenStore.list('acme')).map((t) => t.id)).toEqual(['live', 'open']);
    expect((await processTokenStore.list('acme'))[0]).not.toHaveProperty('expiresAt');
  });
});

describe('identity event TTL', () => {
  it('keeps an event 90 days, hides it after, and never shows the TTL attribute', async () => {
    const event = { tenantId: 'acme', at: '2026-01-01T00:00:00.000Z', eventId: 'e1', type: 'USER_ADDED', storeName: 's', actor: 'apikey:k', details: {} } as unknown as IdentityEvent;
    ddb.on(TransactWriteCommand).resolves({});
    await identityEventStore.put(event);
    // The log entry and the outgoing event, in one transaction: the log's kept 90 days, the outbox's 30.
    const [log, outgoing] = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.map((i) => i.Put!.Item!);
    expect(log!.expiresAt).toBe(Date.parse(event.at) / 1000 + 90 * 86_400);
    expect(outgoing).toMatchObject({ itemType: 'OutboxEvent', type: 'identity-store.user-added', expiresAt: Date.parse(event.at) / 1000 + 30 * 86_400 });
    ddb.on(QueryCommand).resolves({ Items: [{ ...keys.identityEvent('acme', event.at, 'e1'), itemType: 'IdentityEvent', ...event, expiresAt: 1 }] });
    const page = await identityEventStore.page('acme', {}, 10, undefined);
    const input = ddb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(input.FilterExpression).toContain('expiresAt > :now');
    expect(page).toMatchObject({ outcome: 'page' });
    expect((page as { events: object[] }).events[0]).not.toHaveProperty('expiresAt');
  });
});
