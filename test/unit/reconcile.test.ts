import { DescribeExecutionCommand, ExecutionDoesNotExist, SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executionArnOf, type ProcessInstanceRecord } from '../../functions/process-manager/model.js';
import { reconcileExecutions, reconcileInstance, type ReconcileDeps } from '../../functions/process-manager/executions/reconcile.js';
import { firstReconcileAt, nextReconcileAt } from '../../functions/process-manager/executions/reconcile-schedule.js';
import { stepFunctionsOrchestrator } from '../../functions/process-manager/executions/step-functions.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import { itemCodec } from '../../functions/store/codec.js';
import { keys } from '../../functions/store/keys.js';
import { OPEN_INDEX_SHARDS, shardOf } from '../../functions/store/shards.js';
import { instanceEvents } from '../../functions/events/catalogue.js';
import { FakeInstances, openInstance, sessionOf } from '../support/instances-fake.js';

const sfn = mockClient(SFNClient);
const ddb = mockClient(DynamoDBDocumentClient);
const now = new Date('2026-06-01T13:00:00.000Z');
let instances: FakeInstances;
let deps: ReconcileDeps;

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});

beforeEach(() => {
  sfn.reset();
  ddb.reset();
  instances = new FakeInstances();
  const orchestrator = stepFunctionsOrchestrator();
  deps = { instances, orchestrator: async () => orchestrator };
});

function describes(record: ProcessInstanceRecord, out: { status: string; output?: unknown; error?: string }) {
  sfn.on(DescribeExecutionCommand, { executionArn: executionArnOf(record) }).resolves({
    executionArn: executionArnOf(record),
    stateMachineArn: record.stateMachineArn,
    status: out.status as never,
    startDate: new Date(),
    input: JSON.stringify(sessionOf(record)),
    ...(out.output !== undefined ? { output: JSON.stringify(out.output) } : {}),
    ...(out.error !== undefined ? { error: out.error } : {}),
  });
}

describe('the reconcile schedule', () => {
  it('asks first a quarter of an hour after creation, then at doubling intervals of at most six hours', () => {
    expect(firstReconcileAt(new Date('2026-06-01T12:00:00Z'))).toBe('2026-06-01T12:15:00.000Z');
    const after = (checks: number) => (Date.parse(nextReconcileAt(now, checks)) - now.getTime()) / 60_000;
    expect([1, 2, 3, 4, 5, 6, 100].map(after)).toEqual([30, 60, 120, 240, 360, 360, 360]);
  });
});

describe('reconcileInstance', () => {
  it('records the end of an execution whose end was never recorded (lost event, failed record)', async () => {
    const record = openInstance('i1');
    instances.put(record);
    describes(record, { status: 'SUCCEEDED', output: sessionOf(record, { _decision: 'FAIL' }) });
    expect(await reconcileInstance(deps, { tenantId: 'acme', processInstanceId: 'i1' }, now)).toEqual({ outcome: 'recorded', status: 'COMPLETED_ENDED_ERROR' });
    expect(instances.record('acme', 'i1')).toMatchObject({ status: 'COMPLETED_ENDED_ERROR' });
    expect(instances.record('acme', 'i1')!.reconcileAt).toBeUndefined();
    expect(instances.events.map((e) => [e.type, e.data.status])).toEqual([
      ['process-instance.status-changed', instances.record('acme', 'i1')!.status],
      ['process-instance.completed', instances.record('acme', 'i1')!.status],
    ]);
  });

  it('maps failures by their error: a user step timeout is COMPLETED_TERMINATED', async () => {
    const timedOut = openInstance('t');
    const failed = openInstance('f');
    const stopped = openInstance('s');
    for (const r of [timedOut, failed, stopped]) instances.put(r);
    describes(timedOut, { status: 'FAILED', error: 'States.Timeout' });
    describes(failed, { status: 'FAILED', error: 'UnresolvedReference' });
    describes(stopped, { status: 'ABORTED' });
    const statuses = [];
    for (const id of ['t', 'f', 's']) statuses.push(await reconcileInstance(deps, { tenantId: 'acme', processInstanceId: id }, now));
    expect(statuses.map((s) => s.outcome === 'recorded' && s.status)).toEqual(['COMPLETED_TERMINATED', 'COMPLETED_PROCESS_ERROR', 'COMPLETED_TERMINATED']);
  });

  it('asks again later, backing off, while the execution runs', async () => {
    const record = openInstance('i1', { reconcileChecks: 2 });
    instances.put(record);
    describes(record, { status: 'RUNNING' });
    expect(await reconcileInstance(deps, { tenantId: 'acme', processInstanceId: 'i1' }, now)).toEqual({ outcome: 'running', next: '2026-06-01T15:00:00.000Z' });
    expect(instances.record('acme', 'i1')).toMatchObject({ status: 'ACTIVE', reconcileAt: '2026-06-01T15:00:00.000Z', reconcileChecks: 3 });
    expect(instances.events).toEqual([]);
  });

  it('ends an instance whose execution does not exist (never started, or past its history) as COMPLETED_PROCESS_ERROR', async () => {
    const record = openInstance('i1', { status: 'PENDING' });
    instances.put(record);
    sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} }));
    expect(await reconcileInstance(deps, { tenantId: 'acme', processInstanceId: 'i1' }, now)).toEqual({ outcome: 'recorded', status: 'COMPLETED_PROCESS_ERROR' });
  });

  it('asks nothing about an instance that is gone or already final', async () => {
    instances.put(openInstance('done', { status: 'REVIEW' }));
    expect(await reconcileInstance(deps, { tenantId: 'acme', processInstanceId: 'done' }, now)).toEqual({ outcome: 'settled' });
    expect(await reconcileInstance(deps, { tenantId: 'acme', processInstanceId: 'gone' }, now)).toEqual({ outcome: 'settled' });
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(0);
  });
});

