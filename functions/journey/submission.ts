import type * as z4 from 'zod/v4/core';
import type { StepDeps, StepView, Submission } from '../activities/contract.js';
import type { ActivitySpec, InputsOf } from '../activities/spec.js';
import type { RouteDef } from '../http/route.js';
import { orchestrator } from '../process-manager/executions/orchestrator.js';
import { openJourney, waitingStepOf } from './access.js';
import { pageHandler } from './page-handler.js';
import { withTestModeBanner } from './layout.js';
import { pickLanguage } from './messages/index.js';
import { journeyUrl, screenOf } from './screen-context.js';
import { completeUserStep, failUserStep, finishLeftOverClaim, handOverClaimed, noteRefusedSubmission, StepNotWaitingError, submissionDigest } from './steps.js';

/** A user step's module as a submission route takes it (from the generated activity index). */
export interface SubmittableStep<D extends keyof StepDeps = never> {
  spec: ActivitySpec;
  screens: { component: string };
  submission: Submission<ActivitySpec, D>;
}

type StepPath = z4.$ZodType<{ processInstanceId: string; activityId: string }>;
type StepQuery = z4.$ZodType<{ c: string; lang?: string | undefined }>;

/**
 * The one completion path of user steps, for every submission route of the journey pages: the
 * link's capability and the waiting step are checked (it must be one of `steps`), the step's
 * module judges what the end user sent, and either it is refused (kept on the step, and 303 to
 * the journey page, which shows what to fix and what was entered), or its page comes back (400)
 * saying what to fix, or the step completes (its result resumes the journey, what the end user gave is kept
 * for the user data API), or it raises one of its error events (whose route the journey then
 * takes); either way the end user goes on to the journey page.
 *
 * Sent again, a submission gets the same answer: once its step is done, the same request
 * (recognised by its digest) goes on to the journey page as the first did; while an accepted
 * submission of the step is still being handed to Step Functions (its first hand-over was
 * throttled or cut short), any submission of the step hands over that one, without the module
 * judging (or storing) anything again.
 */
export function stepSubmissionHandler<B extends z4.$ZodType | undefined, D extends keyof StepDeps = never>(
  route: RouteDef<StepPath, StepQuery, B>,
  steps: Readonly<Record<string, SubmittableStep<D>>>,
  deps: Pick<StepDeps, D>,
) {
  return pageHandler(route, async ({ tenantId, path, query, headers, body, upload, now }) => {
    const lang = pickLanguage(query.lang, headers['accept-language']);
    const record = await openJourney(tenantId, path.processInstanceId, query.c, now);
    const form = body as Record<string, string> | undefined;
    const request = { ...(form ? { body: form } : {}), ...(upload ? { upload } : {}) };
    const digest = await submissionDigest(query.c, path.activityId, request);
    const onward = { status: 303, headers: { location: journeyUrl(record, query.c, lang) } };
    const step = waitingStepOf(record, path.activityId, Object.keys(steps));
    if (!step) {
      if (record.lastStep?.activityId === path.activityId && record.lastStep.digest === digest) return onward;
      if (await finishLeftOverClaim(record, path.activityId, now)) return onward;
      throw new StepNotWaitingError(`The journey is not waiting at ${path.activityId}.`);
    }
    if (step.claim) {
      await handOverClaimed(record, step, await orchestrator(), now, digest);
      return onward;
    }
    const module = steps[step.activityType]!;
    const view: StepView<ActivitySpec, D> = {
      ...screenOf(record, step, query.c, lang, module.screens.component),
      // Resolved by the activity function when the step began (references, defaults, types).
      inputs: step.inputs as InputsOf<ActivitySpec>,
      deps,
    };
    const outcome = await module.submission.submit(view, request, now);
    if ('page' in outcome) return { status: 400, raw: { contentType: 'text/html; charset=utf-8', body: record.forTest ? withTestModeBanner(outcome.page, lang) : outcome.page } };
    if ('refused' in outcome) {
      // Post, redirect, get: the step's page shows the refusal, and going back never posts again.
      await noteRefusedSubmission(record, step.activityId, outcome.refused, now);
      return { status: 303, headers: { location: journeyUrl(record, query.c, lang) } };
    }
    if ('fail' in outcome) {
      await failUserStep({ record, activityId: step.activityId, ...outcome.fail, digest }, await orchestrator(), now);
      return onward;
    }
    await completeUserStep(
      { tenantId, processInstanceId: record.id, activityId: step.activityId, ...outcome.complete, record, digest },
      await orchestrator(),
      now,
    );
    return onward;
  });
}
