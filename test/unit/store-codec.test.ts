import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { itemCodec, unexpired } from '../../functions/store/codec.js';
import { transactWrite } from '../../functions/store/client.js';
import { keys } from '../../functions/store/keys.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import { identityEventStore, passkeyStore } from '../../functions/store/identity-store.js';
import { apiKeyStore } from '../../functions/store/api-keys.js';
import { newApiKey, updateApiKey } from '../../functions/api-keys/domain.js';
import { PERMISSIONS } from '../../functions/auth/permissions.js';
import type { ProcessInstanceRecord, ProcessTokenRecord, StepClaim } from '../../functions/process-manager/model.js';
import { instanceEvents } from '../../functions/events/catalogue.js';
import type { IdentityEvent, IdentityUserRecord, PasskeyRecord, PasskeySession } from '../../functions/identity-store/model.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
beforeEach(() => ddb.reset());

/** What DynamoDB throws when it cancels a transaction: one reason per item, in order. */
function cancelled(...codes: string[]): Error {
  return Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

interface Note {
  tenantId: string;
  id: string;
  text: string;
}

describe('itemCodec', () => {
  const notes = itemCodec<Note>('Note');
  const note: Note = { tenantId: 'acme', id: 'n1', text: 'hello' };

  it('writes the record beside its keys and its item type', () => {
    expect(notes.encode(note, { PK: 'TNT#acme#N', SK: 'N#n1', GSI1PK: 'g', GSI1SK: 's' })).toEqual({
      PK: 'TNT#acme#N',
      SK: 'N#n1',
      GSI1PK: 'g',
      GSI1SK: 's',
      itemType: 'Note',
      tenantId: 'acme',
      id: 'n1',
      text: 'hello',
    });
  });

  it('reads back exactly the record: the keys and the item type are dropped', () => {
    expect(notes.decode(notes.encode(note, { PK: 'p', SK: 's', GSI1PK: 'g', GSI1SK: 'h' }))).toEqual(note);
  });

  it('reads an item of another type, or no item, as absent', () => {
    expect(notes.decode({ PK: 'p', SK: 's', itemType: 'Other', text: 'x' })).toBeUndefined();
    expect(notes.decode({ PK: 'p', SK: 's', text: 'x' })).toBeUndefined();
    expect(notes.decode(undefined)).toBeUndefined();
  });

  it('keeps only its own type from a query, in order', () => {
    const items = [
      notes.encode({ ...note, id: 'a' }, { PK: 'p', SK: 'a' }),
      { PK: 'p', SK: 'lock', itemType: 'NoteLock', id: 'x' },
      notes.encode({ ...note, id: 'b' }, { PK: 'p', SK: 'b' }),
    ];
    expect(notes.decodeAll(items).map((n) => n.id)).toEqual(['a', 'b']);
  });

  it('treats a record past its TTL as absent before DynamoDB deletes it', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const at = now.getTime() / 1000;
    expect(unexpired({ expiresAt: at + 1 }, now)).toEqual({ expiresAt: at + 1 });
    expect(unexpired({ expiresAt: at }, now)).toBeUndefined();
    expect(unexpired(undefined, now)).toBeUndefined();
  });
});

