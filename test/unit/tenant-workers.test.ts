import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';
import { instanceEvents } from '../../functions/events/catalogue.js';
import { relayRecords, type StreamRecord } from '../../functions/events/relay.js';
import { handler as exportWorker } from '../../functions/exports/run-export.js';
import { reconcileExecutions, type ReconcileDeps } from '../../functions/process-manager/executions/reconcile.js';
import { onExecutionStatusChange, recordOutcome, type ExecutionEndDeps } from '../../functions/process-manager/instances/status.js';
import type { ProcessInstanceRecord } from '../../functions/process-manager/model.js';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { scopedTenant } from '../../functions/shared/tenant-scope.js';
import { dynamo } from '../../functions/store/client.js';
import { keys } from '../../functions/store/keys.js';
import { outboxItem } from '../../functions/store/outbox.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import { deliveryStore } from '../../functions/store/webhooks.js';
import { fanOut, type DeliverDeps } from '../../functions/webhooks/deliver.js';
import { handleDeliveries, type QueueRecord } from '../../functions/webhooks/on-delivery.js';
import { readOutboxItem } from '../../functions/webhooks/on-table-stream.js';
import { sweepDeliveries, type SweepDeps } from '../../functions/webhooks/sweep.js';

// The functions that are not routes act for one tenant per record (functions/shared/tenant-scope.ts
// `forRecordTenant`): on AWS each record's storage calls go through the function's tenant role for
// that record's tenant. Seen here as the store sees it: the scope's tenant inside each store call.
// A record naming no tenant is failed, never run unscoped.

const ddb = mockClient(DynamoDBDocumentClient);
const now = new Date('2026-06-01T13:00:00.000Z');

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
  resetConfigForTests();
});
beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

/** A store method that records the tenant of the scope it was called in, then answers `answer`. */
function seen<T>(log: (string | undefined)[], answer: T) {
  return async () => {
    await new Promise((r) => setTimeout(r, 1));
    log.push(scopedTenant());
    return answer;
  };
}

const instance = (tenantId: string, id: string) => ({ tenantId, id, status: 'ACTIVE' }) as unknown as ProcessInstanceRecord;

describe('the execution-end function', () => {
  it("records each end for its instance's tenant, named by the execution's state", async () => {
    const tenants: (string | undefined)[] = [];
    const deps: ExecutionEndDeps = {
      instances: { get: seen(tenants, undefined), setStatus: async () => true },
      orchestrator: async () => ({ describeExecution: async () => undefined }),
    };
    await Promise.all([
      recordOutcome(deps, { instance: { tenantId: 'alpha', processInstanceId: 'p1' } }, now),
      recordOutcome(deps, { instance: { tenantId: 'beta', processInstanceId: 'p2' } }, now),
      onExecutionStatusChange(deps, { executionArn: 'arn:x', status: 'ABORTED', input: JSON.stringify({ instance: { tenantId: 'gamma', processInstanceId: 'p3' } }) }, now),
    ]);
    expect(tenants.sort()).toEqual(['alpha', 'beta', 'gamma']);
    expect(scopedTenant()).toBeUndefined();
  });

  it('fails an end whose state names no tenant, and reads nothing for it', async () => {
    const tenants: (string | undefined)[] = [];
    const deps: ExecutionEndDeps = { instances: { get: seen(tenants, undefined), setStatus: async () => true }, orchestrator: async () => ({ describeExecution: async () => undefined }) };
    await expect(recordOutcome(deps, { instance: { tenantId: '', processInstanceId: 'p1' } }, now)).rejects.toThrow('names no tenant');
    expect(tenants).toEqual([]);
  });
});

describe('the reconciler', () => {
  it("checks each due instance for its own tenant (its key on the index), and fails one whose key names none", async () => {
    const tenants: (string | undefined)[] = [];
    const deps: ReconcileDeps = {
      instances: {
        dueForReconcile: async () => ({ due: [{ tenantId: 'alpha', processInstanceId: 'p1' }, { tenantId: 'beta', processInstanceId: 'p2' }, { tenantId: '', processInstanceId: 'p3' }] }),
        get: seen(tenants, undefined),
        setStatus: async () => true,
        deferReconcile: async () => true,
      },
      orchestrator: async () => ({ describeExecution: async () => undefined }),
    };
    const run = await reconcileExecutions(deps, now, { maxInstances: 10 });
    expect(tenants.sort()).toEqual(['alpha', 'beta']);
    expect(run).toMatchObject({ checked: 3, failed: 1 });
  });
});

describe('the webhook sweeper', () => {
  it("sweeps each due delivery for its own tenant (its key on the due index), and fails one whose key names none", async () => {
    const tenants: (string | undefined)[] = [];
    const key = (tenantId: string) => ({ tenantId, webhookId: 'w1', eventTimestamp: now.toISOString(), eventId: 'e1' });
    const deps = {
      deliveries: { dueForSweep: async () => ({ due: [key('alpha'), key('beta'), key('')] }), get: seen(tenants, undefined), reschedule: async () => true },
      holds: { first: async () => undefined, unpark: async () => undefined },
      queue: { retry: async () => undefined },
      sweepMarginSeconds: 1200,
    } as unknown as SweepDeps;
    const run = await sweepDeliveries(deps, now, { maxDeliveries: 10 });
    expect(tenants).toEqual(['alpha', 'beta']);
    expect(run).toMatchObject({ looked: 3, failed: 1 });
  });
});

