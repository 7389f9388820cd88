/**
 * Compiles a process definition to Amazon States Language, one state per activity, named by the
 * activity id so an execution's history reads like the definition.
 *
 * The contract the runtime builds on:
 * - The instance's session data (`{instance, parameters, vars, _checks, _faces, _decision?,
 *   _end?, _lastError?}`) lives in the table, one item per version (`SESSION#{v}` in the
 *   instance's partition, with its TTL). The execution's state (`$`) is only
 *   `{_ref: {tenantId, processInstanceId, v}, ...projection}`: the reference to the version, and
 *   the session's values at the paths this state machine itself reads or writes (`keep`, see
 *   executionKeep): those its Choice rules read (a Simple Decider's rules, a gateway's
 *   conditions, compiled to `Variable: '$.vars.x'` as before, so no rule changes) and those its
 *   Pass states and Catch routes write (`_decision`, `_end`, `_lastError`, an error route's
 *   variables). So what end users typed enters Step Functions' execution history (kept 90 days,
 *   whatever the instance's retention) only where a designer routes on it: a gateway on
 *   `${details.documentNumber}` puts the document number there; one on `${details.channel}` only
 *   the channel.
 * - A service activity is a `lambda:invoke` task whose payload is `{contract, activityId,
 *   activityType, inputs, outputs?, keep, state}` (inputs and outputs as JSON text; `contract` the
 *   activity contract this compiler speaks, ACTIVITY_CONTRACT, a constant of the ASL: the
 *   activity function serves it and the one before, see docs/journeys.md); the activity Lambda reads the version `state._ref.v`, lays
 *   what the state carries over it (what Pass states and Catch routes wrote since), runs, writes
 *   version v+1, and returns `{_ref: {..., v: v+1}, ...projection}` (`OutputPath $.Payload`).
 * - A user activity is a `lambda:invoke.waitForTaskToken` task whose payload also carries the
 *   task token; the Lambda records the screen (with the session and the version) and returns,
 *   and the end user's submission writes version v+1 and resumes the execution with
 *   `SendTaskSuccess(output = {_ref, ...projection})`.
 * - An error boundary event is a `Catch` on the event's ASL error name (the Lambda's error type,
 *   or SendTaskFailure's `error`), which puts `{Error, Cause}` at `$._lastError` and moves on.
 * - A Simple Decider is a `Choice` state.
 * - Every end goes through one last state, `Record outcome`, which invokes the execution-end
 *   function with the state (its `_ref` names the instance, its `_decision` and `_end` are kept
 *   in it): the instance's final status (PASS, FAIL, REVIEW, an error end)
 *   is written by the workflow itself, not inferred later from a status-change event that
 *   EventBridge delivers best-effort and without the output when it is large. Its result is
 *   dropped (`ResultPath: null`), so the execution's output is still the state. If it cannot
 *   record (after its retries), the execution still succeeds, with that output, through
 *   `Outcome not recorded`, and the execution-end event or the reconciler records it.
 * - Every Task retries Lambda's transient failures and the activity's `Activity.Transient`
 *   (throttles, timeouts) with exponential backoff and full jitter; nothing else is retried
 *   (LAMBDA_RETRY, TRANSIENT_RETRY: the budgets are written there and in docs/journeys.md).
 * - Every Task has a `TimeoutSeconds`: a user step its Step Timeout or timer; a service step
 *   SERVICE_TASK_TIMEOUT_SECONDS, just above the activity function's own timeout, and a service
 *   step that still runs past it fails the execution as `Activity.Timeout` (a process error,
 *   as the function's own timeout is), not as `States.Timeout`, which means an end user's step
 *   timed out. A service step with a timer boundary event (`PT10M30S` on a cloud function)
 *   takes the timer as its timeout, capped at SERVICE_TASK_TIMEOUT_SECONDS, and its route on
 *   `States.Timeout`: a timer longer than the cap is taken only when the invoke hangs, since
 *   the step cannot run longer. The execution itself times out with the instance's retention
 *   (executionTimeout).
 * - A gateway without a default flow (and no two conditions that negate each other) is a Choice
 *   without `Default`: when no condition holds, the execution fails with States.NoChoiceMatched
 *   and the instance ends COMPLETED_PROCESS_ERROR, as in the family's engine.
 * - The ASL holds only what runs: nothing of the tenant, the definition's name or its version (the
 *   Comment is the same for all, STATE_MACHINE_COMMENT). Those are in the execution's input
 *   (`_ref.tenantId`, and the session's `instance`), so versions and tenants whose definitions
 *   compile alike share one state machine (functions/process-manager/executions/state-machine-names.ts).
 */
