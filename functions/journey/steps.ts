import { applyOutputs } from '../../statemachines/outputs.js';
import { keepSandbox } from '../process-manager/sandbox.js';
import { apiError } from '../errors.js';
import { createHash, createHmac } from 'node:crypto';
import type { CheckRecord, ImageRecord, StepClaim, StepRefusal, StepUserData } from '../process-manager/model.js';
import { ProcessInstanceNotFoundError, type ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import { isFinal } from '../process-manager/instances/status.js';
import { instanceEvents } from '../events/catalogue.js';
import { SESSION_MAX_BYTES, sessionBytes } from '../shared/session-limit.js';
import { isThrottlingError, isTransientError } from '../shared/aws-errors.js';
import { stateFor } from '../shared/session-state.js';
import { instances, sessions } from './deps.js';

export class StepNotWaitingError extends apiError('STEP_NOT_WAITING') {}

/** What the end user sent would make the session larger than its cap: refused, and the step keeps waiting. */
export class SessionTooLargeError extends apiError('SESSION_TOO_LARGE') {}

export interface UserStepPayload {
  activityId: string;
  activityType: string;
  /** The step's inputs, resolved (references replaced, defaults applied) by the activity function. */
  inputs: Record<string, unknown>;
  /** Output parameters to apply when the step completes (statemachines/outputs.ts). */
  outputs?: Record<string, string>;
  /** The stored session version the step began at and the paths the execution's state keeps (absent: the state is the whole session). */
  ref?: { v: number; keep: string[] };
  state: Record<string, unknown> & {
    instance: { tenantId: string; processInstanceId: string; processDefnId: string; processDefnName: string; processDefnVersion: number };
  };
  taskToken: string;
}

/**
 * A user step began: the journey now waits for the end user. What the page needs (the step,
 * its resolved inputs, the session so far) and the task token that resumes the execution are
 * recorded on the instance, with the step's event.
 */
export async function recordWaitingStep(payload: UserStepPayload, now: Date): Promise<void> {
  const { tenantId, processInstanceId } = payload.state.instance;
  const record = await instances.get(tenantId, processInstanceId);
  if (!record) return;
  const step = { activityId: payload.activityId, activityType: payload.activityType };
  await instances.setWaitingStep(
    record,
    {
      ...step,
      inputs: payload.inputs,
      state: payload.state,
      ...(payload.ref ? { ref: payload.ref } : {}),
      ...(payload.outputs ? { outputs: payload.outputs } : {}),
      taskToken: payload.taskToken,
      since: now.toISOString(),
    },
    instanceEvents.stepChanged(record, step, now),
  );
}

/** Sends a step's result to the execution (SendTaskSuccess on AWS, the engine locally). */
export interface TaskResumer {
  sendTaskSuccess(taskToken: string, output: object): Promise<void>;
}

/** Ends a step with an error (SendTaskFailure on AWS, the engine locally). */
export interface TaskFailer {
  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<void>;
}

/** Step Functions did not take a step's result for now (throttled, or no answer): the same submission can be sent again. */
export class ServiceUnavailableError extends apiError('SERVICE_UNAVAILABLE') {}

type WaitingStep = NonNullable<ProcessInstanceRecord['currentStep']>;

/**
 * The end user finished a step: the session as it was when the step began, with the step's
 * result merged over it, resumes the execution. The one call the hosted pages make.
 *
 * Retry-safe, in three moves: the submission is accepted (claimed: conditionally, so a step
 * takes one result), handed to Step Functions (SendTaskSuccess), and only once Step Functions
 * has taken it is the step finished (taken off the instance, what the end user gave recorded).
 * A throttle on the way (Step Functions took nothing) leaves the step waiting, unclaimed: the
 * end user gets 503, and the next submission is judged afresh. A lost answer (it may have
 * arrived) leaves it waiting, claimed: the end user gets 503, and the next submission of the
 * step (a retry, a double click, another tab) hands over the very same result again instead of
 * being judged anew. Either way the journey gets one result and is never stuck until the step
 * times out.
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
    /** Recognises this submission if it is sent again (submissionDigest). */
    digest?: string;
    /**
     * A reviewer's decision resumes its back-office step after it wrote the instance's final
     * status (process-manager/instances/review.ts): that status does not stop it.
     */
    afterFinalStatus?: boolean;
  },
  resumer: TaskResumer & TaskFailer,
  now: Date,
): Promise<void> {
  const record = input.record ?? (await instances.getLive(input.tenantId, input.processInstanceId, now));
  if (!record) throw new ProcessInstanceNotFoundError(input.processInstanceId);
  const step = waitingStep(record, input.activityId, input.afterFinalStatus);
  if (step.claim) return handOverClaimed(record, step, resumer, now, input.digest);
  const output = applyOutputs(mergeSession(step.state, input.result), step.outputs);
  const size = sessionBytes(output);
  if (size > SESSION_MAX_BYTES) {
    throw new SessionTooLargeError(
      `The step ${input.activityId} would make the journey's data ${size} bytes; it may be at most ${SESSION_MAX_BYTES} bytes (192 KiB).`,
    );
  }
  const data: StepUserData = {
    activityId: step.activityId,
    activityType: step.activityType,
    dataKey: input.dataKey ?? step.activityId,
    submittedAt: now.toISOString(),
    values: input.values ?? input.result,
    ...(input.check ? { check: input.check } : {}),
    ...(input.images ? { images: input.images } : {}),
  };
  await settle(record, step, { outcome: { complete: { result: input.result, data } }, ...(input.digest ? { digest: input.digest } : {}) }, resumer, now, input.afterFinalStatus);
}

