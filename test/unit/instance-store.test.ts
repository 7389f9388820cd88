/**
 * The process instance store against Amazon's DynamoDB Local (the table made from the same schema
 * module the stack uses): the waiting step's own item, and the list's query model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import type { ProcessInstanceRecord, ProcessTokenRecord, StepClaim, WaitingStep } from '../../functions/process-manager/model.js';
import { instanceEvents } from '../../functions/events/catalogue.js';
import type { EventEnvelope } from '../../functions/shared/events.js';

let local: LocalDynamo;
let client: DynamoDBClient;
let dir: string;
let store: typeof import('../../functions/store/process-instances.js').processInstanceStore;
let keys: typeof import('../../functions/store/keys.js').keys;
const TENANT = 'acme';
const now = new Date('2026-03-01T00:00:00Z');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'instance-store-'));
  local = await startDynamoDbLocal(dir);
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  process.env.TABLE_NAME = 'instances-unit';
  client = localClient(local.endpoint);
  await ensureTable(client, 'instances-unit');
  ({ processInstanceStore: store } = await import('../../functions/store/process-instances.js'));
  ({ keys } = await import('../../functions/store/keys.js'));
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await local?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The event a waiting step is written with. */
const stepEvent = (r: ProcessInstanceRecord, at = new Date('2026-03-01T00:01:00.000Z')) => instanceEvents.stepChanged(r, { activityId: 'form', activityType: 'dataForm' }, at);

let seq = 0;
/** A token that can be used, and an instance of it created at `at`. */
async function createInstance(overrides: Partial<ProcessInstanceRecord> = {}, at = now): Promise<ProcessInstanceRecord> {
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
    processDefnName: 'identity-check',
    processDefnVersion: 1,
    processTokenId: token.id,
    status: 'PENDING',
    createdAt: at.toISOString(),
    lastUpdatedAt: at.toISOString(),
    retentionDays: 90,
    expiringDtm: new Date(at.getTime() + 90 * 86_400_000).toISOString(),
    expiresAt: Math.floor(at.getTime() / 1000) + 90 * 86_400,
    parameters: { firstName: 'Ann', lastName: `Lee${n}` },
    capabilityHash: 'h',
    stateMachineArn: 'arn:sm',
    createdBy: 'op',
    ...overrides,
  };
  expect(await store.createWithToken(record, token, at, instanceEvents.created(record, at))).toEqual({ outcome: 'created' });
  return record;
}

async function rawItem(key: { PK: string; SK: string }) {
  const out = await client.send(new GetItemCommand({ TableName: 'instances-unit', Key: { PK: { S: key.PK }, SK: { S: key.SK } }, ConsistentRead: true }));
  return out.Item && unmarshall(out.Item);
}

