import aslValidator from 'asl-validator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalStepFunctions, type ExecutionResult, type JsonValue } from '../../../lib/local/engine.js';
import {
  aslPathTransitions,
  compileDefinition,
  happyPathTransitions,
  OUTCOME_NOT_RECORDED_STATE,
  RECORD_OUTCOME_STATE,
  SERVICE_TASK_TIMEOUT_SECONDS,
  SERVICE_TIMEOUT_STATE,
  type AslChoiceState,
  type AslStateMachine,
  type AslTaskState,
} from '../../../statemachines/compile.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { applyOutputs } from '../../../statemachines/outputs.js';
import { finalStatus, outcomeStatus, type ExecutionEnd } from '../../../functions/process-manager/instances/status.js';
import { ARN, END_ARN, expectRefused } from './fixtures.js';
import { FORM, largeDefinition } from '../../support/large-definition.js';

type Json = Record<string, unknown>;

/**
 * A journey as the family draws it: a form, a gateway on what was entered, a face capture with
 * a timer and a retake loop through a confirmation gateway, an error route to an error end, and
 * a decider recording the outcome before the end.
 */
function journey(): Json {
  return {
    name: 'graph-journey',
    version: 1,
    startActivityId: 'details',
    activities: {
      details: { type: 'DATA_FORM', inputs: { Form: FORM, 'Form data Key': 'details' }, next: 'Gateway_doc' },
      capture: {
        type: 'CAPTURE_FACE_IMAGE',
        inputs: { 'Face Key': 'face1' },
        next: 'Gateway_confirm',
        timer: { id: 'Timer_capture', duration: 'PT4M30S', next: 'End_timeout' },
        outputs: { _photoConfirmed: '${_checks.face1.result == "PASS"}', captureResult: '${_checks.face1.result}' },
      },
      addUser: {
        type: 'ADD_USER',
        inputs: { 'External ID': '${externalId}', 'Store Name': 'customers' },
        next: 'approve',
        errorEvents: { 'ExtId Not Unique': 'End_duplicate' },
        errorVariables: { 'ExtId Not Unique': { code: 'addUserErrorCode', message: 'addUserErrorMessage' } },
      },
      approve: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' }, next: 'End_ok' },
      review: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' }, next: 'End_ok' },
    },
    gateways: {
      Gateway_doc: {
        name: 'Which document?',
        branches: [
          { id: 'Flow_passport', when: '${(details.docType != null ? details.docType == "PASSPORT" : false)}', next: 'capture' },
          { id: 'Flow_other', when: '${details.docType == "ID_CARD"}', next: 'Gateway_mobile' },
        ],
        default: 'review',
      },
      Gateway_mobile: {
        branches: [{ when: '${execution.hasVariable("isMobile") ? isMobile : false}', next: 'capture' }],
        default: 'review',
      },
      Gateway_confirm: {
        branches: [
          { id: 'Flow_retake', when: '${_photoConfirmed != true}', next: 'capture' },
          { id: 'Flow_confirmed', when: '${_photoConfirmed == true}', next: 'addUser' },
        ],
      },
    },
    ends: {
      End_ok: { name: 'Done' },
      End_timeout: { name: 'Timed out', error: 'captureTimedOut' },
      End_duplicate: { error: 'extIdNotUnique' },
    },
  };
}

const compile = (def: unknown) => compileDefinition(validateDefinition(def), { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });

function expectValidAsl(asl: AslStateMachine): void {
  const result = aslValidator(structuredClone(asl), { checkPaths: true, checkArn: true });
  expect(result.errors, result.errorsText()).toEqual([]);
}

function edit(def: Json, fn: (d: { activities: Record<string, Json>; gateways: Record<string, Json>; ends: Record<string, Json> }) => void): Json {
  const copy = structuredClone(def);
  fn(copy as never);
  return copy;
}