import {
  OUTCOMES,
  type Activity,
  type Condition,
  type ConditionValue,
  type Gateway,
  type Outcome,
  type ProcessDefinition,
} from './definition.js';
import { activitySpec, aslErrorName, STEP_TIMEOUT_DEFAULT, STEP_TIMEOUT_INPUT } from './catalogue.js';
import { exhaustive, validateDefinition } from './validate.js';
import { parseCondition, toChoiceRule } from './conditions/index.js';
import { isoDurationSeconds } from './bpmn/duration.js';
import { SESSION_KEYS, variablePath } from './variables.js';
import { TRANSIENT_ERROR } from '../functions/activities/spec.js';
import { normaliseKeep, pathSegments } from '../functions/shared/session-state.js';
import { own } from '../functions/shared/own.js';
import { referencePath } from './references.js';
import { createHash } from 'node:crypto';
import { ACTIVITY_CONTRACT, CONTRACT_ERRORS } from '../functions/shared/activity-contract.js';

export { listErrorNames } from './catalogue.js';

export interface CompileOptions {
  /** The one Lambda that runs every activity type (it dispatches on `activityType`). */
  activityFunctionArn: string;
  /** The Lambda that records an execution's end on its instance: the last state invokes it. */
  executionEndFunctionArn: string;
}

export interface AslRetrier {
  ErrorEquals: string[];
  IntervalSeconds: number;
  MaxAttempts: number;
  BackoffRate: number;
  /** The longest wait between two attempts, however far the backoff has grown. */
  MaxDelaySeconds: number;
  /** FULL: each wait is random between 0 and the backoff, so retries of many executions spread out. */
  JitterStrategy: 'FULL' | 'NONE';
}

export interface AslCatcher {
  ErrorEquals: string[];
  /** null: the state's input goes on unchanged. */
  ResultPath: string | null;
  Next: string;
}

interface AslTransition {
  Next?: string;
  End?: true;
}

export interface AslTaskState extends AslTransition {
  Type: 'Task';
  Comment: string;
  Resource: 'arn:aws:states:::lambda:invoke' | 'arn:aws:states:::lambda:invoke.waitForTaskToken';
  Parameters: {
    FunctionName: string;
    Payload: {
      /** The activity contract this state machine speaks, for its whole life (functions/shared/activity-contract.ts). */
      contract: number;
      activityId: string;
      activityType: string;
      /**
       * The activity's inputs as JSON text (`payloadInputs` reads it back). The designer chooses
       * their keys (a form's language map, a map input's keys), and in Parameters a key is
       * never only data: Step Functions reads one ending in ".$" as a path into the state, and
       * the local engine's validator took `constructor` for a field it had seen. As text they
       * are data whatever they are called.
       */
      inputs: string;
      /** Output parameters as JSON text: process variable → JUEL expression, set when the activity completes. */
      outputs?: string;
      /** The session paths the execution's state keeps (executionKeep): the activity returns only these, with the reference. */
      keep: string[];
      'state.$': '$';
      'taskToken.$'?: '$$.Task.Token';
    };
  };
  /** A user step's Step Timeout or timer; a service step's SERVICE_TASK_TIMEOUT_SECONDS. */
  TimeoutSeconds: number;
  OutputPath?: '$.Payload';
  Retry: AslRetrier[];
  Catch?: AslCatcher[];
}

export type AslChoiceRule = { [op: string]: unknown; Next?: string };

export interface AslChoiceState {
  Type: 'Choice';
  Comment: string;
  Choices: AslChoiceRule[];
  /**
   * Absent on a gateway without a default flow: when no condition holds, Step Functions fails the
   * execution with States.NoChoiceMatched (naming the state), a process error, as in the family.
   */
  Default?: string;
}

/** A decision (`_decision`), a graph decider's outcome, or an error end event (`_end`). */
export interface AslPassState extends AslTransition {
  Type: 'Pass';
  Comment?: string;
  /** A decision, an error end's record, or an error code for an error route's variable. */
  Result?: Outcome | string | { endEvent: string; errorCode: string };
  /** An error route's message variable: the error's Cause (a service step's: its parsed errorMessage). */
  InputPath?: string;
  /** A service step's error route: its Lambda's Cause, parsed (`States.StringToJson`). */
  Parameters?: { 'parsed.$': string };
  ResultPath: string;
}

/** The end of the route taken when the outcome could not be recorded (see RECORD_OUTCOME_STATE). */
export interface AslSucceedState {
  Type: 'Succeed';
  Comment: string;
}

/** The last state of every route to an end: the execution-end function records the outcome. */
export interface AslRecordOutcomeState {
  Type: 'Task';
  Comment: string;
  Resource: 'arn:aws:states:::lambda:invoke';
  Parameters: { FunctionName: string; Payload: { 'session.$': '$' } };
  ResultPath: null;
  TimeoutSeconds: number;
  Retry: AslRetrier[];
  Catch: AslCatcher[];
  End: true;
}

/** Where a service step that ran past its TimeoutSeconds ends the execution (SERVICE_TIMEOUT_STATE). */
export interface AslFailState {
  Type: 'Fail';
  Comment: string;
  Error: string;
  Cause: string;
}

export type AslState = AslTaskState | AslRecordOutcomeState | AslChoiceState | AslPassState | AslSucceedState | AslFailState;

