/**
 * The review store against Amazon's DynamoDB Local (the table made from the same schema module
 * the stack uses): a review required once, decisions written only over what they read.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { useLocalTable } from '../support/local-table.js';
import type { InstanceReview, ProcessInstanceRecord, ProcessTokenRecord } from '../../functions/process-manager/model.js';
import { instanceEvents } from '../../functions/events/catalogue.js';

let instances: typeof import('../../functions/store/process-instances.js').processInstanceStore;
let reviews: typeof import('../../functions/store/reviews.js').reviewStore;
let keys: typeof import('../../functions/store/keys.js').keys;
const TENANT = 'acme';
const TABLE = 'reviews-unit';
const now = new Date('2026-03-01T00:00:00Z');

const table = useLocalTable(TABLE, async () => {
  ({ processInstanceStore: instances } = await import('../../functions/store/process-instances.js'));
  ({ reviewStore: reviews } = await import('../../functions/store/reviews.js'));
  ({ keys } = await import('../../functions/store/keys.js'));
});

let seq = 0;
/** An instance, created as instances are (with its token's use, its views and its event). */
async function createInstance(): Promise<ProcessInstanceRecord> {
  const n = ++seq;
  const token = { tenantId: TENANT, id: `tok${n}` } as ProcessTokenRecord;
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamo } = await import('../../functions/store/client.js');
  const { doc, tableName } = await dynamo();
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.processToken(TENANT, token.id), itemType: 'ProcessToken', status: 'ACTIVE', counter: 0, maxCount: null, validFromDtm: null, validToDtm: null },
    }),
  );
  const record: ProcessInstanceRecord = {
    tenantId: TENANT,
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    processDefnId: 'def-1',
    processDefnName: 'review-tail',
    processDefnVersion: 1,
    processTokenId: token.id,
    status: 'ACTIVE',
    createdAt: now.toISOString(),
    lastUpdatedAt: now.toISOString(),
    retentionDays: 90,
    expiringDtm: new Date(now.getTime() + 90 * 86_400_000).toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + 90 * 86_400,
    parameters: { firstName: 'Ann' },
    capabilityHash: 'h',
    stateMachineArn: 'arn:sm',
    createdBy: 'op',
    reconcileAt: now.toISOString(),
  };
  expect(await instances.createWithToken(record, token, now, instanceEvents.created(record, now))).toEqual({ outcome: 'created' });
  return record;
}

async function rawItem(key: { PK: string; SK: string }) {
  const out = await table.client().send(new GetItemCommand({ TableName: TABLE, Key: { PK: { S: key.PK }, SK: { S: key.SK } }, ConsistentRead: true }));
  return out.Item && unmarshall(out.Item);
}

const pending = (id: string): InstanceReview => ({ status: 'PENDING', id, requiredAt: now.toISOString() });
const decision = (status: 'APPROVE' | 'REJECT' | 'REVIEW', id: string): InstanceReview => ({ status, id, comment: `${status} it`, reviewedBy: 'apikey:k', reviewedAt: now.toISOString() });
const at = new Date('2026-03-02T00:00:00.000Z');

describe('requireReview', () => {
  it('marks the review PENDING once: a retried step writes nothing over it; a decided one starts a new round; no instance, nothing', async () => {
    const r = await createInstance();
    expect(await reviews.requireReview(TENANT, r.id, pending('p1'))).toBe(true);
    expect(await reviews.requireReview(TENANT, r.id, pending('p2'))).toBe(false);
    expect((await instances.get(TENANT, r.id))?.review).toEqual(pending('p1'));

    const read = (await instances.get(TENANT, r.id))!;
    expect(await reviews.decideReview(read, { from: 'ACTIVE', to: 'REVIEW', review: decision('REVIEW', 'd1') }, at, [])).toBe(true);
    expect(await reviews.requireReview(TENANT, r.id, pending('p3'))).toBe(true);
    expect((await instances.get(TENANT, r.id))?.review).toEqual(pending('p3'));

    expect(await reviews.requireReview(TENANT, '00000000-0000-4000-8000-999999999999', pending('p4'))).toBe(false);
    expect(await rawItem(keys.instance(TENANT, '00000000-0000-4000-8000-999999999999'))).toBeUndefined();
  });
});

