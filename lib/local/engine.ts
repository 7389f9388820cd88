import './engine-polyfill.js';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type RunOptions,
} from 'aws-local-stepfunctions';
import {
  DefinitionNotSupportedError,
  canonicalJson,
  prepareDefinition,
  type JsonValue,
  type TaskSpec,
} from './engine-definition.js';

export type { JsonValue } from './engine-definition.js';

/**
 * The local stand-in for Step Functions Standard: runs the same compiled ASL as AWS on
 * aws-local-stepfunctions, with Lambda tasks handed to `invoke` and task tokens issued here
 * (the library has no `$$.Task.Token`).
 */

/**
 * Calls the activity function named by `functionArn` with the task's payload and returns what it
 * returns. An error it throws fails the state under the error's `name`, as a Lambda function's
 * error type does on AWS, so `Retry` and `Catch` match it.
 */
export type ActivityInvoker = (functionArn: string, payload: JsonValue) => Promise<unknown>;

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface ExecutionResult {
  executionArn: string;
  status: Exclude<ExecutionStatus, 'RUNNING'>;
  output?: JsonValue;
  error?: string;
  cause?: string;
  /** Billable state transitions: states entered plus retries, as Step Functions Standard counts them. */
  transitions: number;
  startDate: Date;
  stopDate: Date;
}

export interface ExecutionDescription {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  input: JsonValue;
  output?: JsonValue;
  error?: string;
  cause?: string;
  transitions: number;
  /** The state last entered (the one running, while RUNNING). */
  currentState?: string;
  startDate: Date;
  stopDate?: Date;
}

/**
 * One event of an execution's history, as GetExecutionHistory would list it: what Step Functions
 * keeps (for 90 days on AWS) of the data that went through the execution. `input` and `output`
 * are a state's or the execution's; `parameters` a task's input after Parameters (the Lambda
 * payload), `output` of a task event its result (the function's answer, or SendTaskSuccess's
 * `output`); `error` and `cause` a failure's.
 */
export interface HistoryEvent {
  id: number;
  type:
    | 'ExecutionStarted'
    | 'ExecutionSucceeded'
    | 'ExecutionFailed'
    | 'ExecutionAborted'
    | 'StateEntered'
    | 'StateExited'
    | 'StateFailed'
    | 'StateRetried'
    | 'StateCaught'
    | 'TaskScheduled'
    | 'TaskSucceeded'
    | 'TaskFailed';
  timestamp: Date;
  stateName?: string;
  input?: JsonValue;
  output?: JsonValue;
  parameters?: JsonValue;
  error?: string;
  cause?: string;
}

export interface WaitingTask {
  taskToken: string;
  executionArn: string;
  stateName: string;
  since: Date;
}

/** Error names follow the Step Functions API's, so callers handle both targets alike. */
export type LocalStepFunctionsErrorName =
  | 'InvalidName'
  | 'InvalidDefinition'
  | 'ValidationException'
  | 'StateMachineAlreadyExists'
  | 'StateMachineDoesNotExist'
  | 'ExecutionAlreadyExists'
  | 'ExecutionDoesNotExist'
  | 'InvalidExecutionInput'
  | 'InvalidOutput'
  | 'TaskDoesNotExist'
  | 'TaskTimedOut'
  | 'EngineShutDown';

/** The error a state fails with when its input or output is over MAX_PAYLOAD_BYTES. */
export const DATA_LIMIT_EXCEEDED = 'States.DataLimitExceeded';

/** Step Functions' limit on a state machine definition (CreateStateMachine's `definition`), in characters. */
export const MAX_DEFINITION_LENGTH = 1_048_576;

/**
 * Step Functions' payload quota: 256 KiB of UTF-8 JSON for an execution's input and output, a
 * state's input (after Parameters) and output, a task's result, and SendTaskSuccess's `output`.
 */
export const MAX_PAYLOAD_BYTES = 262_144;

/** A value's size as Step Functions counts it: its JSON text in UTF-8 bytes. */
export function payloadBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

export class LocalStepFunctionsError extends Error {
  override readonly name: LocalStepFunctionsErrorName;
  constructor(name: LocalStepFunctionsErrorName, message: string) {
    super(message);
    this.name = name;
  }
}