export interface AslStateMachine {
  Comment: string;
  StartAt: string;
  /** The execution's own timeout (executionTimeout): it ends TIMED_OUT, and the instance COMPLETED_TERMINATED. */
  TimeoutSeconds: number;
  States: Record<string, AslState>;
}

/**
 * Lambda's own transient failures (the service, not the function): a throttled invoke (the
 * activity function's reserved concurrency used up, or a burst of cold starts beyond Lambda's
 * scaling rate), a failed or timed-out invoke call; and the activity function refusing a payload
 * of a newer contract than it knows (Activity.ContractTooNew, before it does anything). The
 * function did not run, or not to an answer, or did nothing, so trying again is safe. Up to eight more attempts, waits from 2 s doubling to at most
 * 60 s (2, 4, 8, 16, 32, 60, 60, 60), each drawn at random below that (full jitter), so the
 * executions a burst throttled do not come back together: at most 242 s of waiting in all
 * (121 s on average), where the former budget (3 attempts, 1 s doubling to 8 s: 7 s at most)
 * failed journeys during a burst of cold starts. Four minutes covers the burst draining and
 * Lambda scaling out; longer, a journey's end user is better told the step failed.
 */
export const LAMBDA_RETRY: AslRetrier = {
  ErrorEquals: [
    'Lambda.ServiceException',
    'Lambda.AWSLambdaException',
    'Lambda.SdkClientException',
    'Lambda.TooManyRequestsException',
    'Lambda.ClientExecutionTimeoutException',
    // The state machine is newer than the activity function it calls: only while a deploy is
    // under way (functions/shared/activity-contract.ts), which these minutes outlast.
    CONTRACT_ERRORS.TOO_NEW,
  ],
  IntervalSeconds: 2,
  MaxAttempts: 8,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
};

/**
 * An activity's transient failure (`Activity.Transient`, functions/activities/contract.ts: a
 * throttle or timeout of an AWS call after the SDK's own retries): up to four more attempts,
 * waits growing from 1 s by 2x to at most 10 s, each drawn at random below that (full jitter), so
 * a throttled table is not hit again by every waiting execution at once. 15 s of waiting at most
 * in all; the activity's other errors are never retried (an error boundary event routes them).
 * Shorter than LAMBDA_RETRY on purpose: the AWS call has already been retried by the SDK inside
 * the function, and each attempt here runs the activity again (and is a billed transition).
 */
export const TRANSIENT_RETRY: AslRetrier = {
  ErrorEquals: [TRANSIENT_ERROR],
  IntervalSeconds: 1,
  MaxAttempts: 4,
  BackoffRate: 2,
  MaxDelaySeconds: 10,
  JitterStrategy: 'FULL',
};

export const LAST_ERROR_PATH = '$._lastError';
/** The checks a step recorded as NOT_ASSESSED (their `_checks.documents` keys), which the family's decider counts as failures. */
export const NOT_ASSESSED_PATH = '$._checks._notAssessed';

/**
 * The activity function's timeout (lib/constructs/journey-functions.ts; test/infra/journeys.test.ts
 * checks they agree): 90 s, since a cloud function step waits for its run there (a function runs
 * at most 60 s, functions/cloud-functions/functions.ts TIMEOUT_SECONDS, in a runner of 75 s).
 */
export const ACTIVITY_FUNCTION_TIMEOUT_SECONDS = 90;
/** The execution-end function's timeout (lib/constructs/journey-functions.ts, checked the same way). */
export const EXECUTION_END_FUNCTION_TIMEOUT_SECONDS = 30;
/**
 * What a Task waits for a Lambda invoke beyond the function's own timeout: a cold start's init
 * (up to 10 s, not counted in the function's timeout) and the invoke's own round trip. So the
 * function's own timeout always comes first, and a state's timeout means the invoke hung.
 */
export const TASK_TIMEOUT_MARGIN_SECONDS = 20;
/** Every service step's TimeoutSeconds: 110 s. All of them run in the activity function, cloud function steps included. */
export const SERVICE_TASK_TIMEOUT_SECONDS = ACTIVITY_FUNCTION_TIMEOUT_SECONDS + TASK_TIMEOUT_MARGIN_SECONDS;
/** The record state's TimeoutSeconds: 50 s. */
export const RECORD_OUTCOME_TIMEOUT_SECONDS = EXECUTION_END_FUNCTION_TIMEOUT_SECONDS + TASK_TIMEOUT_MARGIN_SECONDS;

/** Where a service step that ran past its TimeoutSeconds ends the execution (no activity id has a space). */
export const SERVICE_TIMEOUT_STATE = 'Service step timed out';
/** The execution's error then: a process error (COMPLETED_PROCESS_ERROR), as the function's own timeout is. */
export const SERVICE_TIMEOUT_ERROR = 'Activity.Timeout';

/** Step Functions' longest Standard execution: one year. */
export const MAX_EXECUTION_SECONDS = 365 * 86_400;