describe('transactWrite', () => {
  it('writes the named items in order, with the table name, leaving out the undefined ones', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const outcome = await transactWrite({
      first: { Put: { Item: { PK: 'a', SK: 'a' } } },
      skipped: undefined,
      second: { Delete: { Key: { PK: 'b', SK: 'b' }, ConditionExpression: 'attribute_exists(PK)' } },
    });
    expect(outcome).toEqual({ written: true });
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toEqual([
      { Put: { TableName: 'unit', Item: { PK: 'a', SK: 'a' } } },
      { Delete: { TableName: 'unit', Key: { PK: 'b', SK: 'b' }, ConditionExpression: 'attribute_exists(PK)' } },
    ]);
  });

  it('names the items whose condition failed, counting only the items sent', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    const outcome = await transactWrite({
      first: { Put: { Item: { PK: 'a', SK: 'a' } } },
      skipped: undefined,
      second: { Put: { Item: { PK: 'b', SK: 'b' }, ConditionExpression: 'attribute_not_exists(PK)' } },
    });
    expect(outcome).toMatchObject({ written: false, failed: ['second'] });
  });

  it('retries a conflict with another transaction as often as asked, then throws it', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict', 'None')).resolves({});
    expect(await transactWrite({ a: { Put: { Item: { PK: 'a', SK: 'a' } } } }, { retryConflicts: 2 })).toEqual({ written: true });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(2);

    ddb.reset();
    ddb.on(TransactWriteCommand).rejects(cancelled('TransactionConflict'));
    await expect(transactWrite({ a: { Put: { Item: { PK: 'a', SK: 'a' } } } }, { retryConflicts: 2 })).rejects.toThrow('Transaction cancelled');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(3);

    ddb.reset();
    ddb.on(TransactWriteCommand).rejects(cancelled('TransactionConflict'));
    await expect(transactWrite({ a: { Put: { Item: { PK: 'a', SK: 'a' } } } })).rejects.toThrow('Transaction cancelled');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('throws any other error as it came', async () => {
    ddb.on(TransactWriteCommand).rejects(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));
    await expect(transactWrite({ a: { Put: { Item: { PK: 'a', SK: 'a' } } } })).rejects.toThrow('slow down');
  });
});

describe('processInstanceStore.createWithToken', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const token = { tenantId: 'acme', id: 'tok' } as ProcessTokenRecord;
  const record = {
    tenantId: 'acme',
    id: 'pi',
    createdAt: now.toISOString(),
    status: 'PENDING',
    processDefnName: 'journey',
    parameters: { firstName: 'Ann', note: 'n' },
  } as unknown as ProcessInstanceRecord;
  const idempotency = { key: 'k1', result: { fingerprint: 'f', status: 201, body: {} } };
  const created = instanceEvents.created(record, now);

  it("tells the token's refusal and the idempotency key's by the item, not by its position", async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None'));
    expect(await processInstanceStore.createWithToken(record, token, now, created, idempotency)).toEqual({ outcome: 'tokenRefused' });
    ddb.reset();
    // Token, instance, event, three views, three term views (`pi`, `journey`, `ann`), then the idempotency record.
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'None', 'None', 'None', 'None', 'None', 'None', 'None', 'ConditionalCheckFailed'));
    expect(await processInstanceStore.createWithToken(record, token, now, created, idempotency)).toEqual({ outcome: 'idempotencyKeyTaken' });
  });

  it('writes the token use, the instance, its event, its three list views, its term views and the idempotency record (when there is a key) in one transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await processInstanceStore.createWithToken(record, token, now, created)).toEqual({ outcome: 'created' });
    expect(await processInstanceStore.createWithToken(record, token, now, created, idempotency)).toEqual({ outcome: 'created' });
    const [without, withKey] = ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
    expect(without).toHaveLength(9);
    expect(withKey).toHaveLength(10);
    expect(withKey![0]!.Update!.Key).toEqual(keys.processToken('acme', 'tok'));
    expect(withKey![1]!.Put!.Item).toMatchObject({ ...keys.instance('acme', 'pi'), itemType: 'ProcessInstance', id: 'pi' });
    expect(withKey![1]!.Put!.Item!.GSI1PK).toBeUndefined();
    expect(withKey![2]!.Put!.Item).toMatchObject({ itemType: 'OutboxEvent', id: created.id, type: 'process-instance.created', subject: { type: 'process-instance', id: 'pi' } });
    // Each list's shard of the instance (all its views in the same one).
    const shard = String(keys.instanceViewShard('pi')).padStart(2, '0');
    expect(withKey!.slice(3, 6).map((i) => i.Put!.Item!.GSI1PK)).toEqual([`TNT#acme#PIV#T#${shard}`, `TNT#acme#PIV#S#PENDING#${shard}`, `TNT#acme#PIV#D#${Buffer.from('journey').toString('base64url')}#${shard}`]);
    expect(withKey![3]!.Put!.Item).toMatchObject({ itemType: 'ProcessInstanceView', parameters: { firstName: 'Ann' } });
    // One term view per word (`n` is too short), each with every term for the other words of a search.
    expect(withKey!.slice(6, 9).map((i) => i.Put!.Item!.GSI1PK)).toEqual(['pi', 'journey', 'ann'].map((t) => `TNT#acme#PIV#W#${Buffer.from(t).toString('base64url')}#${shard}`));
    expect(withKey![6]!.Put!.Item).toMatchObject({ ...keys.instanceTermView('acme', 'pi', 'pi'), w: ['pi', 'journey', 'ann'], status: 'PENDING' });
    expect(withKey![9]!.Put!.Item).toMatchObject({ ...keys.idempotency('acme', 'k1'), itemType: 'Idempotency', fingerprint: 'f' });
  });
});