export interface LocalStepFunctionsOptions {
  invoke: ActivityInvoker;
  now?: () => Date;
  region?: string;
  accountId?: string;
  /** Finished executions kept for describeExecution (oldest dropped first); their names stay taken. */
  retainFinishedExecutions?: number;
}

type LocalHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
type Run = ReturnType<StateMachine['run']>;

interface MachineRecord {
  arn: string;
  name: string;
  canonical: string;
  runnable: StateMachine;
  tasks: Map<string, TaskSpec>;
  executionNames: Set<string>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

interface TokenRecord {
  token: string;
  execution: ExecutionRecord;
  stateName: string;
  since: Date;
  /** The state timed out: the token answers TaskTimedOut until the execution ends. */
  timedOut: boolean;
  timer: NodeJS.Timeout | undefined;
  outcome: Deferred<JsonValue>;
}

interface ExecutionRecord {
  arn: string;
  name: string;
  machine: MachineRecord;
  input: JsonValue;
  status: ExecutionStatus;
  stopping: { error?: string; cause?: string } | undefined;
  run: Run | undefined;
  result: ExecutionResult | undefined;
  transitions: number;
  currentState: string | undefined;
  tokens: Set<TokenRecord>;
  startDate: Date;
  history: HistoryEvent[];
}

// Execution and state machine names as AWS accepts them: 1-80 characters, none of these.
const FORBIDDEN_NAME = /[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]/u;

function checkName(name: unknown, what: string): asserts name is string {
  if (typeof name !== 'string' || name.length < 1 || name.length > 80 || FORBIDDEN_NAME.test(name)) {
    throw new LocalStepFunctionsError('InvalidName', `Invalid ${what} name: ${JSON.stringify(name)}`);
  }
}

/** A JSON copy, as the value would be after crossing the Step Functions or Lambda API. */
function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('value is not JSON');
  return JSON.parse(text) as JsonValue;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // A rejection may land before the library awaits the promise; this keeps it from counting as unhandled.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** An error the library raises in the state under `name`, with `cause` as its Cause. */
function stateError(name: string, cause: string): Error {
  const err = new Error(cause);
  err.name = name;
  return err;
}

/**
 * An error no Retry or Catch may handle (the library reads these two flags): used to unwind a
 * state whose execution has already ended, and for malformed task parameters, which AWS also
 * reports as the uncatchable States.Runtime.
 */
function terminalError(name: string, cause: string): Error {
  return Object.assign(stateError(name, cause), { isRetryable: false, isCatchable: false });
}

/** An activity's error as Step Functions reports a Lambda function error: its type, and the Node runtime's error JSON as the cause. */
function functionError(err: unknown): Error {
  const errorType = err instanceof Error && err.name ? err.name : 'Error';
  const errorMessage = err instanceof Error ? err.message : String(err);
  const trace = err instanceof Error && err.stack ? err.stack.split('\n') : [];
  return stateError(errorType, JSON.stringify({ errorType, errorMessage, trace }));
}

/**
 * A state's data over the payload quota: States.DataLimitExceeded, which Step Functions treats as
 * terminal (`States.ALL` does not catch it, and it is not retried). The compiled state machines
 * never name it in a Catch, so here no Retry or Catch matches it at all.
 */
function checkPayload(state: string, what: string, value: unknown): void {
  const size = payloadBytes(value);
  if (size > MAX_PAYLOAD_BYTES) {
    throw terminalError(DATA_LIMIT_EXCEEDED, `${state}: the ${what} is ${size} bytes, over Step Functions' quota of ${MAX_PAYLOAD_BYTES}`);
  }
}

type Outcome = Omit<ExecutionResult, 'executionArn' | 'transitions' | 'startDate' | 'stopDate'>;

function abortedOutcome(execution: ExecutionRecord): Outcome {
  const { error, cause } = execution.stopping ?? {};
  return { status: 'ABORTED', ...(error !== undefined && { error }), ...(cause !== undefined && { cause }) };
}

function lambdaParameters(state: string, parameters: JsonValue): { functionName: string; payload: JsonValue } {
  const p = typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters) ? parameters : {};
  if (typeof p.FunctionName !== 'string' || !p.FunctionName) {
    throw terminalError('States.Runtime', `${state}: the Lambda task's Parameters have no FunctionName`);
  }
  return { functionName: p.FunctionName, payload: p.Payload ?? {} };
}

