import type { EventPublisher } from '../events/publisher.js';
import type { InstanceStatus, ProcessInstanceRecord, ProcessInstanceStore } from './model.js';

/** What a status change needs: the instance's storage and the publisher of its events. */
export interface StatusDeps {
  instances: Pick<ProcessInstanceStore, 'get' | 'setStatus'>;
  publisher: () => Promise<EventPublisher>;
}
import { countJourneyCompleted } from '../observability/metrics.js';

const FINAL: ReadonlySet<InstanceStatus> = new Set([
  'COMPLETED_ENDED_SUCCESS',
  'COMPLETED_ENDED_ERROR',
  'COMPLETED_PROCESS_ERROR',
  'COMPLETED_TERMINATED',
  'REVIEW',
]);

export function isFinal(status: InstanceStatus): boolean {
  return FINAL.has(status);
}

/**
 * Moves an instance to a new status and publishes the change. The write is conditional on the
 * status read, so two racing changes cannot both win, and a final status is never left.
 */
export async function changeStatus(d: StatusDeps, record: ProcessInstanceRecord, to: InstanceStatus, now: Date): Promise<boolean> {
  if (record.status === to || isFinal(record.status)) return false;
  if (!(await d.instances.setStatus(record, record.status, to, now))) return false;
  await (await d.publisher()).publish({
    type: 'ProcessInstanceStatusChanged',
    tenantId: record.tenantId,
    processInstanceId: record.id,
    processDefnId: record.processDefnId,
    processDefnName: record.processDefnName,
    processDefnVersion: record.processDefnVersion,
    status: to,
    previousStatus: record.status,
    at: now.toISOString(),
  });
  return true;
}

/**
 * The instance's final status from its execution's end: COMPLETED_ENDED_ERROR after an error
 * end event (`_end.errorCode`), else the decider's `_decision` when there is one, COMPLETED_TERMINATED when a user step timed out or the execution was stopped, and
 * COMPLETED_PROCESS_ERROR for any other failure.
 */
export function finalStatus(result: { status: string; output?: unknown; error?: string }): InstanceStatus {
  if (result.status === 'SUCCEEDED') {
    const output = result.output as { _decision?: string; _end?: { errorCode?: string } } | undefined;
    const decision = output?._decision;
    // An error end event, or a decider's FAIL: the journey ended as designed, declining.
    if (output?._end?.errorCode !== undefined || decision === 'FAIL') return 'COMPLETED_ENDED_ERROR';
    if (decision === 'REVIEW') return 'REVIEW';
    return 'COMPLETED_ENDED_SUCCESS';
  }
  if (result.status === 'ABORTED' || result.status === 'TIMED_OUT' || result.error === 'States.Timeout') return 'COMPLETED_TERMINATED';
  return 'COMPLETED_PROCESS_ERROR';
}

/** Where an execution's end is reported (the local engine, or the EventBridge rule on AWS). */
export async function recordExecutionEnd(
  d: StatusDeps,
  ref: { tenantId: string; processInstanceId: string },
  result: { status: string; output?: unknown; error?: string },
  now: Date,
): Promise<InstanceStatus | undefined> {
  const record = await d.instances.get(ref.tenantId, ref.processInstanceId);
  if (!record) return undefined;
  const to = finalStatus(result);
  // Counted once, by the change that made it final (a repeated end report changes nothing).
  if (await changeStatus(d, record, to, now)) await countJourneyCompleted(record.tenantId, to);
  return to;
}
