import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  compileDefinition,
  happyPathTransitions,
  listErrorNames,
  OUTCOME_NOT_RECORDED_STATE,
  RECORD_OUTCOME_STATE,
  type AslChoiceState,
  type AslStateMachine,
  type AslTaskState,
} from '../../../statemachines/compile.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { EXAMPLES, exampleDefinitions } from '../../../statemachines/examples/index.js';
import { ARN, END_ARN, pushFlow } from './fixtures.js';

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

  it('emits one state per activity, named by its id, plus only the decision states in use and the record state', () => {
    for (const def of exampleDefinitions()) {
      const asl = compileDefinition(def, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
      const activityIds = Object.keys(def.activities);
      const extra = Object.keys(asl.States).filter((s) => !activityIds.includes(s));
      expect(Object.keys(asl.States).slice(0, activityIds.length)).toEqual(activityIds);
      const used = new Set(Object.values(def.activities).flatMap((a) => [...(a.rules ?? []).map((r) => r.outcome), ...(a.default ? [a.default] : [])]));
      expect(extra.sort()).toEqual([...[...used].map((o) => `Decision ${o}`), OUTCOME_NOT_RECORDED_STATE, RECORD_OUTCOME_STATE].sort());
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
          activityId: 'getUser',
          activityType: 'GET_USER',
          inputs: JSON.stringify({ 'Store Name': 'customers', 'User External ID': '${externalId}', 'User Key': 'user1' }),
          'state.$': '$',
        },
      },
    });
    expect(getUser.TimeoutSeconds).toBeUndefined();
    expect(getUser.Parameters.Payload['taskToken.$']).toBeUndefined();
    expect(getUser.Retry).toEqual([
      {
        ErrorEquals: ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.TooManyRequestsException'],
        IntervalSeconds: 1,
        MaxAttempts: 3,
        BackoffRate: 2,
        MaxDelaySeconds: 8,
        JitterStrategy: 'FULL',
      },
      { ErrorEquals: ['Activity.Transient'], IntervalSeconds: 1, MaxAttempts: 4, BackoffRate: 2, MaxDelaySeconds: 10, JitterStrategy: 'FULL' },
    ]);
    // User steps too: a throttled write of the waiting step is retried the same way.
    expect((asl.States.passcodeForm as AslTaskState).Retry).toEqual(getUser.Retry);
    expect(getUser.Catch).toBeUndefined();
  });

  it('routes error events with Catch on their ASL error names, into $._lastError', () => {
    const asl = compile(pushFlowWithRoutes());
    expectValidAsl(asl);
    expect((asl.States.push as AslTaskState).Catch).toEqual([
      { ErrorEquals: ['NoDestinationsAvailable'], ResultPath: '$._lastError', Next: 'decide' },
      { ErrorEquals: ['PushNotificationOtherError'], ResultPath: '$._lastError', Next: 'decide' },
    ]);
    expect((asl.States.wait as AslTaskState).Catch).toEqual([
      { ErrorEquals: ['PushProcessFailed'], ResultPath: '$._lastError', Next: 'decide' },
      { ErrorEquals: ['PushWaitTimeout', 'States.Timeout'], ResultPath: '$._lastError', Next: 'push' },
    ]);
    const names = new Set(listErrorNames());
    for (const [name, state] of Object.entries(asl.States)) {
      // The record state catches everything: no error event routes there.
      if (name === RECORD_OUTCOME_STATE) continue;
      for (const c of (state as AslTaskState).Catch ?? []) expect(names.has(c.ErrorEquals[0]!)).toBe(true);
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
    expect(Object.keys(asl.States)).toEqual(['a', RECORD_OUTCOME_STATE, OUTCOME_NOT_RECORDED_STATE]);
  });

  it('records the outcome in the last state, through the execution-end function, leaving the output the session', () => {
    const asl = compile(pushFlowWithRoutes());
    expect(asl.States[RECORD_OUTCOME_STATE]).toEqual({
      Type: 'Task',
      Comment: expect.any(String),
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: END_ARN, Payload: { 'session.$': '$' } },
      ResultPath: null,
      Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, MaxAttempts: 6, BackoffRate: 2, MaxDelaySeconds: 60, JitterStrategy: 'FULL' }],
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: OUTCOME_NOT_RECORDED_STATE }],
      End: true,
    });
    expect(asl.States[OUTCOME_NOT_RECORDED_STATE]).toMatchObject({ Type: 'Succeed' });
    // Every state that used to end the execution now goes on to record its outcome: only the
    // record state and the route taken when recording fails end it.
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

  it('names the state machine in its Comment', () => {
    const asl = compileDefinition(exampleDefinitions()[0]!, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN, stateMachineName: 'demo-identity-check-v1' });
    expect(asl.Comment).toMatch(/^demo-identity-check-v1: identity-check v1\./);
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
