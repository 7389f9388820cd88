import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_FUNCTION_TIMEOUT_SECONDS,
  compileDefinition,
  EXECUTION_END_FUNCTION_TIMEOUT_SECONDS,
  happyPathTransitions,
  LAMBDA_RETRY,
  listErrorNames,
  OUTCOME_NOT_RECORDED_STATE,
  RECORD_OUTCOME_STATE,
  SERVICE_TIMEOUT_STATE,
  STATE_MACHINE_COMMENT,
  type AslChoiceState,
  type AslStateMachine,
  type AslTaskState,
} from '../../../statemachines/compile.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { activitySpec, STEP_TIMEOUT_MAX } from '../../../statemachines/catalogue.js';
import { finalStatus } from '../../../functions/process-manager/instances/status.js';
import { EXAMPLES, exampleDefinitions } from '../../../statemachines/examples/index.js';
import { ARN, END_ARN, pushFlow } from './fixtures.js';
import { ACTIVITY_CONTRACT } from '../../../functions/shared/activity-contract.js';

function expectValidAsl(asl: AslStateMachine): void {
  // The validator writes QueryLanguage into the states it reads; give it a copy.
  const result = aslValidator(structuredClone(asl), { checkPaths: true, checkArn: true });
  expect(result.errors, result.errorsText()).toEqual([]);
  expect(result.isValid).toBe(true);
}

const compile = (def: unknown) => compileDefinition(validateDefinition(def), { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });

function pushFlowWithRoutes() {
  const def = pushFlow();
  const acts = def.activities as Record<string, Record<string, unknown>>;
  acts.push!.errorEvents = { 'No Destinations Available': 'decide', 'Other Error': 'decide' };
  acts.wait!.errorEvents = { Timeout: 'push', 'Push Notification Process Failed': 'decide' };
  acts.decide!.rules = [
    { when: { errorEvent: { activity: 'push', name: 'No Destinations Available' } }, outcome: 'FAIL' },
    { when: { any: [{ variable: 'vars.attempts', equals: 3 }, { not: { variable: 'vars.approved', equals: true } }] }, outcome: 'REVIEW' },
    { when: { all: [{ variable: '_checks.push.result', notEquals: 'FAIL' }, { variable: 'vars.pollingUrl', isPresent: true }] }, outcome: 'PASS' },
  ];
  acts.decide!.default = 'FAIL';
  return def;
}

