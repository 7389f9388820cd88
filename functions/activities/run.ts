import { activitySpec } from '../../statemachines/catalogue.js';
import { applyOutputs } from '../../statemachines/outputs.js';
import { recordWaitingStep } from '../journey/steps.js';
import { countActivityError } from '../observability/metrics.js';
import { asActivityError, type ActivityDeps, type Session } from './contract.js';
import { own } from '../shared/own.js';
import { inTenantScope } from '../shared/tenant-scope.js';
import { NOT_RUNNABLE } from './specs/index.generated.js';
import { resolveInputs } from './inputs.js';
import { SESSION_MAX_BYTES, sessionBytes } from '../shared/session-limit.js';
import { isRefState, overlay, stateFor, type SessionRef } from '../shared/session-state.js';
import { sessions } from '../journey/deps.js';
import { CONTRACT_ERRORS, SERVED_CONTRACTS, type ContractWindow } from '../shared/activity-contract.js';
import { ContractError, readPayload, type Payload } from './payload.js';
import { keepSandbox, sessionSandbox } from '../process-manager/sandbox.js';

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

/**
 * The session version the state refers to is not in the table: the instance is past its
 * retention (or its data was deleted). The step fails under this name (COMPLETED_PROCESS_ERROR).
 */
export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFound';
}

/**
 * The most steps one journey runs: each step stores the next version of the journey's data, so
 * its version counts the steps run. A loop of service steps the designer drew without a way out
 * (the family's retry loops are accepted at publish) ends here, as a process error, long before
 * Step Functions' 25,000 history events.
 */
export const MAX_JOURNEY_STEPS = 2_000;

export class JourneyStepLimitError extends Error {
  override readonly name = 'JourneyStepLimit';
}

/** The session the step works on, and where it came from (undefined: the state is the whole session). */
interface Loaded {
  session: Session;
  stored?: { ref: SessionRef; expiresAt: number; keep: string[] };
}

/**
 * What the entry point that runs activities gives the activity function: the run functions of
 * service steps and the begin functions of user steps, by activity type (the generated
 * index's RUNS and BEGINS, in functions/activities/lambda.ts), and the stores and engines they
 * get through their context.
 */
export interface ActivityRegistry {
  /** Any module's `ServiceRun<typeof spec>`: its context's type is its own spec's, so the list takes each as it is. */
  readonly runs: Readonly<Partial<Record<string, (ctx: never) => Promise<Session>>>>;
  readonly begins: Readonly<Partial<Record<string, (ctx: never) => Promise<Record<string, unknown>>>>>;
  readonly deps: ActivityDeps;
  /** The activity contracts it serves (functions/shared/activity-contract.ts): this build's unless a test says otherwise. */
  readonly contracts?: ContractWindow;
}

/**
 * The activity function: every Task state of every journey invokes it (Lambda on AWS, in
 * process locally), and it runs the activity's module. The inputs are resolved once, here
 * (references, defaults, required inputs, types; see inputs.ts), before any module sees them.
 *
 * The session is the table's (statemachines/compile.ts): the version the state refers to, with
 * what the state machine wrote since laid over it (functions/shared/session-state.ts).
 *
 * User steps record where the journey waits (after their module's `begin`, if any) and return; the execution resumes when the end
 * user's submission sends the task token back. Service activities write the new session as the
 * next version and return its reference with the projection the state machine keeps (`keep`);
 * a domain error fails the step under its stable name, which an error boundary event can
 * route. An activity whose module is marked not runnable fails the step with ActivityUnavailable,
 * which ends the instance as COMPLETED_PROCESS_ERROR.
 */
export function activityFunction(registry: ActivityRegistry): (raw: Record<string, unknown>, now: Date) => Promise<unknown> {
  return (raw, now) => runActivity(registry, raw, now);
}

/** The tenant of the step's journey, from the state the state machine hands over (a reference, or the whole session). */
function tenantOf(raw: Record<string, unknown>): string | undefined {
  const state = raw?.state as Record<string, unknown> | null | undefined;
  const tenantId = isRefState(state) ? state._ref.tenantId : (state?.instance as Session['instance'] | undefined)?.tenantId;
  return typeof tenantId === 'string' && tenantId ? tenantId : undefined;
}

/**
 * Each step acts for its journey's tenant (functions/shared/tenant-scope.ts): on AWS its storage
 * calls go through the activity function's tenant role for that tenant, so a module that built
 * another tenant's key is refused by IAM. A payload with no tenant names none, and any storage
 * call it makes is refused.
 */
function runActivity(registry: ActivityRegistry, raw: Record<string, unknown>, now: Date): Promise<unknown> {
  return inTenantScope(() => runScoped(registry, raw, now), tenantOf(raw));
}