function replaceString(value: JsonValue, from: string, to: string): JsonValue {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((v) => replaceString(v, from, to));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceString(v, from, to)]));
  }
  return value;
}

export class LocalStepFunctions {
  private readonly invoke: ActivityInvoker;
  private readonly now: () => Date;
  private readonly arnPrefix: string;
  private readonly retainFinished: number;
  /**
   * What `$$.Task.Token` resolves to inside the library; swapped for a real token in the task's
   * parameters. Random per engine so no activity data can collide with it by accident.
   */
  private readonly tokenPlaceholder = `local-sfn-task-token-${randomBytes(16).toString('hex')}`;
  private readonly machines = new Map<string, MachineRecord>();
  private readonly machinesByName = new Map<string, MachineRecord>();
  private readonly executions = new Map<string, ExecutionRecord>();
  private readonly finished: string[] = [];
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly done = new Map<string, Promise<ExecutionResult>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(opts: LocalStepFunctionsOptions) {
    this.invoke = opts.invoke;
    this.now = opts.now ?? (() => new Date());
    this.arnPrefix = `arn:aws:states:${opts.region ?? 'local'}:${opts.accountId ?? '000000000000'}`;
    this.retainFinished = opts.retainFinishedExecutions ?? 10_000;
  }

  /**
   * Validates the definition with the library (as CreateStateMachine would) and registers it.
   * Idempotent: the same definition under the same name gives the same ARN; a different one throws
   * StateMachineAlreadyExists.
   */
  createStateMachine(name: string, definition: object): { stateMachineArn: string } {
    this.assertOpen();
    checkName(name, 'state machine');
    let canonical: string;
    try {
      canonical = canonicalJson(definition);
    } catch {
      throw new LocalStepFunctionsError('InvalidDefinition', `${name}: the definition is not JSON`);
    }
    // CreateStateMachine takes a `definition` of at most 1,048,576 characters (the ASL as sent:
    // JSON text); AWS refuses a longer one before looking at it, and so does this engine.
    const sent = JSON.stringify(definition).length;
    if (sent > MAX_DEFINITION_LENGTH) {
      throw new LocalStepFunctionsError(
        'ValidationException',
        `${name}: the definition is ${sent} characters; Step Functions takes at most ${MAX_DEFINITION_LENGTH}`,
      );
    }
    const existing = this.machinesByName.get(name);
    if (existing) {
      if (existing.canonical === canonical) return { stateMachineArn: existing.arn };
      throw new LocalStepFunctionsError('StateMachineAlreadyExists', `State machine ${name} already exists with another definition`);
    }
    try {
      new StateMachine(JSON.parse(canonical));
    } catch (err) {
      throw new LocalStepFunctionsError('InvalidDefinition', `${name}: ${(err as Error).message}`);
    }
    let prepared: ReturnType<typeof prepareDefinition>;
    try {
      prepared = prepareDefinition(JSON.parse(canonical) as Record<string, unknown>);
    } catch (err) {
      if (err instanceof DefinitionNotSupportedError) {
        throw new LocalStepFunctionsError('InvalidDefinition', `${name}: ${err.message}`);
      }
      throw err;
    }
    const machine: MachineRecord = {
      arn: `${this.arnPrefix}:stateMachine:${name}`,
      name,
      canonical,
      // Already validated above, in the form AWS would see; the runnable copy differs only in timeouts.
      runnable: new StateMachine(prepared.runnable, { validationOptions: { noValidate: true } }),
      tasks: prepared.tasks,
      executionNames: new Set(),
    };
    this.machines.set(machine.arn, machine);
    this.machinesByName.set(name, machine);
    return { stateMachineArn: machine.arn };
  }