describe('the webhook delivery worker', () => {
  it("makes each message's turn for the tenant it names, and fails a message that names none", async () => {
    const tenants: (string | undefined)[] = [];
    const deps = { deliveries: { get: seen(tenants, undefined) } } as unknown as DeliverDeps;
    const message = (id: string, tenantId: string | undefined): QueueRecord => ({
      messageId: id,
      receiptHandle: id,
      body: JSON.stringify({ ...(tenantId !== undefined ? { tenantId } : {}), webhookId: 'w1', eventId: 'e1', eventTimestamp: now.toISOString(), subjectId: 's' }),
      attributes: {},
    });
    const out = await handleDeliveries(deps, [message('1', 'alpha'), message('2', 'beta'), message('3', undefined), message('4', '')]);
    expect(tenants).toEqual(['alpha', 'beta']);
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '3' }, { itemIdentifier: '4' }] });
  });
});

describe('the outbox relay', () => {
  const record = (tenantId: string, id: string) =>
    ({ id, tenantId, processDefnId: 'd', processDefnName: 'n', processDefnVersion: 1, status: 'ACTIVE', createdAt: now.toISOString(), lastUpdatedAt: now.toISOString() }) as unknown as ProcessInstanceRecord;
  const at = new Date(Date.now() - 60_000);
  const streamRecord = (e: EventEnvelope, seq: number): StreamRecord => {
    const key = keys.outboxEvent(e.tenantId, e.timestamp, e.id, e.subject.id);
    return { eventName: 'INSERT', dynamodb: { Keys: { PK: { S: key.PK }, SK: { S: key.SK } }, SequenceNumber: String(seq) } };
  };

  it("reads each stream record's item and fans its event out for the tenant its key names", async () => {
    const [a, b] = [instanceEvents.created(record('alpha', 'p1'), at), instanceEvents.created(record('beta', 'p2'), at)];
    const reads: (string | undefined)[] = [];
    ddb.on(GetCommand).callsFake((input: { Key: { PK: string } }) => {
      reads.push(scopedTenant());
      return { Item: outboxItem(input.Key.PK.startsWith('TNT#alpha#') ? a : b) };
    });
    const lists: (string | undefined)[] = [];
    const out = await relayRecords(
      {
        outbox: { get: readOutboxItem },
        bus: async () => ({ put: async () => undefined }) as never,
        fanOut: async (events) =>
          void (await fanOut(
            {
              webhooks: { list: async (tenantId: string) => (lists.push(scopedTenant()), [{ id: `w-${tenantId}`, status: 'ENABLED', eventTypes: ['*'] }]) as never },
              deliveries: { start: async () => true },
              queue: { send: async () => undefined },
              sweepMarginSeconds: 1200,
            },
            events,
            now,
          )),
      },
      [streamRecord(a, 1), streamRecord(b, 2)],
    );
    expect(out.failedAt).toBeUndefined();
    expect(reads.sort()).toEqual(['alpha', 'beta']);
    expect(lists).toEqual(['alpha', 'beta']);
    expect(scopedTenant()).toBeUndefined();
  });

  it("fails a record whose item names another tenant than its partition", async () => {
    const a = instanceEvents.created(record('alpha', 'p1'), at);
    ddb.on(GetCommand).resolves({ Item: outboxItem({ ...a, tenantId: 'beta' }) });
    const out = await relayRecords({ outbox: { get: readOutboxItem }, bus: async () => ({ put: async () => undefined }) as never }, [streamRecord(a, 5)]);
    expect(out).toEqual({ relayed: [], failedAt: '5' });
  });

  it('fans out no event that names no tenant', async () => {
    const a = instanceEvents.created(record('alpha', 'p1'), at);
    const lists: unknown[] = [];
    await expect(
      fanOut({ webhooks: { list: async () => (lists.push(1), []) }, deliveries: { start: async () => true }, queue: { send: async () => undefined } }, [{ ...a, tenantId: '' }], now),
    ).rejects.toThrow('names no tenant');
    expect(lists).toEqual([]);
  });
});

describe('the export worker', () => {
  it("runs each job for its tenant, and fails a job that names none", async () => {
    const tenants: (string | undefined)[] = [];
    ddb.on(GetCommand).callsFake(() => (tenants.push(scopedTenant()), {}));
    const job = (id: string, body: object) => ({ messageId: id, body: JSON.stringify(body), attributes: { ApproximateReceiveCount: '1' } });
    const out = await exportWorker({ Records: [job('1', { tenantId: 'alpha', exportId: 'e1' }), job('2', { tenantId: 'beta', exportId: 'e2' }), job('3', { exportId: 'e3' })] });
    expect(tenants).toEqual(['alpha', 'beta']);
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '3' }] });
  });
});

describe('with a tenant role (TENANT_ROLE_ARN set)', () => {
  beforeAll(() => {
    Object.assign(process.env, { TENANT_ROLE_ARN: 'arn:aws:iam::111122223333:role/arthr-fir-x/tenant/r', AWS_REGION: 'eu-west-1' });
    resetConfigForTests();
  });
  afterAll(() => {
    delete process.env.TENANT_ROLE_ARN;
    resetConfigForTests();
  });

  it("scans the reconciler's and the sweeper's index on the function's own role, while tenant items need a tenant", async () => {
    ddb.on(ScanCommand).resolves({ Items: [{ PK: keys.instance('alpha', 'p1').PK, SK: 'PI' }] });
    expect((await processInstanceStore.dueForReconcile(now)).due).toEqual([{ tenantId: 'alpha', processInstanceId: 'p1' }]);
    ddb.on(ScanCommand).resolves({ Items: [] });
    expect((await deliveryStore.dueForSweep(now)).due).toEqual([]);
    await expect(dynamo()).rejects.toThrow('this function acts only for a tenant');
  });
});