describe('passkeyStore.register', () => {
  const session = { tenantId: 'acme', storeName: 's', sessionId: 'sess' } as PasskeySession;
  const passkey = { tenantId: 'acme', storeName: 's', userId: 'u', id: 'p', credentialId: 'cred' } as PasskeyRecord;
  const user = { tenantId: 'acme', storeName: 's', id: 'u', externalId: 'ext' } as IdentityUserRecord;
  const event = { tenantId: 'acme', type: 'PASSKEY_REGISTERED', storeName: 's', actor: 'apikey:k', details: {}, at: '2026-01-01T00:00:00.000Z', eventId: '01HZZZZZZZZZZZZZZZZZZZZZZZ' } as IdentityEvent;

  it('says which condition refused the registration', async () => {
    const cases: [string[], string][] = [
      // Session, credential, passkey, user, the event (its log entry and its outgoing event), external id.
      [['ConditionalCheckFailed', 'None', 'None', 'None', 'None', 'None', 'None'], 'sessionGone'],
      [['None', 'ConditionalCheckFailed', 'None', 'None', 'None', 'None', 'None'], 'credentialTaken'],
      [['None', 'None', 'None', 'None', 'None', 'None', 'ConditionalCheckFailed'], 'externalIdTaken'],
    ];
    for (const [codes, outcome] of cases) {
      ddb.reset();
      ddb.on(TransactWriteCommand).rejects(cancelled(...codes));
      expect(await passkeyStore.register(session, passkey, user, true, event)).toEqual({ outcome });
    }
    ddb.reset();
    ddb.on(TransactWriteCommand).resolves({});
    expect(await passkeyStore.register(session, passkey, user, false, event)).toEqual({ outcome: 'registered' });
    // An existing user has no external id lock to claim.
    const items = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(6);
    // The outgoing event goes with the change, ids only.
    expect(items[5]!.Put!.Item).toMatchObject({ itemType: 'OutboxEvent', type: 'identity-store.passkey-registered', subject: { type: 'identity-user' } });
  });
});