  /**
   * Starts an execution; it runs from the next turn of the event loop, as StartExecution returns
   * before any state runs. `done` settles when it ends and never rejects.
   */
  startExecution(stateMachineArn: string, input: unknown = {}, opts: { name?: string } = {}): { executionArn: string; done: Promise<ExecutionResult> } {
    this.assertOpen();
    const machine = this.machines.get(stateMachineArn);
    if (!machine) throw new LocalStepFunctionsError('StateMachineDoesNotExist', `State machine does not exist: ${stateMachineArn}`);
    const name = opts.name ?? randomUUID();
    checkName(name, 'execution');
    if (machine.executionNames.has(name)) {
      throw new LocalStepFunctionsError('ExecutionAlreadyExists', `Execution already exists: ${name}`);
    }
    let inputJson: JsonValue;
    try {
      inputJson = toJson(input);
    } catch {
      throw new LocalStepFunctionsError('InvalidExecutionInput', 'The execution input is not JSON');
    }
    const size = payloadBytes(inputJson);
    if (size > MAX_PAYLOAD_BYTES) {
      throw new LocalStepFunctionsError(
        'ValidationException',
        `1 validation error detected: Value at 'input' failed to satisfy constraint: Member must have length less than or equal to ${MAX_PAYLOAD_BYTES} (it is ${size} bytes)`,
      );
    }
    machine.executionNames.add(name);
    const execution: ExecutionRecord = {
      arn: `${this.arnPrefix}:execution:${machine.name}:${name}`,
      name,
      machine,
      input: inputJson,
      status: 'RUNNING',
      stopping: undefined,
      run: undefined,
      result: undefined,
      transitions: 0,
      currentState: undefined,
      tokens: new Set(),
      history: [],
      startDate: this.now(),
    };
    this.executions.set(execution.arn, execution);
    const done = this.runExecution(execution);
    this.done.set(execution.arn, done);
    return { executionArn: execution.arn, done };
  }

  /** Completes a waiting task with `output` as its result. The token is single-use. */
  sendTaskSuccess(taskToken: string, output: unknown): void {
    let outputJson: JsonValue;
    try {
      outputJson = toJson(output);
    } catch {
      throw new LocalStepFunctionsError('InvalidOutput', 'The task output is not JSON');
    }
    // The API refuses an over-size output before it looks at the token: the task keeps waiting.
    const size = payloadBytes(outputJson);
    if (size > MAX_PAYLOAD_BYTES) {
      throw new LocalStepFunctionsError(
        'ValidationException',
        `1 validation error detected: Value at 'output' failed to satisfy constraint: Member must have length less than or equal to ${MAX_PAYLOAD_BYTES} (it is ${size} bytes)`,
      );
    }
    this.takeToken(taskToken).outcome.resolve(outputJson);
  }

  /** Fails a waiting task with `error` (its Retry and Catch apply) and `cause`. The token is single-use. */
  sendTaskFailure(taskToken: string, error: string, cause?: string): void {
    this.takeToken(taskToken).outcome.reject(stateError(error, cause ?? ''));
  }

  /** Aborts a running execution (status ABORTED); its task tokens stop working at once. No-op once it has ended. */
  stopExecution(executionArn: string, opts: { error?: string; cause?: string } = {}): void {
    const execution = this.getExecution(executionArn);
    if (execution.status !== 'RUNNING' || execution.stopping) return;
    execution.stopping = { ...opts };
    execution.run?.abort();
    this.releaseTokens(execution);
  }

  describeExecution(executionArn: string): ExecutionDescription {
    const e = this.getExecution(executionArn);
    const r = e.result;
    return {
      executionArn: e.arn,
      stateMachineArn: e.machine.arn,
      name: e.name,
      status: e.status,
      input: e.input,
      ...(r?.output !== undefined && { output: r.output }),
      ...(r?.error !== undefined && { error: r.error }),
      ...(r?.cause !== undefined && { cause: r.cause }),
      transitions: e.transitions,
      ...(e.currentState !== undefined && { currentState: e.currentState }),
      startDate: e.startDate,
      ...(r && { stopDate: r.stopDate }),
    };
  }