/**
 * The end user's action ends a step with one of its error events (a data form's Retake, or Max
 * Attempts Exceeded): the task fails with the event's ASL error name, which the step's `Catch`
 * for that event routes (with `{Error, Cause}` at `$._lastError`). An event the definition does
 * not route fails the execution (COMPLETED_PROCESS_ERROR). Claimed, handed over and finished as
 * a completion is (completeUserStep), so it too happens once, and only once Step Functions took it.
 */
export async function failUserStep(
  input: { record: ProcessInstanceRecord; activityId: string; error: string; cause: string; digest?: string },
  failer: TaskResumer & TaskFailer,
  now: Date,
): Promise<void> {
  const { record } = input;
  const step = waitingStep(record, input.activityId);
  if (step.claim) return handOverClaimed(record, step, failer, now, input.digest);
  await settle(record, step, { outcome: { fail: { error: input.error, cause: input.cause } }, ...(input.digest ? { digest: input.digest } : {}) }, failer, now);
}

/**
 * A submission arrived while an earlier one of the same step is accepted but not yet taken by
 * Step Functions (its hand-over was throttled, or cut short): that earlier one is handed over,
 * whatever this one says, so the journey gets one result and the user data shows that result.
 */
export async function handOverClaimed(
  record: ProcessInstanceRecord,
  step: WaitingStep,
  resumer: TaskResumer & TaskFailer,
  now: Date,
  /** This submission's digest: if the claim was finished meanwhile by the same submission, the answer is the same. */
  digest?: string,
): Promise<void> {
  const claim = await instances.getStepClaim(record.tenantId, record.id, step.activityId);
  if (!claim || claim.taskToken !== step.taskToken) {
    // Finished meanwhile by the submission that held it.
    const fresh = digest ? await instances.getLive(record.tenantId, record.id, now) : undefined;
    if (fresh?.lastStep?.activityId === step.activityId && fresh.lastStep.digest === digest) return;
    throw new StepNotWaitingError(`The step ${step.activityId} was already completed.`);
  }
  await handOver(record, step, claim, resumer, now);
}

/**
 * A submission for a step the journey no longer waits at, which left a claim: an earlier
 * hand-over whose answer was lost (503) reached Step Functions after all, and the journey moved
 * on before the step was finished. Finishes it (what the end user gave is kept); false when the
 * activity has no claim left.
 */
export async function finishLeftOverClaim(record: ProcessInstanceRecord, activityId: string, now: Date): Promise<boolean> {
  const claim = await instances.getStepClaim(record.tenantId, record.id, activityId);
  if (!claim || record.currentStep?.taskToken === claim.taskToken) return false;
  await instances.finishStep(record.tenantId, record.id, claim, record.expiresAt, now);
  return true;
}

/** The waiting step a submission is for, or 409: already done, timed out, moved on, or ended (unless a final status is what resumes it). */
function waitingStep(record: ProcessInstanceRecord, activityId: string, afterFinalStatus = false): WaitingStep {
  const step = record.currentStep;
  if (!step || step.activityId !== activityId || (isFinal(record.status) && !afterFinalStatus)) throw new StepNotWaitingError(`The journey is not waiting at ${activityId}.`);
  return step;
}