describe('a definition as a graph', () => {
  it('compiles to valid ASL: one state per activity, one Choice per gateway not fused away, ends only where named', () => {
    const asl = compile(journey());
    expectValidAsl(asl);
    expect(asl.StartAt).toBe('details');
    expect(Object.keys(asl.States).sort()).toEqual(
      [
        'details', 'capture', 'addUser', 'addUser.error0.code', 'addUser.error0.cause', 'addUser.error0.message', 'approve', 'review', 'Gateway_doc', 'Gateway_confirm',
        'End_timeout', 'End_duplicate', RECORD_OUTCOME_STATE, OUTCOME_NOT_RECORDED_STATE, SERVICE_TIMEOUT_STATE,
      ].sort(),
    );
    // Gateway_mobile is only reached from Gateway_doc's branch, so it is fused into it.
    const doc = asl.States.Gateway_doc as AslChoiceState;
    expect(doc.Choices.map((c) => c.Next)).toEqual(['capture', 'capture', 'review']);
    expect(doc.Default).toBe('review');
    // A task going to a plain end event goes straight to the state that records the outcome.
    expect(asl.States.approve).toMatchObject({ Type: 'Pass', Result: 'PASS', ResultPath: '$._decision', Next: RECORD_OUTCOME_STATE });
    expect(asl.States.End_timeout).toEqual({
      Type: 'Pass',
      Comment: 'Timed out',
      Result: { endEvent: 'End_timeout', errorCode: 'captureTimedOut' },
      ResultPath: '$._end',
      Next: RECORD_OUTCOME_STATE,
    });
  });

  it('compiles a timer boundary event to the step timeout and a Catch of States.Timeout', () => {
    const capture = compile(journey()).States.capture as AslTaskState;
    expect(capture.TimeoutSeconds).toBe(270);
    expect(capture.Catch).toEqual([{ ErrorEquals: ['States.Timeout'], ResultPath: '$._lastError', Next: 'End_timeout' }]);
    expect(JSON.parse(capture.Parameters.Payload.outputs!)).toEqual(journey().activities && (journey().activities as Json & { capture: Json }).capture.outputs);
  });

  it('compiles an error boundary event to a Catch by the ASL error name, through Pass states that set its error variables', () => {
    const asl = compile(journey());
    const add = asl.States.addUser as AslTaskState;
    // The designer's route first; the service step's timeout (no route of the journey) last.
    const timedOut = { ErrorEquals: ['States.Timeout'], ResultPath: null, Next: SERVICE_TIMEOUT_STATE };
    expect(add.Catch).toEqual([{ ErrorEquals: ['ExtIdNotUnique'], ResultPath: '$._lastError', Next: 'addUser.error0.code' }, timedOut]);
    expect(asl.States['addUser.error0.code']).toEqual({ Type: 'Pass', Result: 'extIdNotUnique', ResultPath: '$.vars.addUserErrorCode', Next: 'addUser.error0.cause' });
    // A service step's Cause is its Lambda's error envelope: the variable gets its errorMessage, never the envelope and its trace.
    expect(asl.States['addUser.error0.cause']).toEqual({
      Type: 'Pass',
      Parameters: { 'parsed.$': 'States.StringToJson($._lastError.Cause)' },
      ResultPath: '$._lastError.Parsed',
      Next: 'addUser.error0.message',
    });
    expect(asl.States['addUser.error0.message']).toEqual({ Type: 'Pass', InputPath: '$._lastError.Parsed.parsed.errorMessage', ResultPath: '$.vars.addUserErrorMessage', Next: 'End_duplicate' });
    const plain = edit(journey(), (d) => {
      delete d.activities.addUser!.errorVariables;
    });
    expect((compile(plain).States.addUser as AslTaskState).Catch).toEqual([{ ErrorEquals: ['ExtIdNotUnique'], ResultPath: '$._lastError', Next: 'End_duplicate' }, timedOut]);
  });

  it('takes the later of two complementary conditions as the default, with no rule of its own', () => {
    const confirm = compile(journey()).States.Gateway_confirm as AslChoiceState;
    expect(confirm.Choices).toHaveLength(1);
    expect(confirm.Choices[0]!.Next).toBe('capture');
    expect(confirm.Default).toBe('addUser');
  });

  it('sends a Choice that leads to a plain end to the state that records the outcome (no state for the end)', () => {
    const def = edit(journey(), (d) => {
      d.gateways.Gateway_doc!.default = 'End_ok';
    });
    const asl = compile(def);
    expect(asl.States).not.toHaveProperty('End_ok');
    expect((asl.States.Gateway_doc as AslChoiceState).Default).toBe(RECORD_OUTCOME_STATE);
  });

  it('fuses a chain of gateways into one Choice and keeps a gateway that a task also reaches', () => {
    const def = edit(journey(), (d) => {
      d.activities.review!.next = 'Gateway_mobile';
      d.activities.review!.inputs = { Outcome: 'REVIEW' };
      d.gateways.Gateway_mobile!.default = 'End_ok';
    });
    const asl = compile(def);
    expect(asl.States.Gateway_mobile).toMatchObject({ Type: 'Choice', Default: RECORD_OUTCOME_STATE });
  });

  it('counts transitions per path on the compiled machine', () => {
    const asl = compile(journey());
    // details, Gateway_doc, review (default path), Record outcome.
    expect(aslPathTransitions(asl)).toEqual({ happy: 4, shortest: 4, longest: 10 });
    expect(happyPathTransitions(validateDefinition(journey()) as never)).toBe(4);
  });

  it('stays under 1 MB of ASL for 130 tasks and 160 gateways', () => {
    const asl = compile(largeDefinition(130, 160));
    const size = Buffer.byteLength(JSON.stringify(asl));
    expect(size).toBeLessThan(1024 * 1024);
    // The activities, and the record state.
    expect(Object.values(asl.States).filter((s) => s.Type === 'Task')).toHaveLength(131);
  });
});