  /**
   * The execution's history, oldest first, as GetExecutionHistory lists it on AWS: every input,
   * output, task parameter, task result and failure cause the execution recorded. Kept as long
   * as the execution is (retainFinishedExecutions).
   */
  getExecutionHistory(executionArn: string): HistoryEvent[] {
    return structuredClone(this.getExecution(executionArn).history);
  }

  /** Tasks waiting for SendTaskSuccess/SendTaskFailure, oldest first; for tests and diagnostics. */
  waitingTasks(executionArn?: string): WaitingTask[] {
    const out: WaitingTask[] = [];
    for (const t of this.tokens.values()) {
      if (t.timedOut || (executionArn !== undefined && t.execution.arn !== executionArn)) continue;
      out.push({ taskToken: t.token, executionArn: t.execution.arn, stateName: t.stateName, since: t.since });
    }
    return out;
  }

  /**
   * Aborts every running execution, waits for activity calls already under way (so the stores
   * they write to can be closed after this), and refuses further work. Returns how many
   * executions it aborted.
   */
  /** The executions a shutdown now would stop. */
  runningCount(): number {
    let n = 0;
    for (const e of this.executions.values()) if (e.status === 'RUNNING' && !e.stopping) n++;
    return n;
  }

  async shutdown(): Promise<number> {
    this.closed = true;
    let aborted = 0;
    for (const e of this.executions.values()) {
      if (e.status === 'RUNNING' && !e.stopping) {
        this.stopExecution(e.arn, { error: 'States.Runtime', cause: 'The local engine shut down' });
        aborted++;
      }
    }
    await Promise.all(this.done.values());
    await Promise.allSettled([...this.inFlight]);
    return aborted;
  }

  private assertOpen(): void {
    if (this.closed) throw new LocalStepFunctionsError('EngineShutDown', 'The local Step Functions engine has shut down');
  }

  private getExecution(executionArn: string): ExecutionRecord {
    const execution = this.executions.get(executionArn);
    if (!execution) throw new LocalStepFunctionsError('ExecutionDoesNotExist', `Execution does not exist: ${executionArn}`);
    return execution;
  }

  private async runExecution(execution: ExecutionRecord): Promise<ExecutionResult> {
    await new Promise<void>((ok) => setImmediate(ok));
    if (execution.stopping) return this.finish(execution, abortedOutcome(execution));

    const machine = execution.machine;
    const handlers: LocalHandlers = {};
    for (const spec of machine.tasks.values()) {
      handlers[spec.stateName] = (input) => this.runTask(execution, spec, input as JsonValue);
    }
    const run = machine.runnable.run(execution.input, {
      overrides: { taskResourceLocalHandlers: handlers },
      context: {
        Execution: { Id: execution.arn, Name: execution.name },
        StateMachine: { Id: machine.arn, Name: machine.name },
        Task: { Token: this.tokenPlaceholder },
      },
    });
    execution.run = run;
    const events = this.countTransitions(execution, run.eventLogs);

    let outcome: Outcome;
    try {
      const output = toJson(await run.result);
      const size = payloadBytes(output);
      // A Pass or Catch state can grow the state without a task after it: its output is checked here.
      outcome =
        size > MAX_PAYLOAD_BYTES
          ? { status: 'FAILED', error: DATA_LIMIT_EXCEEDED, cause: `The execution's output is ${size} bytes, over Step Functions' quota of ${MAX_PAYLOAD_BYTES}` }
          : { status: 'SUCCEEDED', output };
    } catch (err) {
      if (err instanceof ExecutionAbortedError) {
        outcome = abortedOutcome(execution);
      } else if (err instanceof ExecutionTimeoutError) {
        // The execution's own TimeoutSeconds; a state's timeout fails the execution instead.
        outcome = { status: 'TIMED_OUT', error: 'States.Timeout' };
      } else if (err instanceof ExecutionError && err.cause instanceof Error) {
        outcome = { status: 'FAILED', error: err.cause.name, cause: err.cause.message };
      } else {
        outcome = { status: 'FAILED', error: 'States.Runtime', cause: err instanceof Error ? err.message : String(err) };
      }
    }
    // Unblock a state still waiting on a token (abort, execution timeout), so the library's loop
    // and its timers end now rather than when the state would have timed out.
    this.releaseTokens(execution);
    // The library closes its event log before it settles the result, so this ends promptly.
    await events;
    return this.finish(execution, outcome);
  }