/**
 * An execution's TimeoutSeconds: the instance's retention (the definition's `retentionDays`),
 * at most a year. How long a journey may take cannot be summed (loops, routes back to a user
 * step), and past its retention its instance is gone (reads answer 404, the journey's link
 * expires with it): an execution still waiting then would wait for no one, up to a year. A
 * timed-out execution ends TIMED_OUT and its instance COMPLETED_TERMINATED, as a stopped one.
 * A user step's timeout is at most STEP_TIMEOUT_MAX (28 days): with a shorter retention, the
 * execution's timeout comes first.
 */
export function executionTimeout(definition: Pick<ProcessDefinition, 'retentionDays'>): number {
  return Math.min(definition.retentionDays * 86_400, MAX_EXECUTION_SECONDS);
}

/** Every compiled state machine's Comment: the same for all, whatever tenant, name or version it runs. */
export const STATE_MACHINE_COMMENT = 'A journey compiled from a process definition; do not edit.';

/** The state every end goes through (no activity id has a space). */
export const RECORD_OUTCOME_STATE = 'Record outcome';
/** Where the execution ends when the outcome could not be recorded. */
export const OUTCOME_NOT_RECORDED_STATE = 'Outcome not recorded';

/**
 * Recording the outcome is one conditional write and one event: worth retrying through any
 * passing fault (a throttle, a cold start that timed out), with backoff and full jitter so that
 * many journeys ending together do not retry in step. About two minutes in all.
 */
export const RECORD_OUTCOME_RETRY: AslRetrier = {
  ErrorEquals: ['States.ALL'],
  IntervalSeconds: 2,
  MaxAttempts: 6,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
};

/** The state that records a decider outcome, e.g. `Decision PASS` (no activity id has a space). */
export function decisionStateName(outcome: Outcome): string {
  return `Decision ${outcome}`;
}

