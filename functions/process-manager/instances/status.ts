import { instanceEvents } from '../../events/catalogue.js';
import { FINAL_INSTANCE_STATUSES, type ExecutionDescription, type InstanceStatus, type Orchestrator, type ProcessInstanceRecord, type ProcessInstanceStore } from '../model.js';
import { countJourneyCompleted } from '../../observability/metrics.js';
import { log } from '../../http/log.js';
import { isRefState } from '../../shared/session-state.js';
import { forRecordTenant } from '../../shared/tenant-scope.js';
import { forcedStatus } from '../sandbox.js';

/** What a status change needs: the instance's storage (which writes its events with it). */
export interface StatusDeps {
  instances: Pick<ProcessInstanceStore, 'get' | 'setStatus'>;
}

/** What recording an execution's end needs besides: Step Functions' own account of the execution. */
export interface ExecutionEndDeps extends StatusDeps {
  orchestrator: () => Promise<Pick<Orchestrator, 'describeExecution'>>;
}

const FINAL: ReadonlySet<InstanceStatus> = new Set(FINAL_INSTANCE_STATUSES);

export function isFinal(status: InstanceStatus): boolean {
  return FINAL.has(status);
}

/**
 * Moves an instance to a new status, with its events (status-changed, and completed into a final
 * status) in the same write: the outbox. The write is conditional on the status read, so two
 * racing changes cannot both win, and a final status is never left.
 */
export async function changeStatus(d: StatusDeps, record: ProcessInstanceRecord, to: InstanceStatus, now: Date): Promise<boolean> {
  if (record.status === to || isFinal(record.status)) return false;
  const final = isFinal(to);
  return d.instances.setStatus(record, record.status, to, now, final, instanceEvents.statusChanged(record, record.status, to, now, final));
}