async function runScoped(registry: ActivityRegistry, raw: Record<string, unknown>, now: Date): Promise<unknown> {
  const seen: Seen = {};
  try {
    // Read by the contract its state machine speaks: one this build does not serve fails the step, named.
    return await runModule(registry, readPayload(raw, registry.contracts ?? SERVED_CONTRACTS), now, seen);
  } catch (err) {
    // What operators watch: failed steps by activity type (the step's error routes it or ends the journey); a test-mode journey's are not counted.
    await countActivityError(tenantOf(raw) ?? '', String(raw?.activityType), seen);
    throw err;
  }
}

/** What the step learnt of its journey before it failed: whether it is in test mode (counted in no metric). */
interface Seen {
  forTest?: boolean;
}

async function runModule(registry: ActivityRegistry, payload: Payload, now: Date, seen: Seen = {}): Promise<unknown> {
  const type = payload.activityType;
  const spec = activitySpec(type);
  if (!spec) throw new ActivityUnavailableError(`There is no ${type} activity.`);
  const unavailable = (NOT_RUNNABLE as Record<string, string>)[type];
  if (unavailable) throw new ActivityUnavailableError(`This deployment has no runtime for the ${spec.displayName} activity: ${unavailable}.`);
  const { session, stored } = await load(payload, now);
  seen.forTest = sessionSandbox(session) !== undefined;
  const inputs = resolveInputs(spec, payload.inputs, session) as Record<string, unknown>;
  const outputs = payload.outputs;

  const context = {
    activityId: payload.activityId,
    inputs,
    session,
    tenantId: session.instance.tenantId,
    actor: `journey:${session.instance.processInstanceId}`,
    now,
    ...(payload.timeoutSeconds !== undefined ? { timeoutSeconds: payload.timeoutSeconds } : {}),
    ...(stored ? { expiresAt: stored.expiresAt } : {}),
    deps: registry.deps,
  };
  if (spec.kind === 'user') {
    // A waitForTaskToken Task always sends one; without it the journey could never be resumed.
    if (!payload.taskToken) throw new ContractError(CONTRACT_ERRORS.BAD_PAYLOAD, `The activity payload is not what its contract says: the user step ${payload.activityId} has no task token.`);
    // A step that prepares what its page shows (a data form read by name and version) does it here, once.
    const begin = own(registry.begins, type);
    try {
      const recorded = begin ? await begin(context as never) : inputs;
      await recordWaitingStep(
        {
          activityId: payload.activityId,
          activityType: type,
          inputs: recorded,
          ...(outputs ? { outputs } : {}),
          state: session as Parameters<typeof recordWaitingStep>[0]['state'],
          ...(stored ? { ref: { v: stored.ref.v, keep: stored.keep } } : {}),
          taskToken: payload.taskToken,
        },
        now,
      );
    } catch (err) {
      // A throttled write of the waiting step is retried by the state machine like any transient error.
      throw asActivityError(err);
    }
    return {};
  }
  const run = own(registry.runs, type);
  if (!run) throw new ActivityUnavailableError(`This deployment has no runtime for the ${spec.displayName} activity.`);
  let after: Session;
  try {
    after = await run(context as never);
  } catch (err) {
    throw asActivityError(err);
  }
  const next = keepSandbox(session, applyOutputs(after as Session & Record<string, unknown>, outputs));
  const size = sessionBytes(next);
  if (size > SESSION_MAX_BYTES) {
    throw new OversizeSessionError(`${payload.activityId} would make the session ${size} bytes; a journey's session may be at most ${SESSION_MAX_BYTES}.`);
  }
  // Contracts 1 and 2 read the same answer (the state their Task's OutputPath takes): a contract
  // that changes it answers by `payload.contract`.
  if (!stored) return next;
  // The next version, then only the reference and the projection go back to Step Functions.
  const ref = { ...stored.ref, v: stored.ref.v + 1 };
  try {
    await sessions.put(ref.tenantId, ref.processInstanceId, ref.v, next, stored.expiresAt);
  } catch (err) {
    throw asActivityError(err);
  }
  return stateFor(ref, next, stored.keep);
}

/**
 * The session at the version the state refers to, with what the state machine wrote since
 * (the state's values) over it. A state with no reference is an execution started before the
 * session moved to the table: it is the session, and the step answers with the whole new one.
 */
async function load(payload: Payload, now: Date): Promise<Loaded> {
  const state = payload.state;
  if (!isRefState(state) || !payload.keep) return { session: state as Session };
  const ref = state._ref;
  if (ref.v >= MAX_JOURNEY_STEPS) {
    throw new JourneyStepLimitError(`The journey has run ${ref.v} steps, the most one journey may: a loop of its definition did not end.`);
  }
  let found: Awaited<ReturnType<typeof sessions.get>>;
  try {
    found = await sessions.get(ref.tenantId, ref.processInstanceId, ref.v, now);
  } catch (err) {
    throw asActivityError(err);
  }
  if (!found) throw new SessionNotFoundError(`The journey's data (version ${ref.v}) is no longer stored.`);
  return { session: overlay(found.session, state) as Session, stored: { ref, expiresAt: found.expiresAt, keep: payload.keep } };
}