describe('the waiting step', () => {
  const step = (token: string, state: Record<string, unknown> = {}): WaitingStep => ({
    activityId: 'form',
    activityType: 'dataForm',
    inputs: {},
    state,
    taskToken: token,
    since: '2026-03-01T00:01:00.000Z',
  });

  it('lives in its own item, not in the instance item, and readers still see it as currentStep', async () => {
    const r = await createInstance();
    const bigSession = { blob: 'x'.repeat(100_000) };
    expect(await store.setWaitingStep(r, step('t1', bigSession), stepEvent(r))).toBe(true);
    const instanceItem = await rawItem(keys.instance(TENANT, r.id));
    expect(instanceItem?.currentStep).toBeUndefined();
    expect(instanceItem?.lastUpdatedAt).toBe('2026-03-01T00:01:00.000Z');
    const stepItem = await rawItem(keys.instanceStep(TENANT, r.id));
    expect(stepItem).toMatchObject({ taskToken: 't1', expiresAt: r.expiresAt });
    expect(JSON.stringify(instanceItem).length).toBeLessThan(2000);
    const read = await store.get(TENANT, r.id);
    expect(read?.currentStep).toMatchObject({ activityId: 'form', taskToken: 't1', state: bigSession });
  });

  it('is left out of getLiveRecord, the one-read view of the API\'s instance reads, which is gone past retention too', async () => {
    const r = await createInstance();
    expect(await store.setWaitingStep(r, step('t2'), stepEvent(r))).toBe(true);
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc } = await dynamo();
    const sent: string[] = [];
    const send = doc.send.bind(doc);
    const spy = vi.spyOn(doc, 'send').mockImplementation(((command: { constructor: { name: string } }) => (sent.push(command.constructor.name), send(command as never))) as never);
    try {
      const read = await store.getLiveRecord(TENANT, r.id, now);
      expect(read).toMatchObject({ id: r.id, processDefnName: 'identity-check' });
      expect(read).not.toHaveProperty('currentStep');
      expect(sent).toEqual(['GetCommand']);
    } finally {
      spy.mockRestore();
    }
    expect(await store.getLiveRecord(TENANT, r.id, new Date((r.expiresAt + 1) * 1000))).toBeUndefined();
    expect(await store.getLiveRecord('other', r.id, now)).toBeUndefined();
  });

  it('counts refusals on the step, and claims, finishes or releases it only with its own task token', async () => {
    const r = await createInstance();
    expect(await store.setWaitingStep(r, step('t1'), stepEvent(r))).toBe(true);
    expect(await store.countRefusal(TENANT, r.id, 't1')).toBe(1);
    expect(await store.countRefusal(TENANT, r.id, 't1')).toBe(2);
    expect(await store.countRefusal(TENANT, r.id, 'other')).toBeUndefined();
    expect((await store.get(TENANT, r.id))?.currentStep?.refusals).toBe(2);

    const data = { activityId: 'form', activityType: 'dataForm', dataKey: 'd', submittedAt: now.toISOString(), values: { a: 1 } };
    const claim = (taskToken: string): StepClaim => ({ activityId: 'form', taskToken, at: now.toISOString(), outcome: { complete: { result: {}, data } } });
    expect(await store.claimStep(TENANT, r.id, claim('other'), r.expiresAt)).toBe(false);
    expect(await store.claimStep(TENANT, r.id, claim('t1'), r.expiresAt)).toBe(true);
    // Claimed once: a second submission of the same step does not claim it again.
    expect(await store.claimStep(TENANT, r.id, claim('t1'), r.expiresAt)).toBe(false);
    expect((await store.get(TENANT, r.id))?.currentStep?.claim).toMatchObject({ outcome: 'complete' });
    expect(await store.finishStep(TENANT, r.id, claim('t1'), r.expiresAt, now)).toBe(true);
    expect((await store.get(TENANT, r.id))?.currentStep).toBeUndefined();
    expect(await store.listUserData(TENANT, r.id)).toEqual([data]);
    // Finished once: the claim is gone.
    expect(await store.finishStep(TENANT, r.id, claim('t1'), r.expiresAt, now)).toBe(false);
    // A done step leaves a husk without content, deleted with the instance by its TTL.
    const husk = await rawItem(keys.instanceStep(TENANT, r.id));
    expect(Object.keys(husk ?? {}).sort()).toEqual(['PK', 'SK', 'expiresAt', 'itemType']);

    // A released claim leaves the step waiting, unclaimed.
    expect(await store.setWaitingStep(r, step('t2'), stepEvent(r))).toBe(true);
    expect(await store.claimStep(TENANT, r.id, claim('t2'), r.expiresAt)).toBe(true);
    await store.releaseClaim(TENANT, r.id, claim('t2'));
    expect((await store.get(TENANT, r.id))?.currentStep).toMatchObject({ taskToken: 't2' });
    expect((await store.get(TENANT, r.id))?.currentStep?.claim).toBeUndefined();
    expect(await store.getStepClaim(TENANT, r.id, 'form')).toBeUndefined();

    // A step that moved on while claimed: finishing records the data, the next step stays.
    expect(await store.claimStep(TENANT, r.id, claim('t2'), r.expiresAt)).toBe(true);
    expect(await store.setWaitingStep(r, step('t3'), stepEvent(r))).toBe(true);
    expect(await store.finishStep(TENANT, r.id, claim('t2'), r.expiresAt, now)).toBe(true);
    const next = (await store.get(TENANT, r.id))?.currentStep;
    expect(next).toMatchObject({ taskToken: 't3' });
    // The next step starts unclaimed with no refusals counted.
    expect(next?.claim).toBeUndefined();
    expect(await store.countRefusal(TENANT, r.id, 't3')).toBe(1);
  });

  it('is refused for an instance that does not exist', async () => {
    const gone = { ...(await createInstance()), id: '00000000-0000-4000-8000-999999999999' };
    expect(await store.setWaitingStep(gone, step('t'), stepEvent(gone))).toBe(false);
    // Nothing of the refused write is left: no step and no event.
    expect(await rawItem(keys.instanceStep(TENANT, gone.id))).toBeUndefined();
  });
});