export function compileDefinition(definition: ProcessDefinition, opts: CompileOptions): AslStateMachine {
  // Idempotent on a validated definition; it keeps a hand-built one from compiling to nonsense.
  const def = validateDefinition(definition);
  const states: Record<string, AslState> = {};
  const outcomes = new Set<Outcome>();
  const gateways = def.gateways ?? {};
  const ends = def.ends ?? {};
  /** Gateways and end events some state goes to by name: each becomes a state of its own. */
  const wanted: string[] = [];
  // A plain end event is no state of its own: what leads to it goes to the state that records the outcome.
  const plainEnd = (id: string) => Object.hasOwn(ends, id) && ends[id]!.error === undefined;
  const to = (id: string): string => {
    if (plainEnd(id)) return RECORD_OUTCOME_STATE;
    if ((Object.hasOwn(gateways, id) || Object.hasOwn(ends, id)) && !wanted.includes(id)) wanted.push(id);
    return id;
  };
  const transition = (next: string | undefined): AslTransition => ({ Next: next === undefined ? RECORD_OUTCOME_STATE : to(next) });
  let serviceSteps = false;

  for (const [id, activity] of Object.entries(def.activities)) {
    const spec = activitySpec(activity.type)!;
    const comment = activity.name ?? spec.displayName;
    if (spec.kind === 'decider') {
      if (activity.inputs['Decision on Any Failure'] !== undefined || activity.inputs['Derive Decision From'] !== undefined) {
        familyDecider(id, activity, comment, states, to);
        continue;
      }
      const outcome = activity.inputs.Outcome as Outcome | undefined;
      if (outcome !== undefined) {
        // A graph's decider: records the outcome its input names, then the flow goes on.
        states[id] = { Type: 'Pass', Comment: comment, Result: outcome, ResultPath: '$._decision', ...transition(activity.next) };
        continue;
      }
      const rules = activity.rules ?? [];
      const fallback = activity.default ?? 'REVIEW';
      for (const r of rules) outcomes.add(r.outcome);
      outcomes.add(fallback);
      states[id] = {
        Type: 'Choice',
        Comment: comment,
        Choices: rules.map((r) => ({ ...choice(r.when, def), Next: decisionStateName(r.outcome) })),
        Default: decisionStateName(fallback),
      };
      continue;
    }
    const user = spec.kind === 'user';
    const catchers: AslCatcher[] = spec.errorEvents
      .filter((e) => own(activity.errorEvents, e.name) !== undefined)
      .map((e, i) => {
        const target = to(own(activity.errorEvents, e.name)!);
        const vars = own(activity.errorVariables, e.name);
        if (!vars || (vars.code === undefined && vars.message === undefined)) {
          return { ErrorEquals: [e.aslError, ...(e.alsoCatches ?? [])], ResultPath: LAST_ERROR_PATH, Next: target };
        }
        // The route sets the designer's variables on its way: one Pass state each (a transition
        // each, only when the route is taken), since a Catch writes one path.
        const base = `${id.slice(0, 60)}.error${i}`;
        // A service step's error is its Lambda's: the Cause is the runtime's JSON envelope
        // ({errorType, errorMessage, trace}), whose errorMessage is the message (the family's
        // variable holds the message, never a stack trace). A user step's Cause is the text its
        // route gave SendTaskFailure.
        const parse = vars.message !== undefined && !user ? `${base}.cause` : undefined;
        const message = vars.message === undefined ? undefined : `${base}.message`;
        if (parse) {
          states[parse] = { Type: 'Pass', Parameters: { 'parsed.$': `States.StringToJson(${LAST_ERROR_PATH}.Cause)` }, ResultPath: `${LAST_ERROR_PATH}.Parsed`, Next: message! };
          states[message!] = { Type: 'Pass', InputPath: `${LAST_ERROR_PATH}.Parsed.parsed.errorMessage`, ResultPath: `$.vars.${vars.message}`, Next: target };
        } else if (message) {
          states[message] = { Type: 'Pass', InputPath: `${LAST_ERROR_PATH}.Cause`, ResultPath: `$.vars.${vars.message}`, Next: target };
        }
        const afterCode = parse ?? message;
        const first = vars.code === undefined ? afterCode! : `${base}.code`;
        if (vars.code !== undefined) {
          states[first] = { Type: 'Pass', Result: e.familyCode ?? e.code, ResultPath: `$.vars.${vars.code}`, Next: afterCode ?? target };
        }
        return { ErrorEquals: [e.aslError, ...(e.alsoCatches ?? [])], ResultPath: LAST_ERROR_PATH, Next: first };
      });
    if (activity.timer) catchers.push({ ErrorEquals: ['States.Timeout'], ResultPath: LAST_ERROR_PATH, Next: to(activity.timer.next) });
    // Last, and no designer's route: a service step's error events never catch States.Timeout.
    // A service step with a timer has its route instead: the timer is its timeout.
    const serviceTimeout = !user && !activity.timer;
    if (serviceTimeout) catchers.push({ ErrorEquals: ['States.Timeout'], ResultPath: null, Next: SERVICE_TIMEOUT_STATE });
    serviceSteps ||= serviceTimeout;
    const timeout = activity.timer ? timerSeconds(activity.timer.duration) : activity.inputs[STEP_TIMEOUT_INPUT];
    states[id] = {
      Type: 'Task',
      Comment: comment,
      Resource: user ? 'arn:aws:states:::lambda:invoke.waitForTaskToken' : 'arn:aws:states:::lambda:invoke',
      Parameters: {
        FunctionName: opts.activityFunctionArn,
        Payload: {
          contract: ACTIVITY_CONTRACT,
          activityId: id,
          activityType: activity.type,
          inputs: JSON.stringify(activity.inputs),
          ...(activity.outputs ? { outputs: JSON.stringify(activity.outputs) } : {}),
          // Filled in below, once every state that reads or writes the state is known.
          keep: [],
          'state.$': '$',
          ...(user ? { 'taskToken.$': '$$.Task.Token' as const } : {}),
          // What the step's page may count down from (a custom page's `timeoutInSeconds`): only
          // where a timer sets it, as the Step Timeout is among the inputs already.
          ...(user && activity.timer && typeof timeout === 'number' ? { timeoutSeconds: timeout } : {}),
        },
      },
      // A service step's timer longer than the step may run acts at the step's limit: the
      // activity function stops before then, so the timer could never fire later.
      TimeoutSeconds: user
        ? typeof timeout === 'number'
          ? timeout
          : STEP_TIMEOUT_DEFAULT
        : typeof timeout === 'number' && activity.timer
          ? Math.min(timeout, SERVICE_TASK_TIMEOUT_SECONDS)
          : SERVICE_TASK_TIMEOUT_SECONDS,
      ...(user ? {} : { OutputPath: '$.Payload' as const }),
      Retry: [LAMBDA_RETRY, TRANSIENT_RETRY].map((r) => ({ ...r, ErrorEquals: [...r.ErrorEquals] })),
      ...(catchers.length > 0 ? { Catch: catchers } : {}),
      ...transition(activity.next),
    };
  }
  to(def.startActivityId);

  // Gateways and ends that states name; a gateway inlines the gateways after it (fused), and
  // names those it could not inline, which then get states of their own.
  for (let i = 0; i < wanted.length; i++) {
    const id = wanted[i]!;
    const end = own(ends, id);
    if (end) {
      // Only error ends are wanted: plain ones are the record state itself (see `to`).
      states[id] = {
        Type: 'Pass',
        Comment: end.name ?? `End with error ${end.error}`,
        Result: { endEvent: id, errorCode: end.error! },
        ResultPath: '$._end',
        Next: RECORD_OUTCOME_STATE,
      };
      continue;
    }
    const fused = fuseGateway(id, gateways, [id]);
    states[id] = {
      Type: 'Choice',
      Comment: own(gateways, id)!.name ?? 'Gateway',
      Choices: fused.choices.map((c) => ({ ...c.rule, Next: to(c.next) })),
      ...(fused.default !== undefined ? { Default: to(fused.default) } : {}),
    };
  }

  // A Choice state cannot write data, and the decision must be in the session the outcome is
  // recorded from (`_decision`), so each outcome in use gets one Pass state, shared by every
  // decider: at most three, one transition per decision.
  for (const outcome of OUTCOMES) {
    if (outcomes.has(outcome)) {
      states[decisionStateName(outcome)] = { Type: 'Pass', Result: outcome, ResultPath: '$._decision', Next: RECORD_OUTCOME_STATE };
    }
  }
  states[RECORD_OUTCOME_STATE] = {
    Type: 'Task',
    Comment: 'Records the outcome on the process instance: its final status',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: { FunctionName: opts.executionEndFunctionArn, Payload: { 'session.$': '$' } },
    ResultPath: null,
    TimeoutSeconds: RECORD_OUTCOME_TIMEOUT_SECONDS,
    Retry: [{ ...RECORD_OUTCOME_RETRY, ErrorEquals: [...RECORD_OUTCOME_RETRY.ErrorEquals] }],
    Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: OUTCOME_NOT_RECORDED_STATE }],
    End: true,
  };
  states[OUTCOME_NOT_RECORDED_STATE] = {
    Type: 'Succeed',
    Comment: 'The outcome could not be recorded: the execution-end event or the reconciler records it from this output',
  };
  if (serviceSteps) {
    states[SERVICE_TIMEOUT_STATE] = {
      Type: 'Fail',
      Comment: 'A service step ran past its TimeoutSeconds: a process error, not an end user\'s timeout',
      Error: SERVICE_TIMEOUT_ERROR,
      Cause: `The activity function did not answer within ${SERVICE_TASK_TIMEOUT_SECONDS} seconds`,
    };
  }

  const keep = executionKeep(states);
  for (const state of Object.values(states)) {
    if (state.Type === 'Task' && 'activityId' in state.Parameters.Payload) state.Parameters.Payload.keep = keep;
  }

  return {
    // Generic: nothing of the tenant, the definition's name or its version is written into the
    // ASL, so every version of every tenant that compiles alike runs on one state machine (named
    // by the hash of the ASL). Which instance, tenant and definition version an execution runs is
    // in its input: `_ref` (tenant and instance) and the session's `instance`.
    Comment: STATE_MACHINE_COMMENT,
    StartAt: def.startActivityId,
    TimeoutSeconds: executionTimeout(def),
    States: states,
  };
}

