import type { StateMachineDefinition } from 'aws-local-stepfunctions';

/**
 * How a compiled state machine is made runnable by aws-local-stepfunctions without changing what
 * it means on AWS: every Task state gets a local handler (nothing ever calls real AWS), and task
 * timeouts are rewritten where the library's defaults or Node's timers would differ from AWS.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The Task resources the local engine can run; anything else is refused when the machine is created. */
export type TaskKind =
  /** `arn:aws:states:::lambda:invoke`: output is `{ Payload, StatusCode, ExecutedVersion }`. */
  | 'lambda-invoke'
  /** `arn:aws:states:::lambda:invoke.waitForTaskToken`: output is what SendTaskSuccess sends. */
  | 'lambda-callback'
  /** A bare Lambda function ARN as the resource: output is the function's return value. */
  | 'lambda-function';

export interface TaskSpec {
  stateName: string;
  kind: TaskKind;
  resource: string;
  /** The state's timeout as the library will apply it, or undefined when it comes from a path. */
  timeoutMs: number | undefined;
}

export interface PreparedDefinition {
  /** The definition handed to the library (timeouts rewritten, see `prepareDefinition`). */
  runnable: StateMachineDefinition;
  /** Every Task state, by name (the library keys its local handlers by state name). */
  tasks: Map<string, TaskSpec>;
}

/**
 * The largest delay Node's `setTimeout` honours (2^31-1 ms, about 24.8 days). A longer one fires
 * after 1 ms instead, which would turn a 30-day user step into an immediate States.Timeout.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

const LAMBDA_INVOKE = /^arn:aws[a-z-]*:states:[a-z0-9-]*:(\d{12})?:lambda:invoke$/;
const LAMBDA_CALLBACK = /^arn:aws[a-z-]*:states:[a-z0-9-]*:(\d{12})?:lambda:invoke\.waitForTaskToken$/;
const LAMBDA_FUNCTION = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$/;

export class DefinitionNotSupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DefinitionNotSupportedError';
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function taskKind(resource: unknown): TaskKind | undefined {
  if (typeof resource !== 'string') return undefined;
  if (LAMBDA_INVOKE.test(resource)) return 'lambda-invoke';
  if (LAMBDA_CALLBACK.test(resource)) return 'lambda-callback';
  if (LAMBDA_FUNCTION.test(resource)) return 'lambda-function';
  return undefined;
}

/**
 * The library's default task timeout is 60 s, while AWS waits practically forever (99999999 s)
 * when TimeoutSeconds is absent; and timeouts beyond Node's timer range must be clamped.
 */
function effectiveTimeout(seconds: unknown): number {
  if (typeof seconds !== 'number') return MAX_TIMER_SECONDS;
  return Math.min(seconds, MAX_TIMER_SECONDS);
}

function prepareStates(states: unknown, tasks: Map<string, TaskSpec>, where: string): void {
  if (!isObject(states)) return;
  for (const [stateName, state] of Object.entries(states)) {
    if (!isObject(state)) continue;
    if (state.QueryLanguage === 'JSONata') {
      throw new DefinitionNotSupportedError(`${where}${stateName}: aws-local-stepfunctions runs JSONPath states only, not JSONata`);
    }
    if (state.Type === 'Task') {
      const kind = taskKind(state.Resource);
      if (!kind) {
        throw new DefinitionNotSupportedError(
          `${where}${stateName}: the local engine runs only Lambda tasks (lambda:invoke, lambda:invoke.waitForTaskToken or a function ARN), not ${String(state.Resource)}`,
        );
      }
      if ('HeartbeatSeconds' in state || 'HeartbeatSecondsPath' in state) {
        // Ignoring it would let a journey pass locally that fails on AWS for want of heartbeats.
        throw new DefinitionNotSupportedError(`${where}${stateName}: HeartbeatSeconds is not supported by the local engine`);
      }
      let timeoutMs: number | undefined;
      if ('TimeoutSecondsPath' in state) {
        if (kind === 'lambda-callback') {
          // The engine must expire the task token exactly when the library times the state out.
          throw new DefinitionNotSupportedError(
            `${where}${stateName}: TimeoutSecondsPath on a waitForTaskToken task is not supported by the local engine; use TimeoutSeconds`,
          );
        }
      } else {
        const seconds = effectiveTimeout(state.TimeoutSeconds);
        state.TimeoutSeconds = seconds;
        // The same expression the library uses, so both timers get the very same delay.
        timeoutMs = seconds * 1e3;
      }
      const spec: TaskSpec = { stateName, kind, resource: String(state.Resource), timeoutMs };
      const seen = tasks.get(stateName);
      if (seen && (seen.kind !== spec.kind || seen.resource !== spec.resource || seen.timeoutMs !== spec.timeoutMs)) {
        // The library finds a local handler by state name only, across nested branches too.
        throw new DefinitionNotSupportedError(`${where}${stateName}: two different Task states share this name`);
      }
      tasks.set(stateName, spec);
    } else if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
      state.Branches.forEach((branch, i) => {
        if (isObject(branch)) prepareStates(branch.States, tasks, `${where}${stateName}.Branches[${i}].`);
      });
    } else if (state.Type === 'Map') {
      const processor = state.ItemProcessor ?? state.Iterator;
      if (isObject(processor)) prepareStates(processor.States, tasks, `${where}${stateName}.ItemProcessor.`);
    }
  }
}

/**
 * Takes a definition the library has already validated (a deep copy: it is modified) and returns
 * the runnable form and its Task states. Refuses what the local engine cannot run faithfully.
 */
export function prepareDefinition(definition: Json): PreparedDefinition {
  const tasks = new Map<string, TaskSpec>();
  if (definition.QueryLanguage === 'JSONata') {
    throw new DefinitionNotSupportedError('aws-local-stepfunctions runs JSONPath state machines only, not JSONata');
  }
  if (typeof definition.TimeoutSeconds === 'number') {
    definition.TimeoutSeconds = effectiveTimeout(definition.TimeoutSeconds);
  }
  prepareStates(definition.States, tasks, '');
  return { runnable: definition as unknown as StateMachineDefinition, tasks };
}

/** JSON text with object keys sorted, so two equal definitions compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}