  private finish(execution: ExecutionRecord, outcome: Outcome): ExecutionResult {
    const result: ExecutionResult = {
      executionArn: execution.arn,
      ...outcome,
      transitions: execution.transitions,
      startDate: execution.startDate,
      stopDate: this.now(),
    };
    execution.result = result;
    execution.status = result.status;
    execution.run = undefined;
    this.done.delete(execution.arn);
    this.finished.push(execution.arn);
    while (this.finished.length > this.retainFinished) this.executions.delete(this.finished.shift()!);
    return result;
  }

  private async countTransitions(execution: ExecutionRecord, events: Run['eventLogs']): Promise<void> {
    for await (const event of events) {
      this.recordEvent(execution, event);
      // Step Functions Standard bills every state entered and every retry.
      if (event.type === 'StateEntered') {
        execution.transitions++;
        execution.currentState = event.state.name;
      } else if (event.type === 'StateRetried') {
        execution.transitions++;
      }
    }
  }

  private record(execution: ExecutionRecord, event: Omit<HistoryEvent, 'id' | 'timestamp'>): void {
    execution.history.push({ id: execution.history.length + 1, timestamp: this.now(), ...structuredClone(event) });
  }

  private recordEvent(execution: ExecutionRecord, event: Run['eventLogs'] extends AsyncGenerator<infer E> ? E : never): void {
    const state = 'state' in event ? event.state : undefined;
    const failure = 'Error' in event ? { error: String(event.Error), cause: typeof event.Cause === 'string' ? event.Cause : JSON.stringify(event.Cause ?? '') } : {};
    switch (event.type) {
      case 'ExecutionStarted':
        return this.record(execution, { type: 'ExecutionStarted', input: event.input as JsonValue });
      case 'ExecutionSucceeded':
        return this.record(execution, { type: 'ExecutionSucceeded', output: event.output as JsonValue });
      case 'ExecutionFailed':
        return this.record(execution, { type: 'ExecutionFailed', ...failure });
      case 'ExecutionAborted':
      case 'ExecutionTimeout':
        return this.record(execution, { type: 'ExecutionAborted' });
      case 'StateEntered':
      case 'StateExited':
      case 'StateFailed':
      case 'StateRetried':
      case 'StateCaught':
        return this.record(execution, {
          type: event.type,
          stateName: state!.name,
          ...(event.type === 'StateEntered' ? { input: state!.input as JsonValue } : {}),
          ...(event.type === 'StateExited' && state!.output !== undefined ? { output: state!.output as JsonValue } : {}),
          ...failure,
        });
      default:
        return undefined;
    }
  }

  private runTask(execution: ExecutionRecord, spec: TaskSpec, input: JsonValue): Promise<JsonValue> {
    this.record(execution, { type: 'TaskScheduled', stateName: spec.stateName, parameters: input });
    const ran = this.runTaskUnrecorded(execution, spec, input);
    ran.then(
      (output) => this.record(execution, { type: 'TaskSucceeded', stateName: spec.stateName, output }),
      (err: unknown) => this.record(execution, { type: 'TaskFailed', stateName: spec.stateName, error: err instanceof Error ? err.name : 'Error', cause: err instanceof Error ? err.message : String(err) }),
    );
    return ran;
  }

  private runTaskUnrecorded(execution: ExecutionRecord, spec: TaskSpec, input: JsonValue): Promise<JsonValue> {
    if (execution.status !== 'RUNNING' || execution.stopping) {
      // The library retries a state even after an abort; the activity must not run again.
      return Promise.reject(terminalError('States.Runtime', 'The execution has ended'));
    }
    try {
      // The state's input after Parameters: what the task is called with.
      checkPayload(spec.stateName, 'task input (after Parameters)', input);
    } catch (err) {
      return Promise.reject(err);
    }
    switch (spec.kind) {
      case 'lambda-function':
        return this.checkedResult(spec, this.callFunction(spec.resource, input));
      case 'lambda-invoke':
        return this.checkedResult(spec, this.runLambdaInvoke(spec, input));
      case 'lambda-callback':
        // SendTaskSuccess refuses an over-size output itself, so what arrives here fits.
        return this.runCallbackTask(execution, spec, input);
    }
  }