/**
 * The session paths the execution's state must carry besides its reference to the stored
 * session (functions/shared/session-state.ts): those its Choice rules read (a Simple Decider's
 * rules, a gateway's conditions) and those its Pass states and Catch routes write (`_decision`,
 * `_end`, `_lastError`, an error route's variables). Nothing else of the session enters the
 * execution's history. Sorted, and without paths another one covers: the same ASL every time.
 */
export function executionKeep(states: Record<string, AslState>): string[] {
  const paths: string[] = [];
  const visit = (rule: unknown): void => {
    if (Array.isArray(rule)) return rule.forEach(visit);
    if (rule === null || typeof rule !== 'object') return;
    for (const [k, v] of Object.entries(rule)) {
      if (k === 'Variable' && typeof v === 'string') paths.push(v);
      else if (k === 'And' || k === 'Or' || k === 'Not') visit(v);
    }
  };
  for (const state of Object.values(states)) {
    if (state.Type === 'Choice') visit(state.Choices);
    if (state.Type === 'Pass') paths.push(state.ResultPath);
    if (state.Type === 'Task') for (const c of state.Catch ?? []) if (c.ResultPath) paths.push(c.ResultPath);
  }
  // A rule on a root name that is no session key (a decider's `${firstName}`) reads where nothing
  // ever is: there is nothing to keep for it.
  return normaliseKeep(paths.filter((p) => (SESSION_KEYS as readonly string[]).includes(String(pathSegments(p)[0]))));
}

function timerSeconds(duration: string): number {
  const d = isoDurationSeconds(duration);
  return 'seconds' in d ? d.seconds : STEP_TIMEOUT_DEFAULT;
}

/**
 * The family's decider (validate.ts checkFamilyDecider): a Choice on the derived decision (a
 * reference whose value is PASS, FAIL or REVIEW), then on an error route taken (`_lastError`, or
 * a first entry in `_errors`) or a check NOT_ASSESSED (`_checks._notAssessed`), giving Decision on Any Failure (FAIL when not given), else PASS;
 * each outcome a Pass state of this decider (`<id> PASS`) that records `_decision` and goes on.
 */
