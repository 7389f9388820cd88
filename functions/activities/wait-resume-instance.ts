import { renderPaused } from '../journey/screens/paused.js';
import { own } from '../shared/own.js';
import type { Screens, StepBegin, Submission } from './contract.js';
import { spec } from './specs/wait-resume-instance.js';

/**
 * The pause, if there is one not yet resumed, records that its resume is now due here: a resume
 * that finds this step no longer waiting afterwards (its timer took the journey on) is then
 * refused as expired, not told to try again. Its write (UpdateItem on the instance) is among what
 * every user step may do, so the module declares no access of its own.
 */
export const begin: StepBegin<typeof spec> = async ({ inputs, tenantId, session, activityId, now, deps }) => {
  // `since` is the waiting step's own (the activity function records the step with this `now`).
  await deps.pauses.markWaiting(tenantId, session.instance.processInstanceId, { activityId, since: now.toISOString() });
  return inputs;
};

export const screens: Screens<typeof spec> = {
  component: 'paused',
  render: { paused: (view) => renderPaused(view.lang, view.chrome) },
  // Nothing to do on this page: a redirect recorded before it (the family's Redirect User V2) is followed.
  waits: true,
};

/**
 * Completed by the resume alone (functions/journey/resume.ts), never by a page post: the
 * journey goes on with its session as it was; the user data shows who resumed it and when.
 */
export const submission: Submission<typeof spec> = {
  part: 'resume',
  async submit(view, { body = {} }, now) {
    const values = { resumedBy: own(body, 'resumedBy') ?? 'link', resumedAt: now.toISOString() };
    return { complete: { result: {}, values, dataKey: view.step.activityId } };
  },
};
