import { applyOutputs } from '../../statemachines/outputs.js';
import { apiError } from '../errors.js';
import type { CheckRecord, ImageRecord } from '../process-manager/model.js';
import { ProcessInstanceNotFoundError, type ProcessInstanceRecord } from '../process-manager/instances.js';
import { isFinal } from '../process-manager/status.js';
import { eventPublisher } from '../events/publisher.js';
import { instances } from './deps.js';

export class StepNotWaitingError extends apiError('STEP_NOT_WAITING') {}

export interface UserStepPayload {
  activityId: string;
  activityType: string;
  /** The step's inputs, resolved (references replaced, defaults applied) by the activity function. */
  inputs: Record<string, unknown>;
  /** Output parameters to apply when the step completes (statemachines/outputs.ts). */
  outputs?: Record<string, string>;
  state: Record<string, unknown> & {
    instance: { tenantId: string; processInstanceId: string; processDefnId: string; processDefnName: string; processDefnVersion: number };
  };
  taskToken: string;
}

/**
 * A user step began: the journey now waits for the end user. What the page needs (the step,
 * its resolved inputs, the session so far) and the task token that resumes the execution are
 * recorded on the instance.
 */
export async function recordWaitingStep(payload: UserStepPayload, now: Date): Promise<void> {
  const { tenantId, processInstanceId, processDefnId, processDefnName, processDefnVersion } = payload.state.instance;
  const recorded = await instances.setWaitingStep(tenantId, processInstanceId, {
    activityId: payload.activityId,
    activityType: payload.activityType,
    inputs: payload.inputs,
    state: payload.state,
    ...(payload.outputs ? { outputs: payload.outputs } : {}),
    taskToken: payload.taskToken,
    since: now.toISOString(),
  });
  if (!recorded) return;
  await (await eventPublisher()).publish({
    type: 'ProcessInstanceStepChanged',
    tenantId,
    processInstanceId,
    processDefnId,
    processDefnName,
    processDefnVersion,
    activityId: payload.activityId,
    activityType: payload.activityType,
    at: now.toISOString(),
  });
}

/** Sends a step's result to the execution (SendTaskSuccess on AWS, the engine locally). */
export interface TaskResumer {
  sendTaskSuccess(taskToken: string, output: object): Promise<void>;
}

/** Ends a step with an error (SendTaskFailure on AWS, the engine locally). */
export interface TaskFailer {
  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<void>;
}

/**
 * The end user finished a step: the session as it was when the step began, with the step's
 * result merged over it, resumes the execution. The one call the hosted pages make; the
 * waiting step is taken off first (conditionally), so a step completes at most once.
 */
export async function completeUserStep(
  input: {
    tenantId: string;
    processInstanceId: string;
    activityId: string;
    result: Record<string, unknown>;
    /** What the end user gave, as the user data API shows it (defaults to the result), and under which key. */
    values?: Record<string, unknown>;
    dataKey?: string;
    check?: CheckRecord;
    images?: ImageRecord[];
    /** The instance, when the caller has just read it (the journey pages do): no second read. */
    record?: ProcessInstanceRecord;
  },
  resumer: TaskResumer,
  now: Date,
): Promise<void> {
  const record = input.record ?? (await instances.getLive(input.tenantId, input.processInstanceId, now));
  if (!record) throw new ProcessInstanceNotFoundError(input.processInstanceId);
  const step = record.currentStep;
  if (!step || step.activityId !== input.activityId || isFinal(record.status)) {
    throw new StepNotWaitingError(`The journey is not waiting at ${input.activityId}.`);
  }
  const data = {
    activityId: step.activityId,
    activityType: step.activityType,
    dataKey: input.dataKey ?? step.activityId,
    submittedAt: now.toISOString(),
    values: input.values ?? input.result,
    ...(input.check ? { check: input.check } : {}),
    ...(input.images ? { images: input.images } : {}),
  };
  if (!(await instances.completeStep(input.tenantId, input.processInstanceId, step.taskToken, data, record.expiresAt, now))) {
    throw new StepNotWaitingError(`The step ${input.activityId} was already completed.`);
  }
  try {
    await resumer.sendTaskSuccess(step.taskToken, applyOutputs(mergeSession(step.state, input.result), step.outputs));
  } catch (err) {
    // The step timed out (or its execution ended) between the read and the resume.
    if (err instanceof Error && ['TaskTimedOut', 'TaskDoesNotExist'].includes(err.name)) {
      throw new StepNotWaitingError(`The step ${input.activityId} is no longer waiting: it timed out.`);
    }
    throw err;
  }
}

/**
 * The end user's action ends a step with one of its error events (a data form's Retake, or Max
 * Attempts Exceeded): the waiting step is taken off first (conditionally, so it ends at most
 * once), then the task fails with the event's ASL error name, which the step's `Catch` for that
 * event routes (with `{Error, Cause}` at `$._lastError`). An event the definition does not route
 * fails the execution (COMPLETED_PROCESS_ERROR).
 */
export async function failUserStep(
  input: { record: ProcessInstanceRecord; activityId: string; error: string; cause: string },
  failer: TaskFailer,
  now: Date,
): Promise<void> {
  const { record } = input;
  const step = record.currentStep;
  if (!step || step.activityId !== input.activityId || isFinal(record.status)) {
    throw new StepNotWaitingError(`The journey is not waiting at ${input.activityId}.`);
  }
  if (!(await instances.releaseStep(record.tenantId, record.id, step.taskToken, now))) {
    throw new StepNotWaitingError(`The step ${input.activityId} was already completed.`);
  }
  try {
    await failer.sendTaskFailure(step.taskToken, input.error, input.cause);
  } catch (err) {
    if (err instanceof Error && ['TaskTimedOut', 'TaskDoesNotExist'].includes(err.name)) {
      throw new StepNotWaitingError(`The step ${input.activityId} is no longer waiting: it timed out.`);
    }
    throw err;
  }
}

/**
 * Counts one refused submission of the waiting step (atomically, on the instance): the number
 * refused so far, this one included.
 */
export async function countRefusedSubmission(record: ProcessInstanceRecord, activityId: string): Promise<number> {
  const step = record.currentStep;
  const counted = step && step.activityId === activityId ? await instances.countRefusal(record.tenantId, record.id, step.taskToken) : undefined;
  if (counted === undefined) throw new StepNotWaitingError(`The journey is not waiting at ${activityId}.`);
  return counted;
}

/** Deep-merges a step's result into the session: objects merge, everything else replaces. */
export function mergeSession(state: Record<string, unknown>, result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...state };
  for (const [k, v] of Object.entries(result)) {
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? mergeSession(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}