describe('stores return outcomes; the domain throws', () => {
  it('answers a lost optimistic lock with false, which the API key domain turns into CONCURRENT_UPDATE', async () => {
    const actor = { tenantId: 'acme', id: 'op', permissions: new Set(PERMISSIONS) };
    const { record } = newApiKey({ name: 'k' }, actor, new Date());
    ddb.on(TransactWriteCommand).rejects(
      Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] }),
    );
    expect(await apiKeyStore.replace({ ...record, version: 2 })).toBe(false);
    const keys = { ...apiKeyStore, get: async () => record };
    await expect(updateApiKey(keys, 'acme', record.id, { name: 'renamed' }, actor, new Date())).rejects.toMatchObject({ code: 'CONCURRENT_UPDATE' });
  });

  it('answers a page token it did not hand out as an outcome, without reading', async () => {
    expect(await identityEventStore.page('acme', {}, 10, 'not-a-token')).toEqual({ outcome: 'invalidPageToken' });
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('processInstanceStore: a user step claimed, handed over, finished', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const data = { activityId: 'form', activityType: 'DATA_FORM', dataKey: 'form', submittedAt: now.toISOString(), values: { a: 1 } };
  const claim: StepClaim = { activityId: 'form', taskToken: 'tok-1', at: now.toISOString(), digest: 'd1', outcome: { complete: { result: { vars: { a: 1 } }, data } } };

  it('claims only the waiting step with this token, once, keeping the claim in its own item', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await processInstanceStore.claimStep('acme', 'pi', claim, 99)).toBe(true);
    const [step, kept] = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(step!.Update).toMatchObject({
      Key: keys.instanceStep('acme', 'pi'),
      UpdateExpression: 'SET claim = :claim',
      ConditionExpression: 'taskToken = :token AND attribute_not_exists(claim)',
      ExpressionAttributeValues: { ':token': 'tok-1', ':claim': { at: claim.at, outcome: 'complete', digest: 'd1' } },
    });
    expect(kept!.Put!.Item).toMatchObject({ ...keys.instanceStepClaim('acme', 'pi', 'form'), itemType: 'StepClaim', taskToken: 'tok-1', expiresAt: 99 });
    ddb.reset();
    ddb.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    expect(await processInstanceStore.claimStep('acme', 'pi', claim, 99)).toBe(false);
  });

  it('finishes: the claim goes, the user data is kept, and the waiting step is emptied only if it is still this one', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await processInstanceStore.finishStep('acme', 'pi', claim, 99, now)).toBe(true);
    const [gone, kept, instance, step] = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(gone!.Delete).toMatchObject({ Key: keys.instanceStepClaim('acme', 'pi', 'form'), ConditionExpression: 'taskToken = :token' });
    expect(kept!.Put!.Item).toMatchObject({ ...keys.instanceUserData('acme', 'pi', 'form'), values: { a: 1 }, expiresAt: 99 });
    expect(instance!.Update).toMatchObject({
      Key: keys.instance('acme', 'pi'),
      UpdateExpression: 'SET lastStep = :last, lastUpdatedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':last': { activityId: 'form', at: now.toISOString(), digest: 'd1' } },
    });
    expect(step!.Update).toMatchObject({ Key: keys.instanceStep('acme', 'pi'), ConditionExpression: 'taskToken = :token', ExpressionAttributeValues: { ':token': 'tok-1' } });
    expect(step!.Update!.UpdateExpression).toMatch(/^REMOVE taskToken, .*, claim$/);
  });

  it('finishes a step whose execution already waits at the next one without touching that one', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled('None', 'None', 'None', 'ConditionalCheckFailed')).resolves({});
    expect(await processInstanceStore.finishStep('acme', 'pi', claim, 99, now)).toBe(true);
    const second = ddb.commandCalls(TransactWriteCommand)[1]!.args[0].input.TransactItems!;
    expect(second).toHaveLength(3);
    expect(second[2]!.Update).toMatchObject({ Key: keys.instance('acme', 'pi'), UpdateExpression: 'SET lastStep = :last, lastUpdatedAt = :now' });
    expect(second[1]!.Put!.Item).toMatchObject({ values: { a: 1 } });
  });

  it('changes nothing when the claim was already finished', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None', 'ConditionalCheckFailed'));
    expect(await processInstanceStore.finishStep('acme', 'pi', claim, 99, now)).toBe(false);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('finishes an error event without user data', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const failed: StepClaim = { ...claim, outcome: { fail: { error: 'DataFormRetake', cause: 'retake' } } };
    expect(await processInstanceStore.finishStep('acme', 'pi', failed, 99, now)).toBe(true);
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.map((i) => Object.keys(i)[0])).toEqual(['Delete', 'Update', 'Update']);
  });
});