describe('the outbox', () => {
  /** The tenant's outbox items about one instance, in key (time) order. */
  async function eventsOf(id: string): Promise<EventEnvelope[]> {
    const { queryPages } = await import('../../functions/store/client.js');
    // A subject's events are all in its shard, in the order written.
    const items = await queryPages({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.outboxPartition(TENANT, keys.outboxShard(id)) } });
    return (items as unknown as EventEnvelope[]).filter((e) => e.subject.id === id);
  }

  it('writes each change with its event, and no event with a change that is refused', async () => {
    const r = await createInstance();
    const step = { activityId: 'form', activityType: 'dataForm', inputs: {}, state: {}, taskToken: 't', since: '2026-03-01T00:01:00.000Z' };
    expect(await store.setWaitingStep(r, step, stepEvent(r))).toBe(true);
    const at = new Date('2026-03-01T00:02:00.000Z');
    expect(await store.setStatus(r, 'PENDING', 'ACTIVE', at, false, instanceEvents.statusChanged(r, 'PENDING', 'ACTIVE', at, false))).toBe(true);
    // Written over a status that is no longer there: refused, and its events with it.
    const late = new Date('2026-03-01T00:03:00.000Z');
    expect(await store.setStatus(r, 'PENDING', 'REVIEW', late, true, instanceEvents.statusChanged(r, 'PENDING', 'REVIEW', late, true))).toBe(false);
    const final = new Date('2026-03-01T00:04:00.000Z');
    expect(await store.setStatus(r, 'ACTIVE', 'REVIEW', final, true, instanceEvents.statusChanged(r, 'ACTIVE', 'REVIEW', final, true))).toBe(true);

    const events = await eventsOf(r.id);
    expect(events.map((e) => [e.type, e.data.status ?? e.data.activityId])).toEqual([
      ['process-instance.created', 'PENDING'],
      ['process-instance.step-changed', 'form'],
      ['process-instance.status-changed', 'ACTIVE'],
      ['process-instance.status-changed', 'REVIEW'],
      ['process-instance.completed', 'REVIEW'],
    ]);
    // Kept 30 days from the change, whatever the instance's own retention.
    const item = await rawItem(keys.outboxEvent(TENANT, events[0]!.timestamp, events[0]!.id, r.id));
    expect(item).toMatchObject({ itemType: 'OutboxEvent', expiresAt: Math.floor(now.getTime() / 1000) + 30 * 86_400 });
  });

  it('records completedAt with a final status only, and keeps it when a late step write moves lastUpdatedAt', async () => {
    const r = await createInstance();
    const at = new Date('2026-03-01T00:02:00.000Z');
    expect(await store.setStatus(r, 'PENDING', 'ACTIVE', at, false, [])).toBe(true);
    expect((await store.get(TENANT, r.id))?.completedAt).toBeUndefined();
    const ended = new Date('2026-03-01T00:04:00.000Z');
    expect(await store.setStatus({ ...r, status: 'ACTIVE' }, 'ACTIVE', 'COMPLETED_ENDED_SUCCESS', ended, true, [])).toBe(true);
    expect(await store.get(TENANT, r.id)).toMatchObject({ completedAt: ended.toISOString(), lastUpdatedAt: ended.toISOString() });
    // The last step's finish, written after the journey's end was recorded: lastUpdatedAt moves, completedAt stays.
    const step = { activityId: 'form', activityType: 'dataForm', inputs: {}, state: {}, taskToken: 'late', since: '2026-03-01T00:01:00.000Z' };
    expect(await store.setWaitingStep(r, step, stepEvent(r))).toBe(true);
    const claim = { activityId: 'form', taskToken: 'late', at: '2026-03-01T00:03:59.000Z', outcome: { complete: { result: {}, data: { activityId: 'form', activityType: 'dataForm', dataKey: 'f', submittedAt: '2026-03-01T00:03:59.000Z', values: {} } } } };
    expect(await store.claimStep(TENANT, r.id, claim, r.expiresAt)).toBe(true);
    expect(await store.finishStep(TENANT, r.id, claim, r.expiresAt, new Date('2026-03-01T00:04:01.000Z'))).toBe(true);
    expect(await store.get(TENANT, r.id)).toMatchObject({ completedAt: ended.toISOString(), lastUpdatedAt: '2026-03-01T00:04:01.000Z' });
  });

  it('writes no instance without its event: a token that cannot be used leaves neither', async () => {
    const r = await createInstance();
    const again = { ...r, id: '00000000-0000-4000-8000-888888888888' };
    const used = { tenantId: TENANT, id: r.processTokenId } as ProcessTokenRecord;
    // The token is made inactive: the creation is refused whole, its event with it.
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName } = await dynamo();
    await doc.send(new UpdateCommand({ TableName: tableName, Key: keys.processToken(TENANT, used.id), UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'INACTIVE' } }));
    expect(await store.createWithToken(again, used, now, instanceEvents.created(again, now))).toEqual({ outcome: 'tokenRefused' });
    expect(await eventsOf(again.id)).toEqual([]);
  });
});

