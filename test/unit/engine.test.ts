import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalStepFunctions, MAX_DEFINITION_LENGTH, MAX_PAYLOAD_BYTES, payloadBytes, type JsonValue } from '../../lib/local/engine.js';
import { compileDefinition } from '../../statemachines/compile.js';
import { TransientActivityError } from '../../functions/activities/contract.js';

// Hand-written ASL in the compiler's shape: the session object is the state, each service step
// is a lambda:invoke returning the whole new session, each user step a waitForTaskToken task.
const FN = 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-activity';
/** The function a compiled state machine's last state invokes to record the outcome. */
const END = 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-execution-end';
const INVOKE = 'arn:aws:states:::lambda:invoke';
const WAIT = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

type Session = { vars: Record<string, JsonValue>; [key: string]: JsonValue };
type Payload = { activityId: string; activityType: string; inputs: Record<string, JsonValue>; state: Session; taskToken?: string };
type Activity = (payload: Payload) => Promise<unknown>;
type Next = { Next: string } | { End: true };

function serviceStep(activityId: string, activityType: string, next: Next, extra: object = {}): object {
  return {
    Type: 'Task',
    Resource: INVOKE,
    Parameters: { FunctionName: FN, Payload: { activityId, activityType, inputs: {}, 'state.$': '$' } },
    OutputPath: '$.Payload',
    Retry: [{ ErrorEquals: ['Lambda.ServiceException', 'Lambda.TooManyRequestsException'], IntervalSeconds: 1, MaxAttempts: 3, BackoffRate: 2 }],
    ...extra,
    ...next,
  };
}

function userStep(activityId: string, timeoutSeconds: number, next: Next, extra: object = {}): object {
  return {
    Type: 'Task',
    Resource: WAIT,
    Parameters: {
      FunctionName: FN,
      Payload: { activityId, activityType: 'DATA_FORM', inputs: {}, 'state.$': '$', 'taskToken.$': '$$.Task.Token' },
    },
    TimeoutSeconds: timeoutSeconds,
    ...extra,
    ...next,
  };
}

const decision = (value: string): object => ({ Type: 'Pass', Result: value, ResultPath: '$._decision', End: true });

class NamedError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

function thrownName(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as Error).name;
  }
  return undefined;
}

let activities: Record<string, Activity>;
let calls: { functionArn: string; payload: Payload }[];
let recorded: JsonValue[];
let engine: LocalStepFunctions;

const session = (vars: Record<string, JsonValue> = {}): Session => ({ vars });
const withVar = (p: Payload, key: string, value: JsonValue): Session => ({ ...p.state, vars: { ...p.state.vars, [key]: value } });

