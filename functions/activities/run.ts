import { activitySpec } from '../../statemachines/catalogue.js';
import { applyOutputs } from '../../statemachines/outputs.js';
import { recordWaitingStep } from '../journey/steps.js';
import { countActivityError } from '../observability/metrics.js';
import { asActivityError, type Session } from './contract.js';
import { BEGINS, NOT_RUNNABLE, RUNS } from './index.generated.js';
import { resolveInputs } from './inputs.js';
import { SESSION_MAX_BYTES, sessionBytes } from '../shared/session-limit.js';

/** An activity the state machine called that this deployment cannot run: the step fails under this name. */
export class ActivityUnavailableError extends Error {
  override readonly name = 'ActivityUnavailable';
}

/**
 * A service activity returned a session over the cap (functions/shared/session-limit.ts): the
 * step fails under this name, which ends the instance as COMPLETED_PROCESS_ERROR, rather than
 * Step Functions failing a later state with States.DataLimitExceeded.
 */
export class OversizeSessionError extends Error {
  override readonly name = 'SessionTooLarge';
}

/** What the compiled state machine hands the activity function (see statemachines/compile.ts). */
interface Payload {
  activityId: string;
  activityType: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, string>;
  state: Session;
  taskToken?: string;
}

/**
 * The activity function: every Task state of every journey invokes it (Lambda on AWS, in
 * process locally), and it runs the activity's module. The inputs are resolved once, here
 * (references, defaults, required inputs, types; see inputs.ts), before any module sees them.
 *
 * User steps record where the journey waits (after their module's `begin`, if any) and return; the execution resumes when the end
 * user's submission sends the task token back. Service activities return the whole new session
 * state; a domain error fails the step under its stable name, which an error boundary event can
 * route. An activity whose module is marked not runnable fails the step with ActivityUnavailable,
 * which ends the instance as COMPLETED_PROCESS_ERROR.
 */
export async function runActivity(raw: Record<string, unknown>, now: Date): Promise<unknown> {
  const payload = raw as unknown as Payload;
  try {
    return await runModule(payload, now);
  } catch (err) {
    // What operators watch: failed steps by activity type (the step's error routes it or ends the journey).
    await countActivityError(String(payload.state?.instance?.tenantId ?? ''), String(payload.activityType));
    throw err;
  }
}

async function runModule(payload: Payload, now: Date): Promise<unknown> {
  const type = String(payload.activityType);
  const spec = activitySpec(type);
  if (!spec) throw new ActivityUnavailableError(`There is no ${type} activity.`);
  const unavailable = (NOT_RUNNABLE as Record<string, string>)[type];
  if (unavailable) throw new ActivityUnavailableError(`This deployment has no runtime for the ${spec.displayName} activity: ${unavailable}.`);
  const session = payload.state;
  const inputs = resolveInputs(spec, payload.inputs ?? {}, session) as Record<string, unknown>;

  const context = {
    activityId: payload.activityId,
    inputs,
    session,
    tenantId: session.instance.tenantId,
    actor: `journey:${session.instance.processInstanceId}`,
    now,
  };
  if (spec.kind === 'user') {
    // A step that prepares what its page shows (a data form read by name and version) does it here, once.
    const begin = (BEGINS as Record<string, ((ctx: never) => Promise<Record<string, unknown>>) | undefined>)[type];
    try {
      const recorded = begin ? await begin(context as never) : inputs;
      await recordWaitingStep(
        {
          activityId: payload.activityId,
          activityType: type,
          inputs: recorded,
          ...(payload.outputs ? { outputs: payload.outputs } : {}),
          state: session as Parameters<typeof recordWaitingStep>[0]['state'],
          taskToken: String(payload.taskToken),
        },
        now,
      );
    } catch (err) {
      // A throttled write of the waiting step is retried by the state machine like any transient error.
      throw asActivityError(err);
    }
    return {};
  }
  const run = (RUNS as Record<string, ((ctx: never) => Promise<Session>) | undefined>)[type];
  if (!run) throw new ActivityUnavailableError(`This deployment has no runtime for the ${spec.displayName} activity.`);
  let after: Session;
  try {
    after = await run(context as never);
  } catch (err) {
    throw asActivityError(err);
  }
  const next = applyOutputs(after as Session & Record<string, unknown>, payload.outputs);
  const size = sessionBytes(next);
  if (size > SESSION_MAX_BYTES) {
    throw new OversizeSessionError(`${payload.activityId} would make the session ${size} bytes; a journey's session may be at most ${SESSION_MAX_BYTES}.`);
  }
  return next;
}