describe('decideReview', () => {
  it('writes the decision, the status with its views and events, and takes the instance off the reconciler\'s index', async () => {
    const r = await createInstance();
    await reviews.requireReview(TENANT, r.id, pending('p1'));
    const read = (await instances.get(TENANT, r.id))!;
    expect(await instances.setStatus(read, 'ACTIVE', 'REVIEW', at, true, [])).toBe(true);
    const inReview = (await instances.get(TENANT, r.id))!;
    expect(inReview.status).toBe('REVIEW');
    const events = [
      instanceEvents.reviewed(inReview, { decision: 'APPROVE', status: 'COMPLETED_ENDED_SUCCESS', previousStatus: 'REVIEW', reviewedBy: 'apikey:k', reviewedAt: at.toISOString() }, at),
      ...instanceEvents.statusChanged(inReview, 'REVIEW', 'COMPLETED_ENDED_SUCCESS', at, true),
    ];
    expect(await reviews.decideReview(inReview, { from: 'REVIEW', to: 'COMPLETED_ENDED_SUCCESS', review: decision('APPROVE', 'd1') }, at, events)).toBe(true);

    const item = await rawItem(keys.instance(TENANT, r.id));
    expect(item).toMatchObject({ status: 'COMPLETED_ENDED_SUCCESS', review: decision('APPROVE', 'd1'), lastUpdatedAt: at.toISOString() });
    expect(item).not.toHaveProperty('reconcileAt');
    expect(item).not.toHaveProperty('GSI2PK');
    // The status view moved with it.
    expect(await rawItem(keys.instanceView(TENANT, r.id, 'S'))).toMatchObject({ status: 'COMPLETED_ENDED_SUCCESS' });
    const { views } = await instances.queryViews(TENANT, { partition: { kind: 'S', status: 'COMPLETED_ENDED_SUCCESS' }, direction: 'desc', now: at }, 100);
    expect(views.map((v) => v.id)).toContain(r.id);
    // The events, in the outbox with it.
    const { doc, tableName, commands } = await (await import('../../functions/store/client.js')).dynamo();
    const outbox = await Promise.all(
      keys.outboxPartitions(TENANT).map((PK) =>
        doc.send(new commands.QueryCommand({ TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PK } })),
      ),
    );
    const mine = outbox.flatMap((o) => o.Items ?? []).filter((e) => JSON.stringify(e).includes(r.id)).map((e) => String(e.type));
    expect(mine).toEqual(expect.arrayContaining(['process-instance.reviewed', 'process-instance.status-changed', 'process-instance.completed']));
  });

  it('writes only over the status and the review it read: of two decisions at once, one wins', async () => {
    const r = await createInstance();
    await reviews.requireReview(TENANT, r.id, pending('p1'));
    const read = (await instances.get(TENANT, r.id))!;
    const outcomes = await Promise.all([
      reviews.decideReview(read, { from: 'ACTIVE', to: 'COMPLETED_ENDED_SUCCESS', review: decision('APPROVE', 'a') }, at, []),
      reviews.decideReview(read, { from: 'ACTIVE', to: 'COMPLETED_ENDED_ERROR', review: decision('REJECT', 'b') }, at, []),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const after = (await instances.get(TENANT, r.id))!;
    expect(after.review?.id).toBe(outcomes[0] ? 'a' : 'b');

    // A REVIEW decision keeps the status: a second one over the same read review loses too.
    const kept = await createInstance();
    const keptRead = (await instances.get(TENANT, kept.id))!;
    expect(await reviews.decideReview(keptRead, { from: 'ACTIVE', to: 'ACTIVE', review: decision('REVIEW', 'k1') }, at, [])).toBe(true);
    expect(await reviews.decideReview(keptRead, { from: 'ACTIVE', to: 'ACTIVE', review: decision('REVIEW', 'k2') }, at, [])).toBe(false);
    const second = (await instances.get(TENANT, kept.id))!;
    expect(await reviews.decideReview(second, { from: 'ACTIVE', to: 'COMPLETED_ENDED_ERROR', review: decision('REJECT', 'k3') }, at, [])).toBe(true);
    // A status that changed meanwhile.
    expect(await reviews.decideReview(second, { from: 'ACTIVE', to: 'ACTIVE', review: decision('REVIEW', 'k4') }, at, [])).toBe(false);
  });
});