async function settle(
  record: ProcessInstanceRecord,
  step: WaitingStep,
  claimed: Pick<StepClaim, 'outcome' | 'digest'>,
  resumer: TaskResumer & TaskFailer,
  now: Date,
  afterFinalStatus = false,
): Promise<void> {
  const claim: StepClaim = { activityId: step.activityId, taskToken: step.taskToken, at: now.toISOString(), ...claimed };
  if (await instances.claimStep(record.tenantId, record.id, claim, record.expiresAt)) return handOver(record, step, claim, resumer, now);
  // Another submission of this step was accepted first (a double click, a second tab): that one goes on.
  const fresh = await instances.getLive(record.tenantId, record.id, now);
  const current = fresh?.currentStep;
  if (fresh && current?.claim && current.taskToken === step.taskToken && (afterFinalStatus || !isFinal(fresh.status))) return handOverClaimed(fresh, current, resumer, now, claimed.digest);
  // ... and is done already: the same submission gets the same answer, another one is refused.
  if (claimed.digest && fresh?.lastStep?.activityId === step.activityId && fresh.lastStep.digest === claimed.digest) return;
  throw new StepNotWaitingError(`The step ${step.activityId} was already completed.`);
}

/**
 * Sends the claim to Step Functions and, once it took it, finishes the step.
 *
 * "The task does not exist any more" (TaskTimedOut, TaskDoesNotExist) is read as taken: Step
 * Functions answers so to a second SendTaskSuccess for a task it completed, which is what an
 * earlier hand-over cut short, a concurrent one, or the SDK's own retry of a send whose answer
 * was lost all meet. It also answers so when the step timed out in the instant between the
 * claim and the send; the step is then finished all the same (what the end user gave is kept),
 * and the journey page shows where the journey went. The other reading would lose, in the first
 * cases, the record of a result the journey did take.
 */
async function handOver(record: ProcessInstanceRecord, step: WaitingStep, claim: StepClaim, resumer: TaskResumer & TaskFailer, now: Date): Promise<void> {
  // Stored before the hand-over (Step Functions must find the version it is told of).
  const resumed = 'complete' in claim.outcome ? await resumedState(record, step, claim.outcome.complete.result) : undefined;
  // The execution wrote that version itself: it went on without the step, which is finished as a timed-out one is.
  if ('complete' in claim.outcome && resumed === undefined && step.ref) return instances.finishStep(record.tenantId, record.id, claim, record.expiresAt, now).then(() => undefined);
  try {
    if (resumed) {
      await resumer.sendTaskSuccess(claim.taskToken, resumed);
    } else if ('fail' in claim.outcome) {
      await resumer.sendTaskFailure(claim.taskToken, claim.outcome.fail.error, claim.outcome.fail.cause);
    }
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (isThrottlingError(err)) {
      // Refused for its rate, so Step Functions took nothing: the step is open again, and the next
      // submission is judged afresh (the end user may change what they send).
      await instances.releaseClaim(record.tenantId, record.id, claim);
      throw new ServiceUnavailableError(`Step Functions throttled the hand-over of ${step.activityId}; send it again.`, undefined, { cause: err });
    }
    if (isTransientError(err)) {
      // No answer: it may or may not have arrived. The claim stays, and the next submission hands over the same one.
      throw new ServiceUnavailableError(`Step Functions did not confirm the hand-over of ${step.activityId}; send it again.`, undefined, { cause: err });
    }
    if (name !== 'TaskTimedOut' && name !== 'TaskDoesNotExist') throw err;
  }
  await instances.finishStep(record.tenantId, record.id, claim, record.expiresAt, now);
}

/**
 * What resumes the execution: the session as the step began with its result merged over it.
 * Under the reference contract that session is stored as the next version first and Step
 * Functions gets only the reference and the projection the state machine keeps, so what the end
 * user entered stays out of the execution's history. The same claim always makes the same
 * version, so a hand-over sent again writes it again, harmlessly; a write that fails sends
 * nothing, and the claim stays for the next submission (503). The version is written only where
 * no activity has written it: undefined when one has, which means the execution went on without
 * the step (its timer route), as a timed-out task would say.
 */