/** The terminal statuses of an execution. */
export type ExecutionEndStatus = 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';
const ENDED: ReadonlySet<string> = new Set<ExecutionEndStatus>(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED']);

export function isEnded(status: string): status is ExecutionEndStatus {
  return ENDED.has(status);
}

/**
 * How an execution ended: a succeeded one always with its output (the session, which holds the
 * decision), a failed one with its error name when known.
 */
export type ExecutionEnd =
  | { status: 'SUCCEEDED'; output: unknown }
  | { status: 'FAILED'; error?: string | undefined }
  | { status: 'TIMED_OUT' | 'ABORTED' };

/**
 * The status a journey that reached an end has: COMPLETED_ENDED_ERROR after an error end event
 * (`_end.errorCode`) or a FAIL decision, REVIEW for a REVIEW decision, else (PASS, or no decider)
 * COMPLETED_ENDED_SUCCESS.
 */
export function outcomeStatus(session: unknown): InstanceStatus {
  const s = (session ?? {}) as { _decision?: unknown; _end?: { errorCode?: unknown } };
  // An error end event, or a decider's FAIL: the journey ended as designed, declining.
  if (s._end?.errorCode !== undefined || s._decision === 'FAIL') return 'COMPLETED_ENDED_ERROR';
  if (s._decision === 'REVIEW') return 'REVIEW';
  return 'COMPLETED_ENDED_SUCCESS';
}

/**
 * The instance's final status from its execution's end: the outcome for a succeeded execution;
 * COMPLETED_TERMINATED when a user step timed out (`States.Timeout` with no timer route), the
 * execution timed out or it was stopped; COMPLETED_PROCESS_ERROR for any other failure.
 */
export function finalStatus(end: ExecutionEnd): InstanceStatus {
  switch (end.status) {
    case 'SUCCEEDED':
      return outcomeStatus(end.output);
    case 'TIMED_OUT':
    case 'ABORTED':
      return 'COMPLETED_TERMINATED';
    case 'FAILED':
      return end.error === 'States.Timeout' ? 'COMPLETED_TERMINATED' : 'COMPLETED_PROCESS_ERROR';
  }
}

/** Records a final status on the instance (once: a repeated report changes nothing, and is counted once). */
export async function settle(d: StatusDeps, record: ProcessInstanceRecord, to: InstanceStatus, now: Date): Promise<InstanceStatus> {
  if (await changeStatus(d, record, to, now)) await countJourneyCompleted(record.tenantId, to, { forTest: record.forTest, processInstanceId: record.id });
  return to;
}

/**
 * Records the status an execution's end gives (every path that records an end: the workflow's
 * own, the status-change event, the reconciler, the local engine's shutdown). A test-mode
 * instance's forced decision gives its outcome here (sandbox.ts), and only here: a step that
 * writes a status mid-journey (Write Review Status) writes its own.
 */
export function settleEnd(d: StatusDeps, record: ProcessInstanceRecord, reached: InstanceStatus, now: Date): Promise<InstanceStatus> {
  return settle(d, record, forcedStatus(record, reached), now);
}

/** Where an execution's end is known in full (the local engine on shutdown, the reconciler). */
export async function recordExecutionEnd(
  d: StatusDeps,
  ref: { tenantId: string; processInstanceId: string },
  end: ExecutionEnd,
  now: Date,
): Promise<InstanceStatus | undefined> {
  const record = await d.instances.get(ref.tenantId, ref.processInstanceId);
  if (!record) return undefined;
  return settleEnd(d, record, finalStatus(end), now);
}

/**
 * The instance an execution's state (its input or output) belongs to: named by its reference to
 * the stored session (`_ref`), or, in executions started before the session moved to the
 * table, by the session's `instance`.
 */
export function instanceOf(session: unknown): { tenantId: string; processInstanceId: string } | undefined {
  if (isRefState(session)) return { tenantId: session._ref.tenantId, processInstanceId: session._ref.processInstanceId };
  const instance = (session as { instance?: { tenantId?: unknown; processInstanceId?: unknown } } | null | undefined)?.instance;
  return typeof instance?.tenantId === 'string' && typeof instance.processInstanceId === 'string'
    ? { tenantId: instance.tenantId, processInstanceId: instance.processInstanceId }
    : undefined;
}

/**
 * The workflow's own record of its outcome: the last state of every compiled state machine
 * (`Record outcome`) hands over the session, which holds the decision. This is the
 * authoritative write of a journey that reached an end; the status-change event and the
 * reconciler only fill in when it could not be made.
 */
export async function recordOutcome(d: StatusDeps, session: unknown, now: Date): Promise<InstanceStatus | undefined> {
  const ref = instanceOf(session);
  // A state always names its instance (its `_ref`, or an older session's `instance`); without one there is nothing to record.
  if (!ref) throw new Error('The session names no process instance');
  // For the instance's tenant only (on AWS through the function's tenant role): the tenant the
  // service wrote into the state when it started the execution, never an end user's input.
  return forRecordTenant(ref.tenantId, () => recordOutcomeOf(d, ref, session, now));
}

async function recordOutcomeOf(d: StatusDeps, ref: { tenantId: string; processInstanceId: string }, session: unknown, now: Date): Promise<InstanceStatus | undefined> {
  const record = await d.instances.get(ref.tenantId, ref.processInstanceId);
  if (!record) {
    log().warn('journey outcome for an instance that is gone', { processInstanceId: ref.processInstanceId });
    return undefined;
  }
  return settleEnd(d, record, outcomeStatus(session), now);
}

/**
 * The "Step Functions Execution Status Change" event's detail, as far as its published schema
 * (aws.states@StepFunctionsExecutionStatusChange) lists it: no `error` or `cause`, and `input`
 * and `output` may be null (Step Functions leaves them out when the event would be too large).
 */
export interface ExecutionStatusChangeDetail {
  executionArn: string;
  status: string;
  input?: string | null;
  output?: string | null;
}

function parsedOrUndefined(json: string | null | undefined): unknown {
  if (typeof json !== 'string') return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The fallback path for an execution's end: EventBridge delivers the status-change event at
 * least once but best-effort, without its input or output when they are large, and with no
 * error name. So: nothing to do when the instance already has its final status (the workflow
 * recorded its outcome); what the event lacks comes from DescribeExecution (the instance from
 * its input, the decision from its output, a timeout from its `error`). A SUCCEEDED execution
 * is never recorded without its output: without it a FAIL or REVIEW would read as SUCCESS.
 */
export async function onExecutionStatusChange(
  d: ExecutionEndDeps,
  detail: ExecutionStatusChangeDetail,
  now: Date,
): Promise<InstanceStatus | undefined> {
  if (!isEnded(detail.status)) return undefined;
  let described: Promise<ExecutionDescription | undefined> | undefined;
  const describe = () => (described ??= d.orchestrator().then((o) => o.describeExecution(detail.executionArn)));

  const ref = instanceOf(parsedOrUndefined(detail.input)) ?? instanceOf((await describe())?.input);
  if (!ref) {
    // Nothing is read or written: no tenant is named, so there is no instance to act on.
    log().warn('execution end without an instance in its input', { status: detail.status, executionArn: detail.executionArn });
    return undefined;
  }
  // For the instance's tenant only, as recordOutcome: named by the execution's input, the state
  // the service started it with (Step Functions' own account when the event leaves it out).
  return forRecordTenant(ref.tenantId, () => recordStatusChange(d, detail, ref, describe, now));
}

async function recordStatusChange(
  d: ExecutionEndDeps,
  detail: ExecutionStatusChangeDetail,
  ref: { tenantId: string; processInstanceId: string },
  describe: () => Promise<ExecutionDescription | undefined>,
  now: Date,
): Promise<InstanceStatus | undefined> {
  const record = await d.instances.get(ref.tenantId, ref.processInstanceId);
  if (!record) return undefined;
  if (isFinal(record.status)) return record.status;

  let end: ExecutionEnd;
  if (detail.status === 'SUCCEEDED') {
    const output = parsedOrUndefined(detail.output) ?? (await describe())?.output;
    // Thrown, so the event is retried and in the end dead-lettered; the reconciler also finds it.
    if (output === undefined) throw new Error(`No output for the succeeded execution ${detail.executionArn}`);
    end = { status: 'SUCCEEDED', output };
  } else if (detail.status === 'FAILED') {
    end = { status: 'FAILED', error: (await describe())?.error };
  } else {
    end = { status: detail.status as 'TIMED_OUT' | 'ABORTED' };
  }
  return settleEnd(d, record, finalStatus(end), now);
}