function familyDecider(id: string, activity: Activity, comment: string, states: Record<string, AslState>, to: (id: string) => string): void {
  const onFailure = (activity.inputs['Decision on Any Failure'] as Outcome | undefined) ?? 'FAIL';
  const derive = activity.inputs['Derive Decision From'] as string | undefined;
  const next = activity.next === undefined ? RECORD_OUTCOME_STATE : to(activity.next);
  // Node ids have no space and are at most 80 characters, as state names are.
  const base = id.length <= 73 ? id : `${id.slice(0, 64)}~${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
  const stateOf = (o: Outcome) => `${base} ${o}`;
  const used = new Set<Outcome>();
  const goTo = (o: Outcome) => (used.add(o), stateOf(o));
  const literal = OUTCOMES.find((o) => o === derive);
  if (literal !== undefined) {
    states[id] = { Type: 'Pass', Comment: comment, Result: literal, ResultPath: '$._decision', Next: next };
    return;
  }
  const choices: AslChoiceRule[] = [];
  const read = derive === undefined || referencePath(derive) === undefined ? undefined : parseCondition(derive);
  if (read?.kind === 'variable') {
    const variable = variablePath(read.segments);
    for (const o of OUTCOMES) {
      choices.push({ And: [{ Variable: variable, IsPresent: true }, { Variable: variable, IsString: true }, { Variable: variable, StringEquals: o }], Next: goTo(o) });
    }
  }
  // A check recorded NOT_ASSESSED (a document check no engine here judges, which the definition
  // accepted) counts as a failure too: never a silent pass.
  choices.push({
    Or: [{ Variable: LAST_ERROR_PATH, IsPresent: true }, { Variable: '$._errors[0]', IsPresent: true }, { Variable: `${NOT_ASSESSED_PATH}[0]`, IsPresent: true }],
    Next: goTo(onFailure),
  });
  states[id] = { Type: 'Choice', Comment: comment, Choices: choices, Default: goTo('PASS') };
  for (const o of used) states[stateOf(o)] = { Type: 'Pass', Comment: `${comment}: ${o}`, Result: o, ResultPath: '$._decision', Next: next };
}

/** A fused gateway grows by at most this much JSON per gateway it inlines (ASL has a 1 MB cap). */
const FUSE_LIMIT_BYTES = 16 * 1024;

interface Fused {
  choices: { rule: AslChoiceRule; next: string }[];
  /** Undefined for a gateway without a default flow (and none of its conditions always holds). */
  default: string | undefined;
}

/**
 * A gateway's choices in order, with the gateways its branches and default lead to inlined:
 * branch `c` to a gateway with branches `d1 → A, d2 → B` and default `E` becomes `c && d1 → A`,
 * `c && d2 → B`, `c → E`; a default to a gateway appends that gateway's choices and takes its
 * default. First match wins in both, so the fused state decides what the chain would, in one
 * transition. A gateway is not inlined into itself (a loop of gateways) nor when it would make
 * the state too large; it is then named, and compiled as a state of its own.
 */
function fuseGateway(id: string, gateways: Record<string, Gateway>, stack: string[]): Fused {
  const gateway = own(gateways, id)!;
  const asts = gateway.branches.map((b) => parseCondition(b.when));
  let branches = gateway.branches.map((b, i) => ({ rule: toChoiceRule(asts[i]!, { path: variablePath }) as AslChoiceRule, next: b.next }));
  let fallback = gateway.default;
  if (fallback === undefined) {
    // Two branches that negate each other: from the later one on, one always holds. Without
    // such a pair, no default: no branch taken fails the execution (the family's behaviour).
    const j = asts.findIndex((a, k) => k > 0 && exhaustive([...asts.slice(0, k), a]) && !exhaustive(asts.slice(0, k)));
    if (j > 0) {
      fallback = gateway.branches[j]!.next;
      branches = branches.slice(0, j);
    }
  }
  const inline = (target: string) => Object.hasOwn(gateways, target) && !stack.includes(target);
  const choices: Fused['choices'] = [];
  for (const b of branches) {
    if (inline(b.next)) {
      const sub = fuseGateway(b.next, gateways, [...stack, b.next]);
      // A sub-gateway without a default fails when none of its conditions holds; inlined, it
      // would need a state to fail in, so it stays a state of its own.
      if (sub.default === undefined) {
        choices.push(b);
        continue;
      }
      const merged = [...sub.choices.map((c) => ({ rule: and(b.rule, c.rule), next: c.next })), { rule: b.rule, next: sub.default }];
      if (JSON.stringify(merged).length <= FUSE_LIMIT_BYTES) {
        choices.push(...merged);
        continue;
      }
    }
    choices.push(b);
  }
  if (fallback !== undefined && inline(fallback)) {
    const sub = fuseGateway(fallback, gateways, [...stack, fallback]);
    if (JSON.stringify(sub.choices).length <= FUSE_LIMIT_BYTES) return { choices: [...choices, ...sub.choices], default: sub.default };
  }
  return { choices, default: fallback };
}

function and(a: AslChoiceRule, b: AslChoiceRule): AslChoiceRule {
  const parts = (r: AslChoiceRule) => (Object.keys(r).length === 1 && Array.isArray(r.And) ? (r.And as AslChoiceRule[]) : [r]);
  return { And: [...parts(a), ...parts(b)] };
}

function comparison(value: ConditionValue): string {
  return typeof value === 'string' ? 'StringEquals' : typeof value === 'number' ? 'NumericEquals' : 'BooleanEquals';
}

/**
 * A Choice rule for a condition. A comparison on a path that is absent fails the execution in
 * Step Functions, so every comparison is guarded by `IsPresent` (And/Or short-circuit).
 */
function choice(c: Condition, def: ProcessDefinition): AslChoiceRule {
  if ('all' in c) return { And: c.all.map((x) => choice(x, def)) };
  if ('any' in c) return { Or: c.any.map((x) => choice(x, def)) };
  if ('not' in c) return { Not: choice(c.not, def) };
  if ('errorEvent' in c) {
    if (c.errorEvent === true) return { Variable: LAST_ERROR_PATH, IsPresent: true };
    const target = def.activities[c.errorEvent.activity]!;
    const error = aslErrorName(target.type, c.errorEvent.name)!;
    return present(`${LAST_ERROR_PATH}.Error`, { StringEquals: error });
  }
  const path = `$.${c.variable}`;
  // Absence as Not(IsPresent: true): the local engine never takes `IsPresent: false` as true.
  if ('isPresent' in c) return c.isPresent ? { Variable: path, IsPresent: true } : { Not: { Variable: path, IsPresent: true } };
  if ('equals' in c) return present(path, { [comparison(c.equals)]: c.equals });
  // notEquals holds when the value is absent too. Written as Not(IsPresent: true): the local
  // engine never takes `IsPresent: false` as true, so it would answer false where AWS says true.
  return {
    Or: [
      { Not: { Variable: path, IsPresent: true } },
      { Not: { Variable: path, [comparison(c.notEquals)]: c.notEquals } },
    ],
  };
}

function present(path: string, test: Record<string, unknown>): AslChoiceRule {
  return { And: [{ Variable: path, IsPresent: true }, { Variable: path, ...test }] };
}

/**
 * The state transitions Step Functions bills for the happy path (one per state entered): from
 * the start, follow each task's `next` (no error route or timer is taken, no retry happens) and
 * each gateway's default flow, until the execution ends. Counted on the compiled state machine,
 * so fused gateways cost one transition, a plain end event none of its own and every route one
 * for `Record outcome`; a Simple Decider with rules costs two (its Choice and one
 * `Decision <OUTCOME>`). Throws when that path loops.
 */
export function happyPathTransitions(definition: ProcessDefinition): number {
  const def = validateDefinition(definition);
  const asl = compileDefinition(def, {
    activityFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:count',
    executionEndFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:end',
  });
  return aslPathTransitions(asl, `${def.name} v${def.version}`).happy;
}

export interface PathTransitions {
  /** Following Next and each Choice's Default. */
  happy: number;
  /** The fewest states from the start to an end, by any route. */
  shortest: number;
  /** The most states on a route that enters no state twice (a loop taken at most once). */
  longest: number;
}

function aslSuccessors(state: AslState): string[] {
  const out: string[] = [];
  if ('Next' in state && state.Next) out.push(state.Next);
  if (state.Type === 'Choice') out.push(...state.Choices.map((c) => c.Next!), ...(state.Default !== undefined ? [state.Default] : []));
  // The record state's Catch is no route of the journey (it is taken only when recording fails),
  // nor is a service step's timeout (taken only when an invoke hangs).
  if (state.Type === 'Task' && 'activityId' in state.Parameters.Payload) {
    out.push(...(state.Catch ?? []).map((c) => c.Next).filter((next) => next !== SERVICE_TIMEOUT_STATE));
  }
  return [...new Set(out)];
}

function ends(state: AslState): boolean {
  return state.Type === 'Succeed' || ('End' in state && state.End === true);
}

/** Transitions per path of a compiled state machine (see PathTransitions). */
export function aslPathTransitions(asl: AslStateMachine, title = 'the state machine'): PathTransitions {
  const seen = new Set<string>();
  let happy = 0;
  for (let id: string | undefined = asl.StartAt; id !== undefined; ) {
    if (seen.has(id)) throw new Error(`The happy path of ${title} loops at "${id}".`);
    seen.add(id);
    happy++;
    const state: AslState = asl.States[id]!;
    // A gateway without a default: its first branch stands for the happy path.
    id = state.Type === 'Choice' ? (state.Default ?? state.Choices[0]!.Next) : 'Next' in state ? state.Next : undefined;
  }
  // Shortest: breadth-first.
  const dist = new Map<string, number>([[asl.StartAt, 1]]);
  const queue = [asl.StartAt];
  let shortest = Infinity;
  while (queue.length > 0) {
    const id = queue.shift()!;
    const state = asl.States[id]!;
    if (ends(state)) shortest = Math.min(shortest, dist.get(id)!);
    for (const next of aslSuccessors(state)) {
      if (!dist.has(next)) {
        dist.set(next, dist.get(id)! + 1);
        queue.push(next);
      }
    }
  }
  // Longest: over the graph with the edges that close a loop (found by depth-first search) left out.
  const memo = new Map<string, number>();
  const onPath = new Set<string>();
  const longestFrom = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    onPath.add(id);
    const state = asl.States[id]!;
    let best = ends(state) ? 1 : -Infinity;
    for (const next of aslSuccessors(state)) if (!onPath.has(next)) best = Math.max(best, 1 + longestFrom(next));
    onPath.delete(id);
    memo.set(id, best);
    return best;
  };
  return { happy, shortest, longest: longestFrom(asl.StartAt) };
}
