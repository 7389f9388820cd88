import { activitySpec } from '../../statemachines/catalogue.js';
import { recordWaitingStep, type UserStepPayload } from '../journey/steps.js';
import { IDENTITY_ACTIVITIES, runServiceActivity, type ServicePayload } from './identity-store.js';

/** An activity the state machine called that this deployment cannot run: the step fails under this name. */
export class ActivityUnavailableError extends Error {
  override readonly name = 'ActivityUnavailable';
}

/**
 * The activity function: every Task state of every journey invokes it (Lambda on AWS, in
 * process locally). User steps record where the journey waits and return; the execution
 * resumes when the end user's submission sends the task token back.
 *
 * Service activities return the whole new session state. Those of the identity store (users,
 * passcodes) run here; the others (push, external faces, cloud functions, archiving) have no
 * runtime yet, and a journey that reaches one fails that step with ActivityUnavailable, which
 * ends the instance as COMPLETED_PROCESS_ERROR.
 */
export async function runActivity(payload: Record<string, unknown>, now: Date): Promise<unknown> {
  const type = String(payload.activityType);
  const spec = activitySpec(type);
  if (spec?.kind === 'user') {
    await recordWaitingStep(payload as unknown as UserStepPayload, now);
    return {};
  }
  const service = IDENTITY_ACTIVITIES[type];
  if (service) return runServiceActivity(service, payload as unknown as ServicePayload, now);
  throw new ActivityUnavailableError(`This deployment has no runtime for the ${type} activity yet.`);
}