describe('reconcileExecutions', () => {
  it('checks only the instances due, over every page, and leaves one it could not check due', async () => {
    instances.pageSize = 2;
    const ended = openInstance('a', { reconcileAt: '2026-06-01T12:15:00.000Z' });
    const running = openInstance('b', { reconcileAt: '2026-06-01T12:20:00.000Z' });
    const throttled = openInstance('c', { reconcileAt: '2026-06-01T12:30:00.000Z' });
    const notYet = openInstance('d', { reconcileAt: '2026-06-01T13:10:00.000Z' });
    for (const r of [ended, running, throttled, notYet]) instances.put(r);
    describes(ended, { status: 'SUCCEEDED', output: sessionOf(ended, { _decision: 'REVIEW' }) });
    describes(running, { status: 'RUNNING' });
    sfn.on(DescribeExecutionCommand, { executionArn: executionArnOf(throttled) }).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    const run = await reconcileExecutions(deps, now, { maxInstances: 100 });
    expect(run).toEqual({ checked: 3, recorded: 1, running: 1, failed: 1, more: false });
    expect(instances.record('acme', 'a')!.status).toBe('REVIEW');
    expect(instances.record('acme', 'b')!.reconcileAt).toBe('2026-06-01T13:30:00.000Z');
    expect(instances.record('acme', 'c')).toMatchObject({ status: 'ACTIVE', reconcileAt: '2026-06-01T12:30:00.000Z' });
    expect(sfn.commandCalls(DescribeExecutionCommand).map((c) => c.args[0].input.executionArn)).not.toContain(executionArnOf(notYet));
  });

  it('stops at its budget and says more is due', async () => {
    for (let i = 0; i < 5; i++) {
      const r = openInstance(`r${i}`);
      instances.put(r);
      describes(r, { status: 'RUNNING' });
    }
    const run = await reconcileExecutions(deps, now, { maxInstances: 3, concurrency: 1 });
    expect(run).toMatchObject({ checked: 3, running: 3, more: true });
  });
});

describe('processInstanceStore and the reconciler index', () => {
  const record = openInstance('i1');

  it('puts a new instance on the open-instance index of its tenant, keyed by when it is due', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await processInstanceStore.createWithToken(record, { tenantId: 'acme', id: 't1' } as never, now, instanceEvents.created(record, now));
    const put = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.find((t) => t.Put)!.Put!.Item!;
    expect(put).toMatchObject({ GSI2PK: `TNT#acme#OPEN#${String(shardOf('i1', OPEN_INDEX_SHARDS)).padStart(2, '0')}`, GSI2SK: '2026-06-01T12:15:00.000Z#i1', reconcileAt: '2026-06-01T12:15:00.000Z' });
    // The index keys are the table's, never the record's.
    expect(itemCodec<ProcessInstanceRecord>('ProcessInstance').decode(put)).not.toHaveProperty('GSI2PK');
  });

  it('takes an instance off the index with its final status, and only then', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await processInstanceStore.setStatus(record, 'PENDING', 'ACTIVE', now, false, []);
    await processInstanceStore.setStatus(record, 'ACTIVE', 'REVIEW', now, true, []);
    // The instance's own update is the first of each transaction (its views follow).
    const [active, final] = ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems![0]!.Update!);
    expect(active!.UpdateExpression).not.toContain('REMOVE');
    expect(final!.UpdateExpression).toContain('REMOVE GSI2PK, GSI2SK, reconcileAt, reconcileChecks');
    expect(final!.ConditionExpression).toBe('#status = :from');
  });

  it('scans the keys-only index for what is due, page by page, and names each instance by its key', async () => {
    ddb.on(ScanCommand).resolvesOnce({
      Items: [{ ...keys.instance('acme', 'i1'), ...keys.instanceOpen('acme', '2026-06-01T12:15:00.000Z', 'i1') }],
      LastEvaluatedKey: { PK: 'x', SK: 'PI', GSI2PK: 'TNT#acme#OPEN', GSI2SK: 'y' },
    }).resolves({ Items: [{ ...keys.instance('globex', 'i2') }] });
    const first = await processInstanceStore.dueForReconcile(now);
    expect(first.due).toEqual([{ tenantId: 'acme', processInstanceId: 'i1' }]);
    const second = await processInstanceStore.dueForReconcile(now, first.next);
    expect(second).toEqual({ due: [{ tenantId: 'globex', processInstanceId: 'i2' }] });
    const [a, b] = ddb.commandCalls(ScanCommand).map((c) => c.args[0].input);
    expect(a).toMatchObject({ IndexName: 'GSI2', FilterExpression: 'GSI2SK <= :due', ExpressionAttributeValues: { ':due': '2026-06-01T13:00:00.000Z#~' } });
    expect(b!.ExclusiveStartKey).toEqual({ PK: 'x', SK: 'PI', GSI2PK: 'TNT#acme#OPEN', GSI2SK: 'y' });
  });

  it('defers only an instance still open in the status read', async () => {
    ddb.on(UpdateCommand).resolves({});
    await processInstanceStore.deferReconcile(record, '2026-06-01T13:30:00.000Z', 1);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('#status = :status AND attribute_exists(GSI2PK)');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':sk': '2026-06-01T13:30:00.000Z#i1', ':status': 'ACTIVE', ':checks': 1 });
  });
});
