import { createHash, randomBytes } from 'node:crypto';
import { apiError, type ApiError } from '../errors.js';
import { refusalOf } from './refusal-chrome.js';
import { instanceEvents } from '../events/catalogue.js';
import type { InstancePauseStore, ProcessInstanceStore } from '../process-manager/model.js';
import { hashCapability, ProcessInstanceNotFoundError, type ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import { isResumeSecret, resumeCapability } from '../process-manager/instances/pause.js';
import { isFinal } from '../process-manager/instances/status.js';
import type { WaitingStep } from './screen-context.js';

/** The resume URL: an unknown instance, a wrong secret (or an earlier pause's) and an expired instance, one answer. */
export class ResumeNotAvailableError extends apiError('RESUME_NOT_AVAILABLE') {}
/** The journey has not reached its Waiting for Resume step yet: nothing changed, send it again (Retry-After). */
export class ResumeNotReadyError extends apiError('RESUME_NOT_READY') {}
/** The resume API: no Pause Instance step paused the instance. */
export class InstanceNotPausedError extends apiError('INSTANCE_NOT_PAUSED') {}
/** The pause was resumed already: it resumes once. */
export class ResumeAlreadyUsedError extends apiError('RESUME_ALREADY_USED') {}
/** The journey ended, or its wait for the resume is over (a timer took it on). */
export class ResumeExpiredError extends apiError('RESUME_EXPIRED') {}

/** Who resumes: whoever holds the resume URL's secret, or a caller of the resume API. */
export type ResumeBy = { secret: string } | { actor: string };

/** How the pause records who resumed it: `link`, or the API's caller. */
export function resumerOf(by: ResumeBy): string {
  return 'secret' in by ? 'link' : by.actor;
}

/** The running status a resumed journey goes back to. */
export const RESUMED_STATUS = 'ACTIVE';

export interface ResumeDeps {
  instances: Pick<ProcessInstanceStore, 'getLive'>;
  pauses: Pick<InstancePauseStore, 'resume' | 'redrive'>;
  /** The activity types a resume completes (the generated RESUME_STEPS: Waiting for Resume). */
  resumeTypes: readonly string[];
  /**
   * Completes the waiting step (its module's submission, then completeUserStep: claimed, handed to
   * Step Functions, finished), with the capability the resumed end user gets.
   */
  complete(record: ProcessInstanceRecord, step: WaitingStep, resumedBy: string, capability: string, now: Date): Promise<void>;
  /** How long a resume waits for the journey to reach its Waiting for Resume step, and how often it looks. */
  waitMs: number;
  pollMs: number;
}

/** How a resume reads the instance it finds: go on, do again what a cut-short resume began, wait, or refuse. */
export type ResumeVerdict =
  | { resume: WaitingStep }
  | { redrive: WaitingStep }
  | { wait: 'notReached' | 'maybeOver' }
  | { refuse: ApiError };

/** A task token's digest: which step a pause's resume completes, without keeping the token there. */
export function taskDigest(taskToken: string): string {
  return createHash('sha256').update(taskToken).digest('base64url');
}

/**
 * Judges a resume against the instance as read (pure). Refused, in this order: an unknown
 * instance or a wrong secret (404, telling nothing more); a pause resumed already (410), unless
 * by the same resumer (the link, or the same API caller) while the step it resumed still waits
 * (its hand-over was cut short: that resume is done again); an
 * ended journey (410); no pause (409, the API). Otherwise the resume goes on when the journey
 * waits at the Waiting for Resume step whose wait began for this pause; it waits while the steps
 * between the pause and the wait still run, and is refused once a later step waits instead (410:
 * the wait is over).
 */
export function judgeResume(
  processInstanceId: string,
  record: ProcessInstanceRecord | undefined,
  by: ResumeBy,
  resumeTypes: readonly string[],
): ResumeVerdict {
  const byLink = 'secret' in by;
  if (!record) return { refuse: byLink ? new ResumeNotAvailableError() : new ProcessInstanceNotFoundError(processInstanceId) };
  if (byLink && !isResumeSecret(record.pause, by.secret)) return { refuse: new ResumeNotAvailableError() };
  const pause = record.pause;
  const ended = isFinal(record.status);
  const current = ended ? undefined : record.currentStep;
  const waiting = pause?.waitingAt;
  // The Waiting for Resume step this pause's wait began (not one left from an earlier pass).
  const step =
    current && waiting && resumeTypes.includes(current.activityType) && current.activityId === waiting.activityId && current.since === waiting.since
      ? current
      : undefined;
  if (pause?.resumedAt) {
    // The same resumer again, while the step it resumed still waits: its hand-over was cut short (or is under way).
    if (step && pause.resumedBy === resumerOf(by) && pause.resumedTask === taskDigest(step.taskToken)) return { redrive: step };
    return { refuse: new ResumeAlreadyUsedError() };
  }
  if (ended) return { refuse: new ResumeExpiredError('The journey has ended.') };
  if (!pause) return { refuse: new InstanceNotPausedError() };
  if (step) return { resume: step };
  // Its wait began, and a later step waits now: the timer took the journey on (at least 10 s later, so no clock can mistake it).
  if (waiting && current && current.since > waiting.since) return { refuse: new ResumeExpiredError('The journey no longer waits for this resume.') };
  return { wait: pause.waitingAt !== undefined ? 'maybeOver' : 'notReached' };
}

/**
 * Resumes a paused journey, once: the pause is marked resumed in one conditional write with the
 * status back to ACTIVE (its event and views) and a capability for the end user who goes on
 * (a journey link of its own: the one who opens the resume URL may be on another device than
 * the journey link was sent to; the first link keeps working); then the Waiting for Resume step
 * completes, and the journey goes on. Racing resumes: one wins the write, the others read it
 * back and are refused (410).
 *
 * A resume that arrives while the journey is still on its way from the pause to the wait (the
 * steps between run) waits for it up to `waitMs`, then is told to come again (409, nothing
 * changed). A resume whose hand-over to Step Functions was cut short (503) can be sent again by
 * the same resumer and completes the same step; by the link it leads to the same journey link,
 * by the API to a new one (the earlier answer's stops working).
 */
export async function resumeJourney(
  d: ResumeDeps,
  ref: { tenantId: string; processInstanceId: string },
  by: ResumeBy,
  now: Date,
): Promise<{ record: ProcessInstanceRecord; capability: string }> {
  const deadline = Date.now() + d.waitMs;
  const resumedBy = resumerOf(by);
  for (let writes = 0; ; ) {
    const record = await d.instances.getLive(ref.tenantId, ref.processInstanceId, now);
    const verdict = judgeResume(ref.processInstanceId, record, by, d.resumeTypes);
    // A link that proved itself (its secret matched), refused: its page shows the relying party.
    if ('refuse' in verdict) throw verdict.refuse instanceof ResumeNotAvailableError ? verdict.refuse : refusalOf(verdict.refuse, record);
    if ('wait' in verdict) {
      if (Date.now() >= deadline) throw refusalOf(verdict.wait === 'maybeOver' ? new ResumeExpiredError('The journey no longer waits for this resume.') : new ResumeNotReadyError(), record);
      await new Promise((r) => setTimeout(r, d.pollMs));
      continue;
    }
    // A resume that loses its write reads the instance again (another resume won, or the status moved).
    if (++writes > 3) throw refusalOf(new ResumeAlreadyUsedError(), record);
    const found = record!;
    const pause = found.pause!;
    // By the link: the same capability each time the same link is sent; by the API: a new one, which replaces the last.
    const capability = 'secret' in by ? resumeCapability(by.secret, found.id) : randomBytes(32).toString('base64url');
    const step = 'resume' in verdict ? verdict.resume : verdict.redrive;
    const written =
      'resume' in verdict
        ? await d.pauses.resume(
            found,
            { secretHash: pause.secretHash, resumedAt: now.toISOString(), resumedBy, resumedTask: taskDigest(step.taskToken) },
            RESUMED_STATUS,
            hashCapability(capability),
            now,
            found.status === RESUMED_STATUS ? [] : instanceEvents.statusChanged(found, found.status, RESUMED_STATUS, now, false),
          )
        : await d.pauses.redrive(found.tenantId, found.id, taskDigest(step.taskToken), hashCapability(capability));
    if (!written) continue;
    await d.complete(found, step, resumedBy, capability, now);
    const changed = found.status === RESUMED_STATUS ? {} : { lastUpdatedAt: now.toISOString() };
    return { record: { ...found, ...changed, status: RESUMED_STATUS }, capability };
  }
}