async function resumedState(record: ProcessInstanceRecord, step: WaitingStep, result: Record<string, unknown>): Promise<object | undefined> {
  // The sandbox stays as the instance's creation wrote it (process-manager/sandbox.ts).
  const session = keepSandbox(step.state, applyOutputs(mergeSession(step.state, result), step.outputs));
  if (!step.ref) return session;
  const ref = { tenantId: record.tenantId, processInstanceId: record.id, v: step.ref.v + 1 };
  try {
    // The writer: this task (its token's digest; the token itself stays in the step's item).
    const writer = createHash('sha256').update(step.taskToken).digest('base64url');
    if (!(await sessions.put(ref.tenantId, ref.processInstanceId, ref.v, session, record.expiresAt, writer))) return undefined;
  } catch (err) {
    if (!isTransientError(err)) throw err;
    throw new ServiceUnavailableError(`The journey's data for ${step.activityId} could not be stored; send it again.`, undefined, { cause: err });
  }
  return stateFor(ref, session, step.ref.keep);
}

/**
 * Recognises the same submission sent again: an HMAC-SHA256, keyed by the journey link's
 * capability (which only the end user holds; the table keeps only its hash), of the step and of
 * what was sent: form fields in a stable order; an upload by its fields, each file by its
 * SHA-256 (not its raw body, whose multipart boundary a browser draws anew for every post).
 * Keyed so the stored digest tells nothing about the values, even short ones such as a date of birth.
 */
export async function submissionDigest(
  capability: string,
  activityId: string,
  request: { body?: Record<string, string> | undefined; upload?: { contentType: string; bytes: Buffer } | undefined },
): Promise<string> {
  const byName = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);
  const fields = Object.entries(request.body ?? {}).sort(byName);
  let upload: [string, string][] | string | null = null;
  if (request.upload) {
    try {
      const form = await new Response(request.upload.bytes, { headers: { 'content-type': request.upload.contentType } }).formData();
      const parts: [string, string][] = [];
      for (const [name, value] of form.entries()) {
        parts.push([name, typeof value === 'string' ? value : sha256(Buffer.from(await value.arrayBuffer()))]);
      }
      upload = parts.sort(byName);
    } catch {
      upload = sha256(request.upload.bytes);
    }
  }
  return createHmac('sha256', capability).update(JSON.stringify([activityId, fields, upload])).digest('base64url');
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
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

/** The most of what was entered a refusal keeps (JSON, UTF-8 bytes); past it, only the messages, and the fields come back empty. */
export const MAX_REFUSAL_VALUES_BYTES = 32 * 1024;

/**
 * Keeps a refused submission on the waiting step, for its page to show after the redirect. What
 * was entered is kept unless it is large (the step's item must stay far below DynamoDB's 400 KB).
 */
export async function noteRefusedSubmission(record: ProcessInstanceRecord, activityId: string, refusal: Omit<StepRefusal, 'at'>, now: Date): Promise<void> {
  const step = record.currentStep;
  const { values, ...rest } = refusal;
  const kept: StepRefusal = {
    ...rest,
    ...(values && Buffer.byteLength(JSON.stringify(values)) <= MAX_REFUSAL_VALUES_BYTES ? { values } : {}),
    at: now.toISOString(),
  };
  const noted = step && step.activityId === activityId ? await instances.noteRefusal(record.tenantId, record.id, step.taskToken, kept) : false;
  if (!noted) throw new StepNotWaitingError(`The journey is not waiting at ${activityId}.`);
}

/**
 * A result's value that takes the place of what the session holds there rather than merging
 * into it (a custom page's new capture, whose variables are not the last one's): `{"$replace": v}`.
 * JSON, as results are stored with their claim; no key a step keeps from an end user starts with
 * `$` (data form answer keys, custom page variable names).
 */
export const REPLACE = '$replace';
export const replacing = (value: unknown): Record<string, unknown> => ({ [REPLACE]: value });

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const replacement = (v: Record<string, unknown>) => (Object.keys(v).length === 1 && Object.hasOwn(v, REPLACE) ? { value: v[REPLACE] } : undefined);

/** Deep-merges a step's result into the session: objects merge, everything else replaces, and so does a value marked `replacing`. */
export function mergeSession(state: Record<string, unknown>, result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...state };
  for (const [k, v] of Object.entries(result)) {
    const prev = out[k];
    const replaced = isMap(v) ? replacement(v) : undefined;
    out[k] = replaced ? replaced.value : isMap(v) && isMap(prev) ? mergeSession(prev, v) : isMap(v) ? mergeSession({}, v) : v;
  }
  return out;
}