  /** A task's result over the quota fails the state with States.DataLimitExceeded, as on AWS. */
  private async checkedResult(spec: TaskSpec, result: Promise<JsonValue>): Promise<JsonValue> {
    const value = await result;
    checkPayload(spec.stateName, 'task result', value);
    return value;
  }

  /** The optimised Lambda integration's output shape, so `OutputPath: "$.Payload"` means the same as on AWS. */
  private async runLambdaInvoke(spec: TaskSpec, parameters: JsonValue): Promise<JsonValue> {
    const { functionName, payload } = lambdaParameters(spec.stateName, parameters);
    const result = await this.callFunction(functionName, payload);
    return { ExecutedVersion: '$LATEST', Payload: result, StatusCode: 200 };
  }

  /**
   * A `.waitForTaskToken` task: issue a token, put it where the ASL asked for `$$.Task.Token`,
   * invoke the function, then wait for SendTaskSuccess/SendTaskFailure. Must stay synchronous up
   * to the timer (see below).
   */
  private runCallbackTask(execution: ExecutionRecord, spec: TaskSpec, parameters: JsonValue): Promise<JsonValue> {
    // 256 random bits: the token is the capability that completes the step.
    const token = randomBytes(32).toString('base64url');
    const record: TokenRecord = {
      token,
      execution,
      stateName: spec.stateName,
      since: this.now(),
      timedOut: false,
      timer: undefined,
      outcome: deferred<JsonValue>(),
    };
    if (spec.timeoutMs !== undefined) {
      // The library arms its own timer, with the same delay, right after this handler returns; Node
      // runs equal timers in creation order, so this one retires the token in the same turn, just
      // before the library fails the state with its own States.Timeout (the one States.TaskFailed
      // does not match, as on AWS).
      record.timer = setTimeout(() => {
        record.timedOut = true;
        record.timer = undefined;
      }, spec.timeoutMs);
    }
    this.tokens.set(token, record);
    execution.tokens.add(record);
    // Registered before the function runs: it may hand the token on and be answered at once.
    return (async () => {
      try {
        const { functionName, payload } = lambdaParameters(spec.stateName, replaceString(parameters, this.tokenPlaceholder, token));
        await this.callFunction(functionName, payload);
      } catch (err) {
        this.forgetToken(record);
        throw err;
      }
      return record.outcome.promise;
    })();
  }

  private async callFunction(functionArn: string, payload: JsonValue): Promise<JsonValue> {
    const call = (async () => {
      try {
        // Copies both ways, as the Lambda API would: the activity cannot reach the library's state.
        const result = await this.invoke(functionArn, toJson(payload));
        return result === undefined ? null : toJson(result);
      } catch (err) {
        throw functionError(err);
      }
    })();
    this.inFlight.add(call);
    try {
      return await call;
    } finally {
      this.inFlight.delete(call);
    }
  }

  private takeToken(taskToken: string): TokenRecord {
    const record = typeof taskToken === 'string' ? this.tokens.get(taskToken) : undefined;
    if (!record) throw new LocalStepFunctionsError('TaskDoesNotExist', 'Task does not exist anymore');
    if (record.timedOut) throw new LocalStepFunctionsError('TaskTimedOut', 'Task timed out');
    this.forgetToken(record);
    return record;
  }

  private forgetToken(record: TokenRecord): void {
    clearTimeout(record.timer);
    record.timer = undefined;
    this.tokens.delete(record.token);
    record.execution.tokens.delete(record);
  }

  private releaseTokens(execution: ExecutionRecord): void {
    for (const record of [...execution.tokens]) {
      this.forgetToken(record);
      if (!record.timedOut) record.outcome.reject(terminalError('States.Runtime', 'The execution has ended'));
    }
  }
}