describe('compileDefinition', () => {
  for (const [name, json] of Object.entries(EXAMPLES)) {
    it(`compiles ${name} to ASL that asl-validator accepts, as in its snapshot`, async () => {
      const asl = compile(structuredClone(json));
      expectValidAsl(asl);
      await expect(`${JSON.stringify(asl, null, 2)}\n`).toMatchFileSnapshot(`./__snapshots__/${name}.asl.json`);
    });
  }

  it('emits one state per activity, named by its id, plus only the decision states in use, the record state and the service timeout end', () => {
    for (const def of exampleDefinitions()) {
      const asl = compileDefinition(def, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
      const activityIds = Object.keys(def.activities);
      const extra = Object.keys(asl.States).filter((s) => !activityIds.includes(s));
      expect(Object.keys(asl.States).slice(0, activityIds.length)).toEqual(activityIds);
      const used = new Set(Object.values(def.activities).flatMap((a) => [...(a.rules ?? []).map((r) => r.outcome), ...(a.default ? [a.default] : [])]));
      const service = Object.values(def.activities).some((a) => activitySpec(a.type)!.kind === 'service');
      expect(extra.sort()).toEqual(
        [...[...used].map((o) => `Decision ${o}`), OUTCOME_NOT_RECORDED_STATE, RECORD_OUTCOME_STATE, ...(service ? [SERVICE_TIMEOUT_STATE] : [])].sort(),
      );
      expect(asl.StartAt).toBe(def.startActivityId);
    }
  });

  it('keeps each outcome in a Pass state that goes on to record it', () => {
    const asl = compile(structuredClone(EXAMPLES['identity-check']));
    expect(asl.States['Decision PASS']).toEqual({ Type: 'Pass', Result: 'PASS', ResultPath: '$._decision', Next: RECORD_OUTCOME_STATE });
    expect(Object.keys(asl.States).filter((s) => s.startsWith('Decision ')).sort()).toEqual(['Decision FAIL', 'Decision PASS', 'Decision REVIEW']);
    const passcode = compile(structuredClone(EXAMPLES['passcode-registration']));
    expect(Object.keys(passcode.States).filter((s) => s.startsWith('Decision ')).sort()).toEqual(['Decision FAIL', 'Decision PASS']);
  });

  it('makes user steps waitForTaskToken tasks with the step timeout and no OutputPath', () => {
    const asl = compile(structuredClone(EXAMPLES['identity-check']));
    const form = asl.States.personalDetails as AslTaskState;
    expect(form.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
    expect(form.TimeoutSeconds).toBe(1800);
    expect(form.OutputPath).toBeUndefined();
    expect(form.Parameters.Payload).toMatchObject({ activityId: 'personalDetails', activityType: 'DATA_FORM', 'state.$': '$', 'taskToken.$': '$$.Task.Token' });
    expect(form.Next).toBe('captureFace');
    const wait = compile(pushFlow({ wait: { 'Step Timeout (Seconds)': 600 } })).States.wait as AslTaskState;
    expect(wait.TimeoutSeconds).toBe(600);
  });

  it('makes service steps lambda:invoke tasks that return the new state, retrying Lambda and transient failures with backoff and jitter', () => {
    const asl = compile(structuredClone(EXAMPLES['passcode-registration']));
    const getUser = asl.States.getUser as AslTaskState;
    expect(getUser).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      OutputPath: '$.Payload',
      Next: 'startRegistration',
      Parameters: {
        FunctionName: ARN,
        Payload: {
          contract: 2,
          activityId: 'getUser',
          activityType: 'GET_USER',
          inputs: JSON.stringify({ 'Store Name': 'customers', 'User External ID': '${externalId}', 'User Key': 'user1' }),
          'state.$': '$',
        },
      },
    });
    // Just above the activity function's own timeout (90 s, cloud function steps included).
    expect(getUser.TimeoutSeconds).toBe(110);
    expect(getUser.Parameters.Payload['taskToken.$']).toBeUndefined();
    expect(getUser.Retry).toEqual([
      {
        ErrorEquals: [
          'Lambda.ServiceException',
          'Lambda.AWSLambdaException',
          'Lambda.SdkClientException',
          'Lambda.TooManyRequestsException',
          'Lambda.ClientExecutionTimeoutException',
          'Activity.ContractTooNew',
        ],
        IntervalSeconds: 2,
        MaxAttempts: 8,
        BackoffRate: 2,
        MaxDelaySeconds: 60,
        JitterStrategy: 'FULL',
      },
      { ErrorEquals: ['Activity.Transient'], IntervalSeconds: 1, MaxAttempts: 4, BackoffRate: 2, MaxDelaySeconds: 10, JitterStrategy: 'FULL' },
    ]);
    // User steps too: a throttled write of the waiting step is retried the same way.
    expect((asl.States.passcodeForm as AslTaskState).Retry).toEqual(getUser.Retry);
    // No route of the designer's: only a service step's own timeout, to a process error.
    expect(getUser.Catch).toEqual([{ ErrorEquals: ['States.Timeout'], ResultPath: null, Next: SERVICE_TIMEOUT_STATE }]);
  });

  it('writes the activity contract it speaks into every activity Task, the same for every tenant and version', () => {
    for (const [name, json] of Object.entries(EXAMPLES)) {
      const asl = compile(structuredClone(json));
      const tasks = Object.values(asl.States).filter((s): s is AslTaskState => s.Type === 'Task' && 'activityId' in s.Parameters.Payload);
      expect(tasks.length, name).toBeGreaterThan(0);
      for (const task of tasks) expect(task.Parameters.Payload.contract, `${name} ${task.Parameters.Payload.activityId}`).toBe(ACTIVITY_CONTRACT);
      // A constant, not a path into the execution's input: no version of an execution's data can make a Task fail to build its payload.
      expect(JSON.stringify(asl)).not.toContain('contract.$');
      const other = compile({ ...(structuredClone(json) as object), name: 'another-name', version: 7 });
      expect(other).toEqual(asl);
    }
  });

  it('retries a throttled activity function for minutes, not seconds: the budget outlasts a burst of cold starts', () => {
    // The longest wait before each retry (full jitter draws each below it): 2, 4, ... capped at 60.
    const waits = Array.from({ length: LAMBDA_RETRY.MaxAttempts }, (_, i) =>
      Math.min(LAMBDA_RETRY.IntervalSeconds * LAMBDA_RETRY.BackoffRate ** i, LAMBDA_RETRY.MaxDelaySeconds),
    );
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60, 60]);
    // The figure docs/journeys.md gives; the former retrier waited at most 1 + 2 + 4 = 7 s.
    expect(waits.reduce((a, b) => a + b, 0)).toBe(242);
    expect(LAMBDA_RETRY.JitterStrategy).toBe('FULL');
  });

  it('gives every Lambda task a TimeoutSeconds: a user step its Step Timeout, the others just above their function\'s timeout', () => {
    for (const [name, json] of Object.entries(EXAMPLES)) {
      const asl = compile(structuredClone(json));
      for (const [id, state] of Object.entries(asl.States)) {
        if (state.Type !== 'Task') continue;
        expect(state.TimeoutSeconds, `${name}: ${id}`).toEqual(expect.any(Number));
        if (state.Resource === 'arn:aws:states:::lambda:invoke.waitForTaskToken') continue;
        const fn = state.Parameters.FunctionName === END_ARN ? EXECUTION_END_FUNCTION_TIMEOUT_SECONDS : ACTIVITY_FUNCTION_TIMEOUT_SECONDS;
        expect(state.TimeoutSeconds, `${name}: ${id}`).toBeGreaterThan(fn);
        expect(state.TimeoutSeconds, `${name}: ${id}`).toBeLessThanOrEqual(fn + 30);
      }
    }
    expect((compile(structuredClone(EXAMPLES['identity-check'])).States[RECORD_OUTCOME_STATE] as AslTaskState).TimeoutSeconds).toBe(50);
  });

  it('ends a service step that ran past its TimeoutSeconds as a process error, not as an end user\'s timeout', () => {
    const asl = compile(pushFlowWithRoutes());
    expectValidAsl(asl);
    expect(asl.States[SERVICE_TIMEOUT_STATE]).toEqual({ Type: 'Fail', Comment: expect.any(String), Error: 'Activity.Timeout', Cause: expect.any(String) });
    expect(finalStatus({ status: 'FAILED', error: 'Activity.Timeout' })).toBe('COMPLETED_PROCESS_ERROR');
    // A user step's timeout is still the end user's: its own route, or the instance is terminated.
    expect((asl.States.wait as AslTaskState).Catch!.some((c) => c.Next === SERVICE_TIMEOUT_STATE)).toBe(false);
    expect(finalStatus({ status: 'FAILED', error: 'States.Timeout' })).toBe('COMPLETED_TERMINATED');
    // Not a route of the journey: the paths counted are those of the definition.
    expect(happyPathTransitions(validateDefinition(pushFlowWithRoutes()))).toBe(5);
    // A journey of user steps only has no such state.
    const users = compile({ name: 'one', version: 1, startActivityId: 'a', activities: { a: { type: 'CAPTURE_FACE_IMAGE' } } });
    expect(users.States).not.toHaveProperty(SERVICE_TIMEOUT_STATE);
  });

  it("times the execution out with the instance's retention, at most Step Functions' year", () => {
    const one = (retentionDays?: number) =>
      compile({ name: 'one', version: 1, ...(retentionDays ? { retentionDays } : {}), startActivityId: 'a', activities: { a: { type: 'CAPTURE_FACE_IMAGE' } } });
    expect(one().TimeoutSeconds).toBe(90 * 86_400);
    expect(one(1).TimeoutSeconds).toBe(86_400);
    expect(one(3650).TimeoutSeconds).toBe(365 * 86_400);
    // The default retention outlasts the longest user step.
    expect(one().TimeoutSeconds).toBeGreaterThan(STEP_TIMEOUT_MAX);
    // A timed-out execution ends its instance as a stopped one does.
    expect(finalStatus({ status: 'TIMED_OUT' })).toBe('COMPLETED_TERMINATED');
  });

  it('routes error events with Catch on their ASL error names, into $._lastError', () => {
    const asl = compile(pushFlowWithRoutes());
    expectValidAsl(asl);
    expect((asl.States.push as AslTaskState).Catch).toEqual([
      { ErrorEquals: ['NoDestinationsAvailable'], ResultPath: '$._lastError', Next: 'decide' },
      { ErrorEquals: ['PushNotificationOtherError'], ResultPath: '$._lastError', Next: 'decide' },
      { ErrorEquals: ['States.Timeout'], ResultPath: null, Next: SERVICE_TIMEOUT_STATE },
    ]);
    expect((asl.States.wait as AslTaskState).Catch).toEqual([
      { ErrorEquals: ['PushProcessFailed'], ResultPath: '$._lastError', Next: 'decide' },
      { ErrorEquals: ['PushWaitTimeout', 'States.Timeout'], ResultPath: '$._lastError', Next: 'push' },
    ]);
    const names = new Set(listErrorNames());
    for (const [name, state] of Object.entries(asl.States)) {
      // The record state catches everything: no error event routes there.
      if (name === RECORD_OUTCOME_STATE) continue;
      // Nor is a service step's timeout a designer's route.
      for (const c of (state as AslTaskState).Catch ?? []) if (c.Next !== SERVICE_TIMEOUT_STATE) expect(names.has(c.ErrorEquals[0]!)).toBe(true);
    }
  });

  it('makes the decider a Choice whose comparisons are guarded by IsPresent', () => {
    const decide = compile(pushFlowWithRoutes()).States.decide as AslChoiceState;
    expect(decide.Type).toBe('Choice');
    expect(decide.Default).toBe('Decision FAIL');
    expect(decide.Choices).toEqual([
      {
        And: [
          { Variable: '$._lastError.Error', IsPresent: true },
          { Variable: '$._lastError.Error', StringEquals: 'NoDestinationsAvailable' },
        ],
        Next: 'Decision FAIL',
      },
      {
        Or: [
          { And: [{ Variable: '$.vars.attempts', IsPresent: true }, { Variable: '$.vars.attempts', NumericEquals: 3 }] },
          { Not: { And: [{ Variable: '$.vars.approved', IsPresent: true }, { Variable: '$.vars.approved', BooleanEquals: true }] } },
        ],
        Next: 'Decision REVIEW',
      },
      {
        And: [
          { Or: [{ Not: { Variable: '$._checks.push.result', IsPresent: true } }, { Not: { Variable: '$._checks.push.result', StringEquals: 'FAIL' } }] },
          { Variable: '$.vars.pollingUrl', IsPresent: true },
        ],
        Next: 'Decision PASS',
      },
    ]);
    const identity = compile(structuredClone(EXAMPLES['identity-check'])).States.decide as AslChoiceState;
    expect(identity.Choices[0]).toEqual({ Variable: '$._lastError', IsPresent: true, Next: 'Decision FAIL' });
  });

  it('records the outcome after an activity without next, and ends there', () => {
    const asl = compile({ name: 'one', version: 1, startActivityId: 'a', activities: { a: { type: 'GET_USER', inputs: { 'Store Name': 's', 'User ID': 'u' } } } });
    expectValidAsl(asl);
    expect(asl.States.a).toMatchObject({ Next: RECORD_OUTCOME_STATE });
    expect(asl.States.a).not.toHaveProperty('End');
    expect(Object.keys(asl.States)).toEqual(['a', RECORD_OUTCOME_STATE, OUTCOME_NOT_RECORDED_STATE, SERVICE_TIMEOUT_STATE]);
  });

  it('records the outcome in the last state, through the execution-end function, leaving the output the session', () => {
    const asl = compile(pushFlowWithRoutes());
    expect(asl.States[RECORD_OUTCOME_STATE]).toEqual({
      Type: 'Task',
      Comment: expect.any(String),
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: END_ARN, Payload: { 'session.$': '$' } },
      ResultPath: null,
      TimeoutSeconds: 50,
      Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, MaxAttempts: 6, BackoffRate: 2, MaxDelaySeconds: 60, JitterStrategy: 'FULL' }],
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: OUTCOME_NOT_RECORDED_STATE }],
      End: true,
    });
    expect(asl.States[OUTCOME_NOT_RECORDED_STATE]).toMatchObject({ Type: 'Succeed' });
    // Every state that used to end the execution now goes on to record its outcome: only the
    // record state and the route taken when recording fails end it (and, failing, a service step's timeout).
    const ending = Object.entries(asl.States).filter(([, st]) => st.Type === 'Succeed' || ('End' in st && st.End));
    expect(ending.map(([name]) => name).sort()).toEqual([OUTCOME_NOT_RECORDED_STATE, RECORD_OUTCOME_STATE].sort());
    for (const outcome of ['PASS', 'FAIL', 'REVIEW']) expect(asl.States[`Decision ${outcome}`]).toMatchObject({ Next: RECORD_OUTCOME_STATE });
  });

  it("keeps in the execution's state only what its Choice rules read and its Pass states and Catch routes write, the same list in every task", () => {
    const def = pushFlowWithRoutes();
    (def.activities as Record<string, Record<string, unknown>>).push!.errorVariables = { 'Other Error': { code: 'pushError' } };
    const asl = compile(def);
    const tasks = Object.values(asl.States).filter((s): s is AslTaskState => s.Type === 'Task' && 'activityId' in s.Parameters.Payload);
    expect(tasks.length).toBeGreaterThan(1);
    for (const t of tasks) {
      expect(t.Parameters.Payload.keep).toEqual(['$._checks.push.result', '$._decision', '$._lastError', '$.vars.approved', '$.vars.attempts', '$.vars.pollingUrl', '$.vars.pushError']);
    }
    expect(compile(def)).toEqual(asl);
  });

  it('writes nothing of the definition\u2019s name or version into the ASL: versions that compile alike give the same ASL', () => {
    const def = exampleDefinitions()[0]!;
    const asl = compileDefinition(def, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
    expect(asl.Comment).toBe(STATE_MACHINE_COMMENT);
    const text = JSON.stringify(asl);
    for (const other of [{ ...def, version: 7 }, { ...def, name: 'renamed-journey', version: 12, description: 'another description' }]) {
      expect(JSON.stringify(compileDefinition(other, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN }))).toBe(text);
    }
    expect(text).not.toContain(`${def.name} v${def.version}`);
  });

  it('rejects a definition that is not valid', () => {
    expect(() => compileDefinition({ name: 'x' } as never, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN })).toThrow(/not valid/);
  });
});

describe('happyPathTransitions', () => {
  it('counts one transition per activity on the next chain, two for a decider and one to record the outcome', () => {
    const [identity, passcode] = exampleDefinitions();
    expect(happyPathTransitions(identity!)).toBe(5);
    expect(happyPathTransitions(passcode!)).toBe(7);
    expect(happyPathTransitions(validateDefinition(pushFlowWithRoutes()))).toBe(5);
  });

  it('counts two for a journey of one activity: it and the record state', () => {
    const def = validateDefinition({ name: 'one', version: 1, startActivityId: 'a', activities: { a: { type: 'CAPTURE_FACE_IMAGE' } } });
    expect(happyPathTransitions(def)).toBe(2);
  });

  it('rejects when the next chain loops', () => {
    const def = pushFlow();
    const acts = def.activities as Record<string, Record<string, unknown>>;
    acts.wait!.next = 'push';
    acts.wait!.errorEvents = { 'Other Error': 'decide' };
    expect(() => happyPathTransitions(validateDefinition(def))).toThrow(/loops at "push"/);
  });
});
