/**
 * Compiles a process definition to Amazon States Language, one state per activity, named by the
 * activity id so an execution's history reads like the definition.
 *
 * The contract the runtime builds on:
 * - The execution's state (`$`) is the instance's session data: `{instance, parameters, vars,
 *   _checks, _faces, _decision?, _errors?, _lastError?}`.
 * - A service activity is a `lambda:invoke` task whose payload is `{activityId, activityType,
 *   inputs, state}`; the activity Lambda returns the whole new session state (`OutputPath
 *   $.Payload`).
 * - A user activity is a `lambda:invoke.waitForTaskToken` task whose payload also carries the
 *   task token; the Lambda records the screen and returns, and the end user's submission
 *   resumes the execution with `SendTaskSuccess(output = the whole new session state)`.
 * - An error boundary event is a `Catch` on the event's ASL error name (the Lambda's error type,
 *   or SendTaskFailure's `error`), which puts `{Error, Cause}` at `$._lastError` and moves on.
 * - A Simple Decider is a `Choice` state.
 */
import {
  OUTCOMES,
  type Activity,
  type Condition,
  type ConditionValue,
  type Outcome,
  type ProcessDefinition,
} from './definition.js';
import { activitySpec, aslErrorName, STEP_TIMEOUT_DEFAULT, STEP_TIMEOUT_INPUT } from './catalogue.js';
import { validateDefinition } from './validate.js';

export { listErrorNames } from './catalogue.js';

export interface CompileOptions {
  /** The one Lambda that runs every activity type (it dispatches on `activityType`). */
  activityFunctionArn: string;
  /** Shown in the state machine's Comment. */
  stateMachineName?: string;
}

export interface AslRetrier {
  ErrorEquals: string[];
  IntervalSeconds: number;
  MaxAttempts: number;
  BackoffRate: number;
}

export interface AslCatcher {
  ErrorEquals: string[];
  ResultPath: string;
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
      activityId: string;
      activityType: string;
      inputs: Record<string, unknown>;
      'state.$': '$';
      'taskToken.$'?: '$$.Task.Token';
    };
  };
  TimeoutSeconds?: number;
  OutputPath?: '$.Payload';
  Retry: AslRetrier[];
  Catch?: AslCatcher[];
}

export type AslChoiceRule = { [op: string]: unknown; Next?: string };

export interface AslChoiceState {
  Type: 'Choice';
  Comment: string;
  Choices: AslChoiceRule[];
  Default: string;
}

export interface AslPassState {
  Type: 'Pass';
  Result: Outcome;
  ResultPath: '$._decision';
  End: true;
}

export type AslState = AslTaskState | AslChoiceState | AslPassState;

export interface AslStateMachine {
  Comment: string;
  StartAt: string;
  States: Record<string, AslState>;
}

/** Lambda's transient failures; the activity's own errors are not retried here. */
export const LAMBDA_RETRY: AslRetrier = {
  ErrorEquals: ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.TooManyRequestsException'],
  IntervalSeconds: 1,
  MaxAttempts: 3,
  BackoffRate: 2,
};

export const LAST_ERROR_PATH = '$._lastError';

/** The state that records a decider outcome, e.g. `Decision PASS` (no activity id has a space). */
export function decisionStateName(outcome: Outcome): string {
  return `Decision ${outcome}`;
}

export function compileDefinition(definition: ProcessDefinition, opts: CompileOptions): AslStateMachine {
  // Idempotent on a validated definition; it keeps a hand-built one from compiling to nonsense.
  const def = validateDefinition(definition);
  const states: Record<string, AslState> = {};
  const outcomes = new Set<Outcome>();

  for (const [id, activity] of Object.entries(def.activities)) {
    const spec = activitySpec(activity.type)!;
    const comment = activity.name ?? spec.displayName;
    if (spec.kind === 'decider') {
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
      .filter((e) => activity.errorEvents?.[e.name] !== undefined)
      .map((e) => ({
        ErrorEquals: [e.aslError, ...(e.alsoCatches ?? [])],
        ResultPath: LAST_ERROR_PATH,
        Next: activity.errorEvents![e.name]!,
      }));
    const timeout = activity.inputs[STEP_TIMEOUT_INPUT];
    states[id] = {
      Type: 'Task',
      Comment: comment,
      Resource: user ? 'arn:aws:states:::lambda:invoke.waitForTaskToken' : 'arn:aws:states:::lambda:invoke',
      Parameters: {
        FunctionName: opts.activityFunctionArn,
        Payload: {
          activityId: id,
          activityType: activity.type,
          inputs: activity.inputs,
          'state.$': '$',
          ...(user ? { 'taskToken.$': '$$.Task.Token' as const } : {}),
        },
      },
      ...(user ? { TimeoutSeconds: typeof timeout === 'number' ? timeout : STEP_TIMEOUT_DEFAULT } : { OutputPath: '$.Payload' as const }),
      Retry: [{ ...LAMBDA_RETRY, ErrorEquals: [...LAMBDA_RETRY.ErrorEquals] }],
      ...(catchers.length > 0 ? { Catch: catchers } : {}),
      ...transition(activity),
    };
  }

  // The only states that are not activities. A Choice state cannot write data, and the decision
  // must be in the execution's output (`_decision`), so each outcome in use gets one terminal
  // Pass state, shared by every decider: at most three, one transition per decision.
  for (const outcome of OUTCOMES) {
    if (outcomes.has(outcome)) {
      states[decisionStateName(outcome)] = { Type: 'Pass', Result: outcome, ResultPath: '$._decision', End: true };
    }
  }

  const title = `${def.name} v${def.version}`;
  return {
    Comment: `${opts.stateMachineName ? `${opts.stateMachineName}: ` : ''}${title}. Compiled from the process definition; do not edit.`,
    StartAt: def.startActivityId,
    States: states,
  };
}

function transition(activity: Activity): AslTransition {
  return activity.next === undefined ? { End: true } : { Next: activity.next };
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
  if ('isPresent' in c) return { Variable: path, IsPresent: c.isPresent };
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
 * The state transitions Step Functions bills for the happy path: from the start activity,
 * follow `next` only (no error route is taken, no retry happens), one transition per state
 * entered, until an activity without `next` ends the execution. A Simple Decider on the way
 * costs two: its Choice state and one `Decision <OUTCOME>` state, whichever outcome (the rules
 * decide only which, not how many). Throws when the `next` chain loops, as it then has no end.
 */
export function happyPathTransitions(definition: ProcessDefinition): number {
  const def = validateDefinition(definition);
  const seen = new Set<string>();
  let id: string | undefined = def.startActivityId;
  let transitions = 0;
  while (id !== undefined) {
    if (seen.has(id)) throw new Error(`The next chain of ${def.name} v${def.version} loops at "${id}"; it has no happy path.`);
    seen.add(id);
    const activity: Activity = def.activities[id]!;
    transitions += activitySpec(activity.type)!.kind === 'decider' ? 2 : 1;
    id = activity.next;
  }
  return transitions;
}