describe('the list views and the query model', () => {
  const tenant = 'lists';
  const made: ProcessInstanceRecord[] = [];
  let search: typeof import('../../functions/process-manager/instances/instance-search.js');

  beforeAll(async () => {
    search = await import('../../functions/process-manager/instances/instance-search.js');
    for (let i = 0; i < 25; i++) {
      const at = new Date(now.getTime() + i * 60_000);
      const r = await createInstance(
        {
          tenantId: tenant,
          processDefnName: i % 2 ? 'odd-journey' : 'even-journey',
          processDefnId: i % 2 ? 'def-odd' : 'def-even',
          parameters: { firstName: i === 7 ? 'Zoë' : 'Ann', lastName: `Lee${i}`, email: `p${i}@x.example`, note: 's'.repeat(3000) },
        },
        at,
      );
      made.push(r);
    }
    // Five become REVIEW, three COMPLETED_ENDED_SUCCESS.
    for (const i of [3, 6, 9, 12, 15]) expect(await store.setStatus(made[i]!, 'PENDING', 'REVIEW', now, true, [])).toBe(true);
    for (const i of [4, 8, 16]) expect(await store.setStatus(made[i]!, 'PENDING', 'COMPLETED_ENDED_SUCCESS', now, true, [])).toBe(true);
  }, 60_000);

  async function createInstance(overrides: Partial<ProcessInstanceRecord>, at: Date) {
    const n = ++seq;
    const token = { tenantId: tenant, id: `tok${n}` } as ProcessTokenRecord;
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName } = await dynamo();
    await doc.send(new PutCommand({ TableName: tableName, Item: { ...keys.processToken(tenant, token.id), status: 'ACTIVE', counter: 0, maxCount: null, validFromDtm: null, validToDtm: null } }));
    const record = {
      tenantId: tenant,
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      processDefnVersion: 1,
      processTokenId: token.id,
      status: 'PENDING',
      createdAt: at.toISOString(),
      lastUpdatedAt: at.toISOString(),
      retentionDays: 90,
      expiringDtm: new Date(at.getTime() + 90 * 86_400_000).toISOString(),
      expiresAt: Math.floor(at.getTime() / 1000) + 90 * 86_400,
      capabilityHash: 'h',
      stateMachineArn: 'arn:sm',
      createdBy: 'op',
      ...overrides,
    } as ProcessInstanceRecord;
    expect(await store.createWithToken(record, token, at, instanceEvents.created(record, at))).toEqual({ outcome: 'created' });
    return record;
  }

  const ids = (p: { content: { id: string }[] }) => p.content.map((c) => c.id);
  const newestFirst = () => [...made].reverse().map((r) => r.id);
  const later = new Date(now.getTime() + 86_400_000);

  it('keeps the instance item out of the index and the views slim (contact parameters), with one term view per word', async () => {
    const r = made[0]!;
    const item = await rawItem(keys.instance(tenant, r.id));
    expect(item?.GSI1PK).toBeUndefined();
    const view = await rawItem(keys.instanceView(tenant, r.id, 'T'));
    expect(view?.parameters).toEqual({ firstName: 'Ann', lastName: 'Lee0', email: 'p0@x.example' });
    expect(view?.q).toBeUndefined();
    expect(JSON.stringify(view).length).toBeLessThan(1000);
    // The id whole, the definition name's words, the contact parameters' words (not one-letter `x`), the note cut to 64.
    const terms = [r.id, 'even', 'journey', 'ann', 'lee0', 'p0', 'example', 's'.repeat(64)];
    const term = await rawItem(keys.instanceTermView(tenant, r.id, 'lee0'));
    expect(term).toMatchObject({ id: r.id, status: 'PENDING', w: terms, expiresAt: r.expiresAt, GSI1SK: `${r.createdAt}#${r.id}` });
    expect(JSON.stringify(term).length).toBeLessThan(1500);
    expect(await rawItem(keys.instanceTermView(tenant, r.id, 'x'))).toBeUndefined();
  });

  it('indexes an instance under at most 16 terms, first come first kept', async () => {
    const { searchTerms } = await import('../../functions/store/process-instances.js');
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, `word${i}`]));
    const terms = searchTerms({ ...made[0]!, parameters: { ...many, _redirectUrl: 'https://skip.example/me' } });
    expect(terms).toHaveLength(16);
    expect(terms.slice(0, 4)).toEqual([made[0]!.id, 'even', 'journey', 'word0']);
    expect(terms).not.toContain('skip');
  });

  it('pages newest first by number and by cursor alike, with the Spring fields', async () => {
    const first = await search.searchInstances(store, tenant, {}, { page: 0, size: 10, sort: [] }, later);
    expect(first).toMatchObject({ totalElements: 25, totalPages: 3, first: true, last: false, number: 0, numberOfElements: 10, totalElementsCapped: false });
    expect(ids(first)).toEqual(newestFirst().slice(0, 10));
    const second = await search.searchInstances(store, tenant, {}, { page: 1, size: 10, sort: [], cursor: first.nextCursor! }, later);
    expect(ids(second)).toEqual(newestFirst().slice(10, 20));
    const byNumber = await search.searchInstances(store, tenant, {}, { page: 2, size: 10, sort: [] }, later);
    expect(ids(byNumber)).toEqual(newestFirst().slice(20));
    expect(byNumber).toMatchObject({ last: true, nextCursor: null, numberOfElements: 5 });
    const asc = await search.searchInstances(store, tenant, {}, { page: 0, size: 5, sort: ['createdAt,asc'] }, later);
    expect(ids(asc)).toEqual(made.slice(0, 5).map((r) => r.id));
  });

  it('filters by status (several at once, merged in order), definition, range and free text', async () => {
    const review = await search.searchInstances(store, tenant, { processInstanceStatus: ['REVIEW'] }, { page: 0, size: 50, sort: [] }, later);
    expect(ids(review)).toEqual([15, 12, 9, 6, 3].map((i) => made[i]!.id));
    expect(review.content[0]).toMatchObject({ status: 'REVIEW', scheduledExpiry: true, firstName: 'Ann', lastName: 'Lee15' });
    const two = await search.searchInstances(store, tenant, { processInstanceStatus: ['REVIEW', 'COMPLETED_ENDED_SUCCESS'] }, { page: 0, size: 3, sort: [] }, later);
    expect(ids(two)).toEqual([16, 15, 12].map((i) => made[i]!.id));
    expect(two.totalElements).toBe(8);
    const next = await search.searchInstances(
      store, tenant, { processInstanceStatus: ['REVIEW', 'COMPLETED_ENDED_SUCCESS'] }, { page: 1, size: 3, sort: [], cursor: two.nextCursor! }, later,
    );
    expect(ids(next)).toEqual([9, 8, 6].map((i) => made[i]!.id));
    const odd = await search.searchInstances(store, tenant, { processDefinitionName: 'odd-journey', processInstanceStatus: ['REVIEW'] }, { page: 0, size: 50, sort: [] }, later);
    expect(ids(odd)).toEqual([15, 9, 3].map((i) => made[i]!.id));
    const byId = await search.searchInstances(store, tenant, { processDefinitionId: 'def-even' }, { page: 0, size: 50, sort: [] }, later);
    expect(byId.totalElements).toBe(13);
    const range = await search.searchInstances(
      store, tenant, { startDateTime: made[5]!.createdAt, endDateTime: made[7]!.createdAt }, { page: 0, size: 50, sort: [] }, later,
    );
    expect(ids(range)).toEqual([7, 6, 5].map((i) => made[i]!.id));
    const text = await search.searchInstances(store, tenant, { searchString: ' ZOË ' }, { page: 0, size: 50, sort: [] }, later);
    expect(ids(text)).toEqual([made[7]!.id]);
    const email = await search.searchInstances(store, tenant, { searchString: 'p12@x' }, { page: 0, size: 50, sort: [] }, later);
    expect(ids(email)).toEqual([made[12]!.id]);
  });

  it('searches whole words through the term index: every word must match, with the other filters and a status change', async () => {
    const find = async (f: Parameters<typeof search.searchInstances>[2], size = 50) => search.searchInstances(store, tenant, f, { page: 0, size, sort: [] }, later);
    // Several words: the rarest word's partition is read (probed by a COUNT each), the others filter it.
    const read: unknown[] = [];
    const spying = { ...store, queryViews: (...a: Parameters<typeof store.queryViews>) => (read.push(a[1].partition), store.queryViews(...a)) };
    expect(ids(await search.searchInstances(spying, tenant, { searchString: 'Ann Lee12' }, { page: 0, size: 5, sort: [] }, later))).toEqual([made[12]!.id]);
    expect(read).toEqual([{ kind: 'W', term: 'lee12' }]);
    expect(ids(await find({ searchString: 'p12@x.example' }))).toEqual([made[12]!.id]);
    expect(ids(await find({ searchString: made[20]!.id }))).toEqual([made[20]!.id]);
    // Whole words: no prefix or substring matches; a word the index cannot hold matches nothing.
    expect((await find({ searchString: 'lee' })).totalElements).toBe(0);
    expect((await find({ searchString: 'Le' })).totalElements).toBe(0);
    expect(await find({ searchString: 'a' })).toMatchObject({ totalElements: 0, content: [], nextCursor: null });
    // The term views follow the status (REVIEW: 3, 6, 9, 12, 15), the definition and the range.
    expect(ids(await find({ searchString: 'ann', processInstanceStatus: ['REVIEW'] }))).toEqual([15, 12, 9, 6, 3].map((i) => made[i]!.id));
    expect(ids(await find({ searchString: 'ann', processDefinitionName: 'odd-journey', processInstanceStatus: ['REVIEW'] }))).toEqual([15, 9, 3].map((i) => made[i]!.id));
    expect((await find({ searchString: 'journey', processDefinitionId: 'def-odd', endDateTime: made[10]!.createdAt })).totalElements).toBe(5);
    expect((await find({ searchString: 'lee12', processInstanceStatus: ['PENDING'] })).totalElements).toBe(0);
    // Paged by cursor like any list.
    const first = await find({ searchString: 'ann' }, 20);
    expect(first).toMatchObject({ totalElements: 24, numberOfElements: 20 });
    const next = await search.searchInstances(store, tenant, { searchString: 'ann' }, { page: 1, size: 20, sort: [], cursor: first.nextCursor! }, later);
    expect([...ids(first), ...ids(next)]).toEqual(newestFirst().filter((id) => id !== made[7]!.id));
  });

  it('counts totalElements on the first page only and carries it in the cursor', async () => {
    let counts = 0;
    const counting = { ...store, countViews: (...a: Parameters<typeof store.countViews>) => (counts++, store.countViews(...a)) };
    const first = await search.searchInstances(counting, tenant, {}, { page: 0, size: 10, sort: [] }, later);
    expect(counts).toBe(1);
    const second = await search.searchInstances(counting, tenant, {}, { page: 1, size: 10, sort: [], cursor: first.nextCursor! }, later);
    const third = await search.searchInstances(counting, tenant, {}, { page: 2, size: 10, sort: [], cursor: second.nextCursor! }, later);
    expect(counts).toBe(1);
    expect([second.totalElements, third.totalElements, third.totalPages]).toEqual([25, 25, 3]);
    // A cursor made before counts were carried (three fields) is still taken, and counts again.
    const [createdAt, id, fp] = JSON.parse(Buffer.from(first.nextCursor!, 'base64url').toString('utf8')) as string[];
    const old = Buffer.from(JSON.stringify([createdAt, id, fp]), 'utf8').toString('base64url');
    expect(ids(await search.searchInstances(counting, tenant, {}, { page: 1, size: 10, sort: [], cursor: old }, later))).toEqual(ids(second));
    expect(counts).toBe(2);
    const forged = Buffer.from(JSON.stringify([createdAt, id, fp, -1, 0, 0]), 'utf8').toString('base64url');
    await expect(search.searchInstances(store, tenant, {}, { page: 1, size: 10, sort: [], cursor: forged }, later)).rejects.toThrow('Invalid cursor');
  });

  it('sorts by another property in memory, and hides instances past their retention', async () => {
    const byStatus = await search.searchInstances(store, tenant, {}, { page: 0, size: 25, sort: ['status,asc'] }, later);
    expect(byStatus.content.map((c) => c.status).slice(0, 3)).toEqual(['COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_SUCCESS']);
    expect(byStatus.nextCursor).toBeNull();
    const afterRetention = new Date(now.getTime() + 91 * 86_400_000);
    expect((await search.searchInstances(store, tenant, {}, { page: 0, size: 10, sort: [] }, afterRetention)).totalElements).toBe(0);
  });

  it('refuses a cursor of other filters, a foreign cursor and pages beyond the window', async () => {
    const first = await search.searchInstances(store, tenant, {}, { page: 0, size: 10, sort: [] }, later);
    await expect(search.searchInstances(store, tenant, { searchString: 'ann' }, { page: 1, size: 10, sort: [], cursor: first.nextCursor! }, later)).rejects.toThrow('Invalid cursor');
    await expect(search.searchInstances(store, tenant, {}, { page: 1, size: 10, sort: [], cursor: 'bm9wZQ' }, later)).rejects.toThrow('Invalid cursor');
    await expect(search.searchInstances(store, tenant, {}, { page: 10, size: 1000, sort: [] }, later)).rejects.toThrow('Page too deep');
  });

  it('counts no further than the cap', async () => {
    const q = { partition: { kind: 'T' as const }, direction: 'desc' as const, now };
    expect(await store.countViews(tenant, q, 1000, 1000)).toEqual({ count: 25, exhausted: false });
    expect(await store.countViews(tenant, q, 10, 1000)).toEqual({ count: 10, exhausted: false });
    // Filtered out after reading: the read budget stops the count, which says so.
    const sparse = { ...q, partition: { kind: 'W' as const, term: 'ann' }, terms: ['lee0'] };
    // (A lower bound: which 10 items the budget reaches depends on the list's shards.)
    const cut = await store.countViews(tenant, sparse, 1000, 10);
    expect(cut.exhausted).toBe(true);
    expect(cut.count).toBeLessThanOrEqual(1);
    expect(await store.countViews(tenant, sparse, 1000, 1000)).toEqual({ count: 1, exhausted: false });
  });
});

