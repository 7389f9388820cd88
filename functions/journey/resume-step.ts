import type { InputsOf, ActivitySpec } from '../activities/spec.js';
import { RESUME_STEPS } from '../activities/index.generated.js';
import { orchestrator } from '../process-manager/executions/orchestrator.js';
import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import { own } from '../shared/own.js';
import { instances, pauses } from './deps.js';
import { ResumeExpiredError, type ResumeDeps } from './resume.js';
import { screenOf, type WaitingStep } from './screen-context.js';
import { completeUserStep, StepNotWaitingError } from './steps.js';

/** How long a resume waits for the journey to reach its Waiting for Resume step (the steps after the pause run meanwhile). */
export const RESUME_WAIT_MS = 3_000;

/**
 * The resume's completion of the Waiting for Resume step: its module's submission says what the
 * step gives (who resumed, when), and completeUserStep hands it to Step Functions, as a page's
 * submission would, through the one completion path of user steps.
 */
async function completeResumeStep(record: ProcessInstanceRecord, step: WaitingStep, resumedBy: string, capability: string, now: Date): Promise<void> {
  const module = own(RESUME_STEPS as Record<string, (typeof RESUME_STEPS)[keyof typeof RESUME_STEPS]>, step.activityType);
  if (!module) throw new StepNotWaitingError(`The journey is not waiting for a resume at ${step.activityId}.`);
  const view = { ...screenOf(record, step, capability, 'en', module.screens.component), inputs: step.inputs as InputsOf<ActivitySpec>, deps: {} };
  const outcome = await module.submission.submit(view as Parameters<typeof module.submission.submit>[0], { body: { resumedBy } }, now);
  if (!('complete' in outcome)) throw new Error(`${step.activityType} did not complete on its resume`);
  try {
    await completeUserStep({ tenantId: record.tenantId, processInstanceId: record.id, activityId: step.activityId, ...outcome.complete, record }, await orchestrator(), now);
  } catch (err) {
    // Its timer took the journey on in the moment between the resume's write and its hand-over.
    if (err instanceof StepNotWaitingError) throw new ResumeExpiredError('The journey no longer waits for this resume.', undefined, { cause: err });
    throw err;
  }
}

/** The resume as the resume URL and the resume API run it: the journey's stores, Step Functions, the resume steps. */
export const resumeDeps: ResumeDeps = {
  instances,
  pauses,
  resumeTypes: Object.keys(RESUME_STEPS),
  complete: completeResumeStep,
  waitMs: RESUME_WAIT_MS,
  pollMs: 250,
};