describe('graph validation', () => {
  it('takes a gateway without a default, as the family draws them: a Choice without Default', () => {
    const def = edit(journey(), (d) => {
      delete d.gateways.Gateway_doc!.default;
    });
    const asl = compile(def);
    const choice = asl.States.Gateway_doc as AslChoiceState;
    expect(choice.Type).toBe('Choice');
    expect(choice.Default).toBeUndefined();
    expect(aslValidator(asl as never).isValid).toBe(true);
  });

  it('refuses a condition it cannot compile, with the expression and the flow id', () => {
    const def = edit(journey(), (d) => {
      (d.gateways.Gateway_doc!.branches as Json[])[1]!.when = '${attempts + 1 > 3}';
    });
    expectRefused(def, 'gateways.Gateway_doc.branches.1.when', 'Gateway_doc', 'Flow_other', 'arithmetic');
    const bad = edit(journey(), (d) => {
      (d.gateways.Gateway_doc!.branches as Json[])[0]!.when = '${a ==}';
    });
    expectRefused(bad, 'gateways.Gateway_doc.branches.0.when', 'Flow_passport');
  });

  it('takes a branch switched off with ${false}, as the family does, and never chooses it', () => {
    const def = edit(journey(), (d) => {
      (d.gateways.Gateway_doc!.branches as Json[])[1]!.when = '${false}';
    });
    const choice = compile(def).States.Gateway_doc as AslChoiceState;
    expect(choice.Choices.some((c) => JSON.stringify(c).includes('"Not":{"Variable":"$","IsPresent":true}'))).toBe(true);
  });

  it('refuses an unreachable node and a target that does not exist', () => {
    const def = edit(journey(), (d) => {
      d.gateways.Gateway_lost = { branches: [{ when: '${x}', next: 'capture' }], default: 'review' };
    });
    expectRefused(def, 'gateways.Gateway_lost', 'not reachable');
    const dangling = edit(journey(), (d) => {
      d.gateways.Gateway_doc!.default = 'nowhere';
    });
    expectRefused(dangling, 'gateways.Gateway_doc.default', 'default flow target "nowhere" does not exist');
  });

  it('refuses a path that never ends and a loop of gateways only', () => {
    const trap = edit(journey(), (d) => {
      d.activities.addUser!.next = 'capture';
      d.activities.addUser!.errorEvents = { 'ExtId Not Unique': 'capture' };
      d.gateways.Gateway_doc!.default = 'capture';
      d.gateways.Gateway_mobile!.default = 'capture';
      d.activities.capture!.timer = { duration: 'PT4M30S', next: 'capture' };
    });
    expectRefused(trap, 'activities.capture', 'no path from here reaches an end');
    const spin = edit(journey(), (d) => {
      d.gateways.Gateway_a = { branches: [{ when: '${x}', next: 'Gateway_b' }], default: 'End_ok' };
      d.gateways.Gateway_b = { branches: [{ when: '${y}', next: 'Gateway_a' }], default: 'End_ok' };
      d.activities.review!.next = 'Gateway_a';
    });
    expectRefused(spin, 'gateways.Gateway_a.branches.0.next', 'loop of gateways and deciders only');
  });

  it('takes loops of service steps, counted by a Counter or not (the family draws both), bounded when they run', () => {
    const counted = edit(journey(), (d) => {
      d.activities.count = { type: 'COUNTER_V1', inputs: { 'Counter Name': 'dvsAttempt' }, next: 'Gateway_retry' };
      d.gateways.Gateway_retry = { branches: [{ when: '${dvsAttempt > 2}', next: 'review' }], default: 'addUser2' };
      d.activities.addUser2 = { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': 'customers' }, next: 'count', errorEvents: { 'ExtId Not Unique': 'count' } };
      d.activities.approve!.next = 'count';
    });
    expect(() => validateDefinition(counted)).not.toThrow();
    // A cloud function's verdict ends the family's other retry loop: no Counter in it.
    const uncounted = edit(counted, (d) => {
      d.activities.count = { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': 'customers' }, next: 'Gateway_retry' };
    });
    expect(() => validateDefinition(uncounted)).not.toThrow();
    // Deciders are no steps: a loop of gateways and deciders only still spins.
    const deciders = edit(journey(), (d) => {
      d.gateways.Gateway_a = { branches: [{ when: '${x}', next: 'Gateway_b' }], default: 'End_ok' };
      d.gateways.Gateway_b = { branches: [{ when: '${y}', next: 'review' }], default: 'End_ok' };
      d.activities.review!.next = 'Gateway_a';
      d.activities.approve!.next = 'Gateway_a';
    });
    expectRefused(deciders, 'activities.review.next', 'loop of gateways and deciders only');
  });

  it('compiles a timer on a service step to its timeout, capped at the step limit, with its route', () => {
    const service = edit(journey(), (d) => {
      d.activities.addUser!.timer = { id: 'Timer_1', duration: 'PT10M30S', next: 'End_ok' };
    });
    const asl = compile(service);
    const task = asl.States.addUser as AslTaskState;
    expect(task.TimeoutSeconds).toBe(SERVICE_TASK_TIMEOUT_SECONDS);
    expect(task.Catch?.filter((c) => c.ErrorEquals.includes('States.Timeout')).map((c) => c.Next)).toEqual([RECORD_OUTCOME_STATE]);
    const short = compile(edit(journey(), (d) => {
      d.activities.addUser!.timer = { id: 'Timer_1', duration: 'PT30S', next: 'End_duplicate' };
    }));
    expect((short.States.addUser as AslTaskState).TimeoutSeconds).toBe(30);
    expect((short.States.addUser as AslTaskState).Catch?.find((c) => c.ErrorEquals.includes('States.Timeout'))?.Next).toBe('End_duplicate');
    // No service step is left without a timer route: the shared timeout state is not emitted.
    expect(short.States[SERVICE_TIMEOUT_STATE]).toBeUndefined();
    expect(aslValidator(short as never).isValid).toBe(true);
  });

  it('refuses a timer on a decider, a timer with the Step Timeout input, and a bad duration', () => {
    const decider = edit(journey(), (d) => {
      d.activities.approve!.timer = { id: 'Timer_1', duration: 'PT5M', next: 'End_ok' };
    });
    expectRefused(decider, 'activities.approve.timer', 'decider');
    const both = edit(journey(), (d) => {
      (d.activities.capture!.inputs as Json)['Step Timeout (Seconds)'] = 600;
    });
    expectRefused(both, 'activities.capture.inputs.Step Timeout (Seconds)', 'has a timer');
    const months = edit(journey(), (d) => {
      d.activities.capture!.timer = { duration: 'P1M', next: 'End_ok' };
    });
    expectRefused(months, 'activities.capture.timer.duration', 'years or months');
    const short = edit(journey(), (d) => {
      d.activities.capture!.timer = { duration: 'PT5S', next: 'End_ok' };
    });
    expectRefused(short, 'activities.capture.timer.duration', 'between 10 seconds');
  });

  it('refuses ids shared between kinds of node, and starting at an end', () => {
    const shared = edit(journey(), (d) => {
      d.ends.capture = {};
    });
    expectRefused(shared, 'ends.capture', 'also another node');
    expectRefused({ ...journey(), startActivityId: 'End_ok' }, 'startActivityId', 'cannot start at end event');
  });

  it('refuses a decider with both an Outcome and rules, and output expressions it cannot evaluate', () => {
    const both = edit(journey(), (d) => {
      d.activities.approve!.rules = [{ when: { errorEvent: true }, outcome: 'FAIL' }];
    });
    expectRefused(both, 'activities.approve.rules', 'not both');
    const outputs = edit(journey(), (d) => {
      d.activities.capture!.outputs = { tries: '${tries + 1}', _checks: '${x}' };
    });
    expectRefused(outputs, 'activities.capture.outputs.tries', 'arithmetic');
    expectRefused(outputs, 'activities.capture.outputs._checks', 'session key');
    const vars = edit(journey(), (d) => {
      d.activities.addUser!.errorVariables = { 'Failed to add the user': { code: 'c' } };
    });
    expectRefused(vars, 'activities.addUser.errorVariables.Failed to add the user', 'not one of its routed error events');
  });
});

describe('output parameters', () => {
  it('set process variables from JUEL on the state the activity left, plain text as it is', () => {
    const state = { vars: { a: 1 }, _checks: { face1: { result: 'PASS' } }, parameters: {} };
    expect(applyOutputs(state, { ok: '${_checks.face1.result == "PASS"}', missing: '${nothing.here}', text: 'hello', a: '${a}' }).vars).toEqual({
      a: 1,
      ok: true,
      missing: null,
      text: 'hello',
    });
  });
});

describe('a graph on the local engine', () => {
  let engine: LocalStepFunctions;
  let waiting: { activityId: string; token: string }[];
  /** The sessions the last state handed to the execution-end function, in order. */
  let recorded: unknown[];
  const endOf = (r: ExecutionResult): ExecutionEnd =>
    r.status === 'SUCCEEDED' ? { status: 'SUCCEEDED', output: r.output } : r.status === 'FAILED' ? { status: 'FAILED', error: r.error } : { status: r.status };
  beforeEach(() => {
    waiting = [];
    recorded = [];
    engine = new LocalStepFunctions({
      invoke: async (fn, payload) => {
        if (fn === END_ARN) {
          recorded.push((payload as { session: unknown }).session);
          return null;
        }
        const p = payload as { activityId: string; state: Json; taskToken?: string; outputs?: Record<string, string> };
        if (p.taskToken) {
          waiting.push({ activityId: p.activityId, token: p.taskToken });
          return {};
        }
        if (p.activityId === 'addUser' && (p.state.parameters as Json).externalId === 'taken') {
          const err = new Error('exists');
          err.name = 'ExtIdNotUnique';
          throw err;
        }
        return applyOutputs(p.state, p.outputs);
      },
    });
  });
  afterEach(async () => {
    await engine.shutdown();
  });

  async function next(activityId: string): Promise<string> {
    const deadline = Date.now() + 3000;
    for (;;) {
      const i = waiting.findIndex((w) => w.activityId === activityId);
      if (i >= 0) return waiting.splice(i, 1)[0]!.token;
      if (Date.now() > deadline) throw new Error(`the journey never waited at ${activityId}; waiting: ${JSON.stringify(waiting)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  function start(asl: AslStateMachine, parameters: Json) {
    const { stateMachineArn } = engine.createStateMachine(`m${Math.random().toString(36).slice(2)}`, asl as never);
    const state = { instance: {}, parameters, vars: { ...parameters }, _checks: {}, _faces: {} };
    return engine.startExecution(stateMachineArn, state as JsonValue).done;
  }

  const submit = (token: string, state: Json) => engine.sendTaskSuccess(token, state as JsonValue);

  it('takes each branch the conditions choose, loops on a retake, and ends in the status the branch leads to', async () => {
    const asl = compile(journey());
    // Passport, retake once, then confirmed: PASS.
    const pass = start(asl, { externalId: 'ext-1' });
    submit(await next('details'), { parameters: { externalId: 'ext-1' }, vars: { details: { docType: 'PASSPORT' } }, _checks: {} });
    submit(await next('capture'), { parameters: { externalId: 'ext-1' }, vars: { details: { docType: 'PASSPORT' }, _photoConfirmed: false }, _checks: {} });
    submit(await next('capture'), { parameters: { externalId: 'ext-1' }, vars: { details: { docType: 'PASSPORT' }, _photoConfirmed: true }, _checks: {} });
    const passed = await pass;
    expect(passed.status).toBe('SUCCEEDED');
    expect(finalStatus(endOf(passed))).toBe('COMPLETED_ENDED_SUCCESS');
    expect((passed.output as Json)._decision).toBe('PASS');

    // Unknown document: the default flow, REVIEW.
    const review = start(asl, {});
    submit(await next('details'), { parameters: {}, vars: { details: { docType: 'LICENCE' } } });
    expect(finalStatus(endOf(await review))).toBe('REVIEW');

    // ID card on a phone (the fused second gateway), then a duplicate external id: the error end.
    const duplicate = start(asl, { externalId: 'taken', isMobile: true });
    submit(await next('details'), { parameters: { externalId: 'taken' }, vars: { isMobile: true, details: { docType: 'ID_CARD' } } });
    submit(await next('capture'), { parameters: { externalId: 'taken' }, vars: { _photoConfirmed: true } });
    const ended = await duplicate;
    expect(ended.status).toBe('SUCCEEDED');
    expect((ended.output as Json)._end).toEqual({ endEvent: 'End_duplicate', errorCode: 'extIdNotUnique' });
    expect(finalStatus(endOf(ended))).toBe('COMPLETED_ENDED_ERROR');
    const vars = (ended.output as { vars: Json }).vars;
    expect(vars.addUserErrorCode).toBe('extIdNotUnique');
    expect(String(vars.addUserErrorMessage)).toContain('exists');

    // ID card, not on a phone (isMobile missing: false, not an error): REVIEW.
    const desktop = start(asl, {});
    submit(await next('details'), { parameters: {}, vars: { details: { docType: 'ID_CARD' } } });
    expect(finalStatus(endOf(await desktop))).toBe('REVIEW');

    // Each journey's last state recorded the outcome itself, from the session it ended with.
    expect(recorded.map(outcomeStatus)).toEqual(['COMPLETED_ENDED_SUCCESS', 'REVIEW', 'COMPLETED_ENDED_ERROR', 'REVIEW']);
  });

  it("decides as the family's decider: the derived decision, else Decision on Any Failure after an error route, else PASS", async () => {
    const def = {
      name: 'family-decider',
      version: 1,
      startActivityId: 'details',
      activities: {
        details: { type: 'DATA_FORM', inputs: { Form: FORM, 'Form data Key': 'details' }, next: 'addUser' },
        addUser: { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': 'customers' }, next: 'SDD01', errorEvents: { 'ExtId Not Unique': 'SDD01' } },
        SDD01: {
          type: 'SIMPLE_DECIDER',
          inputs: { 'Decision on Any Failure': 'REVIEW', 'Derive Decision From': '${idv.overallDecision}' },
          outputs: { _decision: '${decision}' },
          next: 'End_ok',
        },
      },
      ends: { End_ok: {} },
    };
    const asl = compile(def);
    expect(aslValidator(asl as never).isValid).toBe(true);
    const decide = async (parameters: Json, vars: Json) => {
      const run = start(asl, parameters);
      submit(await next('details'), { parameters, vars });
      const ended = await run;
      return ended.status === 'SUCCEEDED' ? (ended.output as Json)._decision : ended.status;
    };
    expect(await decide({ externalId: 'x' }, { idv: { overallDecision: 'FAIL' } })).toBe('FAIL');
    expect(await decide({ externalId: 'x' }, { idv: { overallDecision: 'REVIEW' } })).toBe('REVIEW');
    // Nothing derived and no error route: PASS. An error route taken: Decision on Any Failure.
    expect(await decide({ externalId: 'x' }, {})).toBe('PASS');
    expect(await decide({ externalId: 'taken' }, { idv: { overallDecision: 'maybe' } })).toBe('REVIEW');
    // The derived decision wins over an error route.
    expect(await decide({ externalId: 'taken' }, { idv: { overallDecision: 'PASS' } })).toBe('PASS');
    // Any other output on it, or no next node, is refused.
    expectRefused(edit(def, (d) => ((d.activities.SDD01 as Json).outputs = { other: '${x}' })), 'activities.SDD01.outputs.other');
    expectRefused(edit(def, (d) => delete (d.activities.SDD01 as Json).next), 'activities.SDD01.next');
    expectRefused(edit(def, (d) => ((d.activities.SDD01 as Json).inputs = { 'Derive Decision From': 'maybe' })), 'activities.SDD01.inputs.Derive Decision From');
  });

  it('fails the execution when no condition of a gateway without a default holds: a process error', async () => {
    const asl = compile(
      edit(journey(), (d) => {
        delete d.gateways.Gateway_doc!.default;
      }),
    );
    const run = start(asl, {});
    submit(await next('details'), { parameters: {}, vars: { details: { docType: 'LICENCE' } } });
    const ended = await run;
    expect(ended.status).toBe('FAILED');
    expect(ended.status === 'FAILED' && ended.error).toBe('States.NoChoiceMatched');
    expect(finalStatus(endOf(ended))).toBe('COMPLETED_PROCESS_ERROR');
  });

  it('takes the timer route when the user step times out', async () => {
    const asl = compile(journey());
    (asl.States.capture as AslTaskState).TimeoutSeconds = 1; // the compiled 270 s, shortened for the test
    const run = start(asl, {});
    submit(await next('details'), { parameters: {}, vars: { details: { docType: 'PASSPORT' } } });
    await next('capture');
    const ended = await run;
    expect(ended.status).toBe('SUCCEEDED');
    expect((ended.output as Json)._end).toEqual({ endEvent: 'End_timeout', errorCode: 'captureTimedOut' });
    expect(finalStatus(endOf(ended))).toBe('COMPLETED_ENDED_ERROR');
  });

  it('runs the large generated definition to its end along the default flows', async () => {
    const asl = compile(largeDefinition(20, 30));
    const run = start(asl, { externalId: 'x' });
    for (let i = 0; i < 20; i += 2) submit(await next(`Activity_${i}`), { parameters: { externalId: 'x' }, vars: {} });
    const ended = await run;
    expect(ended.status).toBe('SUCCEEDED');
    expect(finalStatus(endOf(ended))).toBe('COMPLETED_ENDED_SUCCESS');
  });
});