async function waitingToken(executionArn: string, stateName?: string): Promise<string> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const task = engine.waitingTasks(executionArn).find((t) => stateName === undefined || t.stateName === stateName);
    if (task) return task.taskToken;
    if (Date.now() > deadline) throw new Error(`no waiting task in ${executionArn}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

beforeEach(() => {
  activities = {};
  calls = [];
  recorded = [];
  engine = new LocalStepFunctions({
    invoke: async (functionArn, payload) => {
      if (functionArn === END) {
        recorded.push(payload);
        return null;
      }
      const p = payload as Payload;
      calls.push({ functionArn, payload: p });
      const activity = activities[p.activityId];
      if (!activity) throw new Error(`no activity ${p.activityId}`);
      return activity(p);
    },
  });
});

afterEach(async () => {
  await engine.shutdown();
});

describe('LocalStepFunctions', () => {
  it('runs two service steps and returns the final session state', async () => {
    activities.first = async (p) => withVar(p, 'first', 1);
    activities.second = async (p) => withVar(p, 'second', (p.state.vars.first as number) + 1);
    const { stateMachineArn } = engine.createStateMachine('two-steps', {
      StartAt: 'First',
      States: { First: serviceStep('first', 'SET', { Next: 'Second' }), Second: serviceStep('second', 'SET', { End: true }) },
    });

    const result = await engine.startExecution(stateMachineArn, { ...session(), instance: { id: 'i1' } }).done;

    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { instance: { id: 'i1' }, vars: { first: 1, second: 2 } } });
    expect(calls.map((c) => [c.functionArn, c.payload.activityId, c.payload.activityType])).toEqual([
      [FN, 'first', 'SET'],
      [FN, 'second', 'SET'],
    ]);
    expect(calls[1]!.payload.state).toEqual({ instance: { id: 'i1' }, vars: { first: 1 } });
  });

  it('gives a lambda:invoke task the output shape of the AWS integration', async () => {
    activities.a = async () => ({ ok: true });
    const { stateMachineArn } = engine.createStateMachine('shape', {
      StartAt: 'A',
      States: { A: { ...serviceStep('a', 'X', { End: true }), OutputPath: undefined, ResultPath: '$.raw' } },
    });

    const result = await engine.startExecution(stateMachineArn, session()).done;

    expect(result.output).toEqual({ vars: {}, raw: { ExecutedVersion: '$LATEST', Payload: { ok: true }, StatusCode: 200 } });
  });

  it('routes an error thrown with a name to the Catch that names it', async () => {
    activities.register = async () => {
      throw new NamedError('ExtIdNotUnique', 'external id already used');
    };
    const { stateMachineArn } = engine.createStateMachine('catch', {
      StartAt: 'Register',
      States: {
        Register: serviceStep('register', 'REGISTER', { Next: 'Accept' }, {
          Catch: [
            { ErrorEquals: ['SomethingElse'], ResultPath: '$._lastError', Next: 'Accept' },
            { ErrorEquals: ['ExtIdNotUnique'], ResultPath: '$._lastError', Next: 'Decline' },
          ],
        }),
        Accept: decision('PASS'),
        Decline: decision('FAIL'),
      },
    });

    const result = await engine.startExecution(stateMachineArn, session()).done;

    expect(result.status).toBe('SUCCEEDED');
    const output = result.output as { _decision: string; _lastError: { Error: string; Cause: string } };
    expect(output._decision).toBe('FAIL');
    expect(output._lastError.Error).toBe('ExtIdNotUnique');
    // The Cause is the Lambda Node.js runtime's error JSON, as on AWS.
    expect(JSON.parse(output._lastError.Cause)).toMatchObject({ errorType: 'ExtIdNotUnique', errorMessage: 'external id already used' });
  });

  it('fails the execution with the error and cause when no Catch matches', async () => {
    activities.check = async () => {
      throw new NamedError('DocumentUnreadable', 'image too blurry');
    };
    const { stateMachineArn } = engine.createStateMachine('uncaught', {
      StartAt: 'Check',
      States: {
        Check: serviceStep('check', 'CHECK', { Next: 'Done' }, { Catch: [{ ErrorEquals: ['Other'], Next: 'Done' }] }),
        Done: decision('PASS'),
      },
    });

    const { executionArn, done } = engine.startExecution(stateMachineArn, session());
    const result = await done;

    expect(result).toMatchObject({ status: 'FAILED', error: 'DocumentUnreadable' });
    expect(result.output).toBeUndefined();
    expect(JSON.parse(result.cause!)).toMatchObject({ errorMessage: 'image too blurry' });
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: 'DocumentUnreadable' });
  });

  it('waits on a user step until sendTaskSuccess and continues with the output sent', async () => {
    activities.form = async () => null; // records the screen; the answer comes by token
    activities.after = async (p) => withVar(p, 'after', true);
    const { stateMachineArn } = engine.createStateMachine('user-step', {
      StartAt: 'Form',
      States: { Form: userStep('form', 60, { Next: 'After' }), After: serviceStep('after', 'SET', { End: true }) },
    });

    const { executionArn, done } = engine.startExecution(stateMachineArn, session());
    const token = await waitingToken(executionArn, 'Form');
    await new Promise((r) => setTimeout(r, 20));
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'RUNNING', currentState: 'Form' });
    expect(calls.map((c) => c.payload.activityId)).toEqual(['form']);

    engine.sendTaskSuccess(token, { vars: { name: 'Ada' } });
    const result = await done;

    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { vars: { name: 'Ada', after: true } } });
  });

  it('lists the history as GetExecutionHistory would: inputs, task parameters, results sent by token, failures and the output', async () => {
    activities.form = async () => null;
    activities.check = async () => {
      throw new NamedError('DocumentUnreadable', 'image too blurry');
    };
    const { stateMachineArn } = engine.createStateMachine('history', {
      StartAt: 'Form',
      States: {
        Form: userStep('form', 60, { Next: 'Check' }),
        Check: serviceStep('check', 'CHECK', { Next: 'Done' }, { Catch: [{ ErrorEquals: ['DocumentUnreadable'], ResultPath: '$._lastError', Next: 'Done' }] }),
        Done: decision('REVIEW'),
      },
    });
    const { executionArn, done } = engine.startExecution(stateMachineArn, session({ started: 'input-value' }));
    engine.sendTaskSuccess(await waitingToken(executionArn, 'Form'), { vars: { typed: 'sent-by-token' } });
    await done;
    const history = engine.getExecutionHistory(executionArn);
    const types = history.map((e) => `${e.type}${e.stateName ? ` ${e.stateName}` : ''}`);
    expect(types).toEqual(expect.arrayContaining(['ExecutionStarted', 'StateEntered Form', 'TaskScheduled Form', 'TaskSucceeded Form', 'TaskFailed Check', 'StateEntered Done', 'ExecutionSucceeded']));
    expect(history.find((e) => e.type === 'ExecutionStarted')?.input).toEqual({ vars: { started: 'input-value' } });
    expect(history.find((e) => e.type === 'TaskSucceeded' && e.stateName === 'Form')?.output).toEqual({ vars: { typed: 'sent-by-token' } });
    expect(history.find((e) => e.type === 'TaskFailed')).toMatchObject({ error: 'DocumentUnreadable', cause: expect.stringContaining('image too blurry') });
    expect(history.find((e) => e.type === 'ExecutionSucceeded')?.output).toMatchObject({ vars: { typed: 'sent-by-token' }, _decision: 'REVIEW' });
    expect(history.map((e) => e.id)).toEqual(history.map((_, i) => i + 1));
    expect(() => engine.getExecutionHistory(`${executionArn}-other`)).toThrow(expect.objectContaining({ name: 'ExecutionDoesNotExist' }));
  });

  it('hands the activity a random task token that works once', async () => {
    activities.form = async () => null;
    const { stateMachineArn } = engine.createStateMachine('tokens', {
      StartAt: 'Form',
      States: { Form: userStep('form', 60, { End: true }) },
    });

    const one = engine.startExecution(stateMachineArn, session());
    const two = engine.startExecution(stateMachineArn, session());
    const tokenOne = await waitingToken(one.executionArn);
    const tokenTwo = await waitingToken(two.executionArn);

    const sent = calls.map((c) => c.payload.taskToken);
    expect(sent).toHaveLength(2);
    expect(new Set(sent)).toEqual(new Set([tokenOne, tokenTwo]));
    expect(tokenOne).not.toBe(tokenTwo);
    for (const token of [tokenOne, tokenTwo]) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits

    engine.sendTaskSuccess(tokenOne, { vars: { n: 1 } });
    expect(thrownName(() => engine.sendTaskSuccess(tokenOne, { vars: { n: 2 } }))).toBe('TaskDoesNotExist');
    expect(thrownName(() => engine.sendTaskFailure(tokenOne, 'Late'))).toBe('TaskDoesNotExist');
    expect(thrownName(() => engine.sendTaskSuccess('not-a-token', {}))).toBe('TaskDoesNotExist');
    expect((await one.done).output).toEqual({ vars: { n: 1 } });

    engine.sendTaskSuccess(tokenTwo, { vars: { n: 3 } });
    expect((await two.done).output).toEqual({ vars: { n: 3 } });
  });

  it('routes sendTaskFailure to the Catch for its error', async () => {
    activities.passcode = async () => null;
    const { stateMachineArn } = engine.createStateMachine('task-failure', {
      StartAt: 'Passcode',
      States: {
        Passcode: userStep('passcode', 60, { Next: 'Accept' }, {
          Catch: [{ ErrorEquals: ['PasscodeExhausted'], ResultPath: '$._lastError', Next: 'Decline' }],
        }),
        Accept: decision('PASS'),
        Decline: decision('FAIL'),
      },
    });

    const { executionArn, done } = engine.startExecution(stateMachineArn, session());
    engine.sendTaskFailure(await waitingToken(executionArn), 'PasscodeExhausted', 'three wrong attempts');
    const result = await done;

    expect(result.output).toMatchObject({
      _decision: 'FAIL',
      _lastError: { Error: 'PasscodeExhausted', Cause: 'three wrong attempts' },
    });
  });

  it('times a user step out with States.Timeout after its TimeoutSeconds', async () => {
    activities.form = async () => null;
    const { stateMachineArn: uncaught } = engine.createStateMachine('timeout-uncaught', {
      StartAt: 'Form',
      States: {
        // States.TaskFailed matches every task error except States.Timeout.
        Form: userStep('form', 1, { Next: 'Accept' }, { Catch: [{ ErrorEquals: ['States.TaskFailed'], Next: 'Accept' }] }),
        Accept: decision('PASS'),
      },
    });
    const { stateMachineArn: caught } = engine.createStateMachine('timeout-caught', {
      StartAt: 'Form',
      States: {
        Form: userStep('form', 1, { Next: 'Accept' }, { Catch: [{ ErrorEquals: ['States.Timeout'], ResultPath: '$._lastError', Next: 'Again' }] }),
        Again: userStep('form', 60, { Next: 'Accept' }),
        Accept: decision('PASS'),
      },
    });
    const { stateMachineArn: executionTimeout } = engine.createStateMachine('timeout-execution', {
      TimeoutSeconds: 1,
      StartAt: 'Form',
      States: { Form: userStep('form', 60, { Next: 'Accept' }), Accept: decision('PASS') },
    });

    const started = Date.now();
    const a = engine.startExecution(uncaught, session());
    const b = engine.startExecution(caught, session());
    const c = engine.startExecution(executionTimeout, session());
    const tokenA = await waitingToken(a.executionArn);
    const tokenB = await waitingToken(b.executionArn, 'Form');

    const resultA = await a.done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // A state's timeout fails the execution; TIMED_OUT is for the execution's own TimeoutSeconds.
    expect(resultA).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    expect(thrownName(() => engine.sendTaskSuccess(tokenA, {}))).toBe('TaskDoesNotExist');

    const tokenAgain = await waitingToken(b.executionArn, 'Again');
    expect(thrownName(() => engine.sendTaskSuccess(tokenB, {}))).toBe('TaskTimedOut');
    engine.sendTaskSuccess(tokenAgain, { vars: {}, _lastError: { Error: 'States.Timeout' } });
    expect((await b.done).output).toMatchObject({ _decision: 'PASS', _lastError: { Error: 'States.Timeout' } });

    expect(await c.done).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(engine.waitingTasks()).toEqual([]);
  });

  it('records the Choice decision in the output', async () => {
    activities.score = async (p) => withVar(p, 'score', p.state.vars.input as number);
    const { stateMachineArn } = engine.createStateMachine('decider', {
      StartAt: 'Score',
      States: {
        Score: serviceStep('score', 'SCORE', { Next: 'Decide' }),
        Decide: {
          Type: 'Choice',
          Choices: [
            { Variable: '$.vars.score', NumericGreaterThanEquals: 80, Next: 'Pass' },
            { Variable: '$.vars.score', NumericGreaterThanEquals: 50, Next: 'Review' },
          ],
          Default: 'Fail',
        },
        Pass: decision('PASS'),
        Review: decision('REVIEW'),
        Fail: decision('FAIL'),
      },
    });

    const outcomes = await Promise.all(
      [90, 60, 10].map(async (input) => (await engine.startExecution(stateMachineArn, session({ input })).done).output),
    );

    expect(outcomes.map((o) => (o as { _decision: string })._decision)).toEqual(['PASS', 'REVIEW', 'FAIL']);
  });

  it("takes a compiled decider's notEquals as holding when the variable is absent, as Step Functions does", async () => {
    const asl = compileDefinition(
      {
        name: 'ne',
        version: 1,
        startActivityId: 'decide',
        activities: { decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: '_checks.face.result', notEquals: 'FAIL' }, outcome: 'PASS' }], default: 'FAIL' } },
      } as never,
      { activityFunctionArn: FN, executionEndFunctionArn: END },
    );
    const { stateMachineArn } = engine.createStateMachine('not-equals', asl as never);
    const run = async (state: JsonValue) => ((await engine.startExecution(stateMachineArn, state).done).output as { _decision: string })._decision;
    expect(await run(session())).toBe('PASS');
    expect(await run({ vars: {}, _checks: { face: { result: 'REVIEW' } } })).toBe('PASS');
    expect(await run({ vars: {}, _checks: { face: { result: 'FAIL' } } })).toBe('FAIL');
    // The last state handed each session, decision included, to the execution-end function.
    expect(recorded.map((p) => (p as { session: { _decision: string } }).session._decision)).toEqual(['PASS', 'PASS', 'FAIL']);
  });

  it("takes a compiled decider's isPresent: false as holding when the variable is absent, as Step Functions does", async () => {
    const asl = compileDefinition(
      {
        name: 'absent',
        version: 1,
        startActivityId: 'decide',
        activities: { decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: 'vars.approved', isPresent: false }, outcome: 'REVIEW' }], default: 'PASS' } },
      } as never,
      { activityFunctionArn: FN, executionEndFunctionArn: END },
    );
    const { stateMachineArn } = engine.createStateMachine('is-present-false', asl as never);
    const run = async (state: JsonValue) => ((await engine.startExecution(stateMachineArn, state).done).output as { _decision: string })._decision;
    expect(await run(session())).toBe('REVIEW');
    expect(await run(session({ approved: true }))).toBe('PASS');
  });

  it('aborts an execution on stopExecution and voids its task token', async () => {
    activities.form = async () => null;
    activities.after = async (p) => p.state;
    const { stateMachineArn } = engine.createStateMachine('stop', {
      StartAt: 'Form',
      States: { Form: userStep('form', 60, { Next: 'After' }), After: serviceStep('after', 'SET', { End: true }) },
    });

    const { executionArn, done } = engine.startExecution(stateMachineArn, session());
    const token = await waitingToken(executionArn);
    engine.stopExecution(executionArn, { error: 'Abandoned', cause: 'end user left' });

    expect(thrownName(() => engine.sendTaskSuccess(token, {}))).toBe('TaskDoesNotExist');
    expect(await done).toMatchObject({ status: 'ABORTED', error: 'Abandoned', cause: 'end user left' });
    expect(engine.describeExecution(executionArn).status).toBe('ABORTED');
    await new Promise((r) => setTimeout(r, 20));
    expect(calls.map((c) => c.payload.activityId)).toEqual(['form']);
  });

  it('counts state transitions, retries included', async () => {
    let attempts = 0;
    activities.flaky = async (p) => {
      attempts++;
      if (attempts === 1) throw new NamedError('Lambda.ServiceException', 'try again');
      return withVar(p, 'flaky', attempts);
    };
    const { stateMachineArn } = engine.createStateMachine('transitions', {
      StartAt: 'Flaky',
      States: {
        Flaky: serviceStep('flaky', 'X', { Next: 'Decide' }),
        Decide: { Type: 'Choice', Choices: [{ Variable: '$.vars.flaky', NumericEquals: 2, Next: 'Pass' }], Default: 'Fail' },
        Pass: decision('PASS'),
        Fail: decision('FAIL'),
      },
    });

    const { executionArn, done } = engine.startExecution(stateMachineArn, session());
    const result = await done;

    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { _decision: 'PASS' }, transitions: 4 }); // 3 states + 1 retry
    expect(engine.describeExecution(executionArn).transitions).toBe(4);
  });

  it('registers a state machine once per name and refuses invalid or different definitions', () => {
    const definition = { StartAt: 'P', States: { P: decision('PASS') } };
    const { stateMachineArn } = engine.createStateMachine('journey-v1', definition);

    expect(engine.createStateMachine('journey-v1', { States: { P: decision('PASS') }, StartAt: 'P' }).stateMachineArn).toBe(stateMachineArn);
    expect(thrownName(() => engine.createStateMachine('journey-v1', { StartAt: 'P', States: { P: decision('FAIL') } }))).toBe(
      'StateMachineAlreadyExists',
    );
    expect(thrownName(() => engine.createStateMachine('broken', { StartAt: 'Nowhere', States: { P: decision('PASS') } }))).toBe(
      'InvalidDefinition',
    );
    const sqs = { Type: 'Task', Resource: 'arn:aws:states:::sqs:sendMessage', Parameters: { QueueUrl: 'q', MessageBody: 'm' }, End: true };
    expect(thrownName(() => engine.createStateMachine('sqs', { StartAt: 'Send', States: { Send: sqs } }))).toBe('InvalidDefinition');
    expect(thrownName(() => engine.createStateMachine('bad name', definition))).toBe('InvalidName');
  });

  it('refuses a definition over Step Functions\u2019 1,048,576 characters, as CreateStateMachine does, and takes one at the limit', () => {
    const sized = (length: number) => {
      const base = { StartAt: 'P', States: { P: { ...decision('PASS'), Comment: '' } } };
      const comment = 'x'.repeat(length - JSON.stringify(base).length);
      const asl = { StartAt: 'P', States: { P: { ...decision('PASS'), Comment: comment } } };
      expect(JSON.stringify(asl).length).toBe(length);
      return asl;
    };
    expect(thrownName(() => engine.createStateMachine('too-large', sized(MAX_DEFINITION_LENGTH + 1)))).toBe('ValidationException');
    expect(engine.createStateMachine('at-the-limit', sized(MAX_DEFINITION_LENGTH)).stateMachineArn).toMatch(/:stateMachine:at-the-limit$/);
  });

  it('refuses to reuse an execution name', async () => {
    const { stateMachineArn } = engine.createStateMachine('names', { StartAt: 'P', States: { P: decision('PASS') } });

    const { executionArn, done } = engine.startExecution(stateMachineArn, {}, { name: 'instance-1' });
    await done;

    expect(executionArn).toMatch(/:execution:names:instance-1$/);
    expect(thrownName(() => engine.startExecution(stateMachineArn, {}, { name: 'instance-1' }))).toBe('ExecutionAlreadyExists');
    expect(thrownName(() => engine.describeExecution(`${executionArn}-x`))).toBe('ExecutionDoesNotExist');
  });

  it('aborts running executions on shutdown and accepts no more', async () => {
    activities.form = async () => null;
    const { stateMachineArn } = engine.createStateMachine('shutdown', {
      StartAt: 'Form',
      States: { Form: userStep('form', 60, { End: true }) },
    });
    const { executionArn, done } = engine.startExecution(stateMachineArn, session());
    await waitingToken(executionArn);

    // It says how many it aborted (the local runtime's stop reports them).
    expect(await engine.shutdown()).toBe(1);

    expect((await done).status).toBe('ABORTED');
    expect(engine.waitingTasks()).toEqual([]);
    expect(thrownName(() => engine.startExecution(stateMachineArn, session()))).toBe('EngineShutDown');
  });
});

describe("LocalStepFunctions and Step Functions' 256 KiB payload quota", () => {
  /** A session whose JSON is exactly `bytes` long in UTF-8 (multi-byte characters count as AWS counts them). */
  const sized = (bytes: number, extra: Record<string, JsonValue> = {}): Session => {
    const base = { vars: {}, ...extra, pad: '' };
    const pad = bytes - payloadBytes(base);
    // Two-byte characters where they fit: the quota is in UTF-8 bytes, not characters.
    const text = 'é'.repeat(Math.floor(pad / 2)) + 'x'.repeat(pad % 2);
    const out = { ...base, pad: text } as Session;
    expect(payloadBytes(out)).toBe(bytes);
    return out;
  };
  const catchAll = { Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$._lastError', Next: 'Caught' }] };

  it('refuses an execution input over the quota, as StartExecution does, and takes one at the limit', async () => {
    const { stateMachineArn } = engine.createStateMachine('input-limit', { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } });
    expect(thrownName(() => engine.startExecution(stateMachineArn, sized(MAX_PAYLOAD_BYTES + 1)))).toBe('ValidationException');
    expect((await engine.startExecution(stateMachineArn, sized(MAX_PAYLOAD_BYTES)).done).status).toBe('SUCCEEDED');
  });

  it('fails the execution with States.DataLimitExceeded when a task result is over the quota, which States.ALL does not catch', async () => {
    let attempts = 0;
    activities.grow = async (p) => {
      attempts++;
      return sized(MAX_PAYLOAD_BYTES + 1, { instance: p.state.instance ?? null });
    };
    const { stateMachineArn } = engine.createStateMachine('result-limit', {
      StartAt: 'Grow',
      States: {
        Grow: serviceStep('grow', 'GROW', { Next: 'Done' }, {
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 0, MaxAttempts: 2 }],
          ...catchAll,
        }),
        Done: decision('PASS'),
        Caught: decision('FAIL'),
      },
    });

    const result = await engine.startExecution(stateMachineArn, session()).done;

    expect(result).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
    expect(result.cause).toMatch(/Grow: the task result is \d+ bytes/);
    // Terminal: neither retried nor caught.
    expect(attempts).toBe(1);
  });

  it('takes a task result at the limit', async () => {
    // The lambda:invoke result wraps the payload; with OutputPath $.Payload the state output is the payload.
    const wrapper = payloadBytes({ ExecutedVersion: '$LATEST', Payload: null, StatusCode: 200 }) - payloadBytes(null);
    activities.grow = async () => sized(MAX_PAYLOAD_BYTES - wrapper);
    const { stateMachineArn } = engine.createStateMachine('result-at-limit', {
      StartAt: 'Grow',
      States: { Grow: serviceStep('grow', 'GROW', { End: true }) },
    });
    expect((await engine.startExecution(stateMachineArn, session()).done).status).toBe('SUCCEEDED');
  });

  it("fails a task whose input after Parameters is over the quota, without calling it", async () => {
    activities.next = async (p) => p.state;
    const { stateMachineArn } = engine.createStateMachine('input-after-parameters', {
      StartAt: 'Call',
      States: {
        Call: {
          ...serviceStep('next', 'NEXT', { End: true }, catchAll),
          // The payload is the state plus the step's inputs: together they are over the quota.
          Parameters: { FunctionName: FN, Payload: { activityId: 'next', activityType: 'NEXT', inputs: { big: 'y'.repeat(1000) }, 'state.$': '$' } },
        },
        Caught: decision('FAIL'),
      },
    });

    const result = await engine.startExecution(stateMachineArn, sized(MAX_PAYLOAD_BYTES - 500)).done;

    expect(result).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
    expect(calls).toEqual([]);
  });

  it('refuses a SendTaskSuccess output over the quota and leaves the task waiting for one that fits', async () => {
    activities.form = async () => null;
    const { stateMachineArn } = engine.createStateMachine('send-limit', {
      StartAt: 'Form',
      States: { Form: userStep('form', 60, { End: true }) },
    });
    const { executionArn, done } = engine.startExecution(stateMachineArn, session());
    const token = await waitingToken(executionArn);

    expect(thrownName(() => engine.sendTaskSuccess(token, sized(MAX_PAYLOAD_BYTES + 1)))).toBe('ValidationException');
    expect(engine.waitingTasks(executionArn).map((t) => t.taskToken)).toEqual([token]);
    engine.sendTaskSuccess(token, sized(MAX_PAYLOAD_BYTES));

    expect((await done).status).toBe('SUCCEEDED');
  });

  it('fails an execution whose last Pass state grows the output over the quota', async () => {
    const { stateMachineArn } = engine.createStateMachine('pass-limit', {
      StartAt: 'Tag',
      States: { Tag: { Type: 'Pass', Result: 'z'.repeat(100), ResultPath: '$.tag', End: true } },
    });

    const result = await engine.startExecution(stateMachineArn, sized(MAX_PAYLOAD_BYTES - 50)).done;

    expect(result).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
  });
});

describe('a compiled Task and Activity.Transient', () => {
  const lookup = {
    name: 'transient',
    version: 1,
    startActivityId: 'lookup',
    activities: { lookup: { type: 'GET_USER', inputs: { 'Store Name': 'customers', 'User ID': 'U1', 'User Key': 'user1' } } },
  };

  it('retries a transient failure with backoff until the activity passes', async () => {
    let attempts = 0;
    activities.lookup = async (p) => {
      if (++attempts < 3) throw new TransientActivityError('ProvisionedThroughputExceededException: slow down');
      return withVar(p, 'found', true);
    };
    const { stateMachineArn } = engine.createStateMachine('transient-retry', compileDefinition(lookup as never, { activityFunctionArn: FN, executionEndFunctionArn: END }) as never);

    const result = await engine.startExecution(stateMachineArn, session()).done;

    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { vars: { found: true } } });
    expect(attempts).toBe(3);
    // One state entered, two retries, then the outcome recorded: each is a billed transition.
    expect(result.transitions).toBe(4);
  });

  it('does not retry an activity error that is not transient', async () => {
    let attempts = 0;
    activities.lookup = async () => {
      attempts++;
      throw new NamedError('UserNotFound', 'no such user');
    };
    const { stateMachineArn } = engine.createStateMachine('no-retry', compileDefinition(lookup as never, { activityFunctionArn: FN, executionEndFunctionArn: END }) as never);

    expect(await engine.startExecution(stateMachineArn, session()).done).toMatchObject({ status: 'FAILED', error: 'UserNotFound' });
    expect(attempts).toBe(1);
  });
});