describe('backfillViews (operator backfill-views)', () => {
  const tenant = 'backfill';
  const base = (n: number, over: Partial<ProcessInstanceRecord> = {}): ProcessInstanceRecord => ({
    tenantId: tenant,
    id: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`,
    processDefnId: 'def-1',
    processDefnName: 'identity-check',
    processDefnVersion: 1,
    processTokenId: 'tok',
    status: 'REVIEW',
    createdAt: now.toISOString(),
    lastUpdatedAt: now.toISOString(),
    retentionDays: 90,
    expiringDtm: new Date(now.getTime() + 90 * 86_400_000).toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + 90 * 86_400,
    parameters: { firstName: 'Olga', lastName: `Older${n}` },
    capabilityHash: 'h',
    stateMachineArn: 'arn:sm',
    createdBy: 'op',
    ...over,
  });

  it('writes the views and term views of instances stored before them, drops stale term views, and leaves others alone', async () => {
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo } = await import('../../functions/store/client.js');
    const { backfillViews } = await import('../../functions/process-manager/instances/backfill-views.js');
    const search = await import('../../functions/process-manager/instances/instance-search.js');
    const { doc, tableName } = await dynamo();
    const put = (Item: Record<string, unknown>) => doc.send(new PutCommand({ TableName: tableName, Item }));
    // As stored before term views: the instance item and a T view with substring terms `q`, and a term view of another derivation.
    const old = base(1);
    await put({ ...keys.instance(tenant, old.id), itemType: 'ProcessInstance', ...old });
    await put({ ...keys.instanceView(tenant, old.id, 'T'), ...keys.instanceIndex(tenant, old.createdAt, old.id), itemType: 'ProcessInstanceView', id: old.id, q: 'olga\nolder1' });
    await put({ ...keys.instanceTermView(tenant, old.id, 'stale'), itemType: 'ProcessInstanceView', id: old.id, expiresAt: old.expiresAt });
    const expired = base(2, { expiresAt: Math.floor(now.getTime() / 1000) - 1 });
    await put({ ...keys.instance(tenant, expired.id), itemType: 'ProcessInstance', ...expired });
    const foreign = base(3, { tenantId: 'backfill2' });
    await put({ ...keys.instance('backfill2', foreign.id), itemType: 'ProcessInstance', ...foreign });

    const find = () => search.searchInstances(store, tenant, { searchString: 'older1', processInstanceStatus: ['REVIEW'] }, { page: 0, size: 10, sort: [] }, now);
    expect((await find()).totalElements).toBe(0);
    expect(await backfillViews(store, { tenantId: tenant, now })).toEqual({ scanned: 2, rewritten: 1, expired: 1, raced: 0 });
    expect((await find()).content.map((c) => c.id)).toEqual([old.id]);
    expect(await rawItem(keys.instanceTermView(tenant, old.id, 'stale'))).toBeUndefined();
    expect(await rawItem(keys.instanceView(tenant, old.id, 'T'))).toMatchObject({ status: 'REVIEW', parameters: { firstName: 'Olga', lastName: 'Older1' } });
    expect((await rawItem(keys.instanceView(tenant, old.id, 'T')))?.q).toBeUndefined();
    expect(await rawItem(keys.instanceTermView(tenant, expired.id, 'olga'))).toBeUndefined();
    expect(await rawItem(keys.instanceTermView('backfill2', foreign.id, 'olga'))).toBeUndefined();
    // Idempotent.
    expect(await backfillViews(store, { tenantId: tenant, now })).toEqual({ scanned: 2, rewritten: 1, expired: 1, raced: 0 });
  });

  it('never writes views over a status that changed since the read', async () => {
    const r = base(4, { status: 'PENDING' });
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName } = await dynamo();
    await doc.send(new PutCommand({ TableName: tableName, Item: { ...keys.instance(tenant, r.id), itemType: 'ProcessInstance', ...r, status: 'ACTIVE' } }));
    expect(await store.rewriteViews(r)).toBe(false);
    expect(await rawItem(keys.instanceView(tenant, r.id, 'S'))).toBeUndefined();
    expect(await store.rewriteViews({ ...r, status: 'ACTIVE' })).toBe(true);
    expect(await rawItem(keys.instanceView(tenant, r.id, 'S'))).toMatchObject({ status: 'ACTIVE', GSI1PK: keys.instanceViewIndexPartition(tenant, { kind: 'S', status: 'ACTIVE' }, keys.instanceViewShard(r.id)) });
  });
});

describe('the list views over shards', () => {
  const tenant = 'sharded';

  it('lists every shard and the partition from before shards as one list, newest first, page after page by cursor', async () => {
    const made: ProcessInstanceRecord[] = [];
    for (let i = 0; i < 12; i++) made.push(await createInstance({ tenantId: tenant } as Partial<ProcessInstanceRecord>, new Date(now.getTime() + i * 1000)));
    expect(new Set(made.map((r) => keys.instanceViewShard(r.id))).size).toBeGreaterThan(1);
    // Two instances listed as before shards: their T views in the list's one partition.
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName } = await dynamo();
    for (const r of [made[3]!, made[8]!]) {
      await doc.send(new UpdateCommand({ TableName: tableName, Key: keys.instanceView(tenant, r.id, 'T'), UpdateExpression: 'SET GSI1PK = :pk', ExpressionAttributeValues: { ':pk': keys.instanceViewIndexPartition(tenant, { kind: 'T' }) } }));
    }
    const q = { partition: { kind: 'T' as const }, direction: 'desc' as const, now };
    const newestFirst = [...made].reverse().map((r) => r.id);
    expect((await store.queryViews(tenant, q, 50)).views.map((v) => v.id)).toEqual(newestFirst);
    expect(await store.countViews(tenant, q, 1000, 1000)).toEqual({ count: 12, exhausted: false });
    // By cursor, five at a time: each page starts right after the last, in every shard.
    const paged: string[] = [];
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await store.queryViews(tenant, { ...q, after }, 5);
      paged.push(...page.views.map((v) => v.id));
      if (!page.more) break;
      const last = page.views.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
    }
    expect(paged).toEqual(newestFirst);
    const asc = await store.queryViews(tenant, { ...q, direction: 'asc', after: { createdAt: made[5]!.createdAt, id: made[5]!.id } }, 3);
    expect(asc).toEqual({ views: expect.any(Array), more: true });
    expect(asc.views.map((v) => v.id)).toEqual(made.slice(6, 9).map((r) => r.id));
  });
});
