/**
 * The reconciler: finds instances whose execution ended without their final status recorded,
 * and records it. The journey's last state records its outcome and the status-change event
 * covers the other ends, but a Lambda can fail past its retries and EventBridge delivers
 * best-effort; this is the net under both, run on a schedule (every few minutes).
 *
 * Every open instance (no final status) sits on a sparse index, keyed by when to ask about it
 * next (`reconcileAt`): first a quarter of an hour after its creation, then, while its execution
 * runs, at doubling intervals of at most six hours. So a lost end is found within about that
 * interval, and a long journey waiting at a user step costs a few DescribeExecution calls a day.
 */
import type { ExecutionEnd, ExecutionEndDeps } from '../instances/status.js';
import { finalStatus, isEnded, isFinal, settleEnd } from '../instances/status.js';
import { executionArnOf, type InstanceStatus, type ProcessInstanceRecord, type ProcessInstanceStore } from '../model.js';
import { log } from '../../http/log.js';
import { countExecutionEndReconciled } from '../../observability/metrics.js';
import { nextReconcileAt } from './reconcile-schedule.js';
import { forRecordTenant } from '../../shared/tenant-scope.js';

export interface ReconcileDeps extends ExecutionEndDeps {
  instances: Pick<ProcessInstanceStore, 'get' | 'setStatus' | 'dueForReconcile' | 'deferReconcile'>;
}

export type ReconcileOutcome =
  /** The execution had ended: its status is now recorded. */
  | { outcome: 'recorded'; status: InstanceStatus }
  /** Still running: asked again later. */
  | { outcome: 'running'; next: string }
  /** Nothing to do: the instance is gone (past its retention) or already has its final status. */
  | { outcome: 'settled' };

/**
 * One due instance: its execution as Step Functions tells it. An execution that does not exist
 * (StartExecution never happened, or the history is past its 90 days) can never end: the
 * instance ends COMPLETED_PROCESS_ERROR. A succeeded execution is recorded from its output, as
 * the workflow would have recorded it.
 */
export async function reconcileInstance(
  d: ReconcileDeps,
  ref: { tenantId: string; processInstanceId: string },
  now: Date,
): Promise<ReconcileOutcome> {
  const record = await d.instances.get(ref.tenantId, ref.processInstanceId);
  if (!record || isFinal(record.status)) return { outcome: 'settled' };
  const described = await (await d.orchestrator()).describeExecution(executionArnOf(record));
  if (described && !isEnded(described.status)) {
    const checks = (record.reconcileChecks ?? 0) + 1;
    const next = nextReconcileAt(now, checks);
    await d.instances.deferReconcile(record, next, checks);
    return { outcome: 'running', next };
  }
  let end: ExecutionEnd | undefined;
  if (!described) {
    log().warn('instance without an execution: the journey can never go on', { processInstanceId: record.id, status: record.status });
  } else if (described.status === 'SUCCEEDED') {
    // DescribeExecution always includes the output (up to Step Functions' 256 KB state limit).
    if (described.output === undefined) throw new Error(`No output for the succeeded execution of ${record.id}`);
    end = { status: 'SUCCEEDED', output: described.output };
  } else if (described.status === 'FAILED') {
    end = { status: 'FAILED', error: described.error };
  } else {
    end = { status: described.status as 'TIMED_OUT' | 'ABORTED' };
  }
  const status: InstanceStatus = end ? finalStatus(end) : 'COMPLETED_PROCESS_ERROR';
  await recordReconciled(d, record, status, now);
  return { outcome: 'recorded', status };
}

async function recordReconciled(d: ReconcileDeps, record: ProcessInstanceRecord, reached: InstanceStatus, now: Date): Promise<void> {
  const status = await settleEnd(d, record, reached, now);
  log().warn('execution end recorded by the reconciler', { tenantId: record.tenantId, processInstanceId: record.id, status });
  await countExecutionEndReconciled(record.tenantId, status);
}

export interface ReconcileRun {
  checked: number;
  recorded: number;
  running: number;
  failed: number;
  /** Due instances left for the next run (the budget ran out). */
  more: boolean;
}

/**
 * One run: every due instance, a page of the index at a time, until none is left or the budget
 * (instances checked, or the time left) is spent; what is left stays due for the next run. An
 * instance that cannot be checked (a throttle) is logged and stays due. DescribeExecution calls
 * are made a few at a time, well within Step Functions' API rate.
 */
export async function reconcileExecutions(
  d: ReconcileDeps,
  now: Date,
  budget: { maxInstances: number; deadline?: number; concurrency?: number } = { maxInstances: 2000 },
): Promise<ReconcileRun> {
  const run: ReconcileRun = { checked: 0, recorded: 0, running: 0, failed: 0, more: false };
  const concurrency = budget.concurrency ?? 4;
  let cursor: string | undefined;
  do {
    const page = await d.instances.dueForReconcile(now, cursor);
    cursor = page.next;
    const due = [...page.due];
    const worker = async () => {
      for (let ref = due.shift(); ref; ref = due.shift()) {
        if (run.checked >= budget.maxInstances || (budget.deadline !== undefined && Date.now() >= budget.deadline)) {
          run.more = true;
          return;
        }
        run.checked++;
        try {
          // For the instance's tenant, named by its key on the index (the service's own key, not
          // an end user's input): on AWS through the function's tenant role, its Scan on its own.
          const result = await forRecordTenant(ref.tenantId, () => reconcileInstance(d, ref, now));
          if (result.outcome === 'recorded') run.recorded++;
          else if (result.outcome === 'running') run.running++;
        } catch (err) {
          run.failed++;
          log().error('could not reconcile an instance', { processInstanceId: ref.processInstanceId, error: err as Error });
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (run.more) return run;
  } while (cursor !== undefined);
  return run;
}
