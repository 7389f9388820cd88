import { describe, expect, it } from 'vitest';
import { canRead, ContractError, readPayload } from '../../../functions/activities/payload.js';
import { ActivityError } from '../../../functions/activities/contract.js';
import { runActivity } from '../../../functions/activities/lambda.js';
import { MAX_JOURNEY_STEPS } from '../../../functions/activities/run.js';
import {
  ACTIVITY_CONTRACT,
  CONTRACT_ERRORS,
  OLDEST_SERVED_CONTRACT,
  SERVED_CONTRACTS,
  UNNUMBERED_CONTRACT,
} from '../../../functions/shared/activity-contract.js';
import { LAMBDA_RETRY, TRANSIENT_RETRY } from '../../../statemachines/compile.js';

const inputs = { 'Store Name': 'people', 'User ID': 'U1', 'User Key': 'user1' };
const state = { _ref: { tenantId: 'demo', processInstanceId: 'p', v: 0 }, vars: {} };
/** A payload as a state machine of this build compiles it. */
const current = (over: Record<string, unknown> = {}) => ({
  contract: ACTIVITY_CONTRACT,
  activityId: 'getUser',
  activityType: 'GET_USER',
  inputs: JSON.stringify(inputs),
  keep: ['$._decision'],
  'state': state,
  ...over,
});
/** A payload as state machines compiled before contracts were numbered sent it: no `contract`. */
const unnumbered = () => {
  const { contract: _c, ...rest } = current();
  return rest;
};

describe('the served contracts', () => {
  it('are this build\'s and the one before (N-1), each with a reader', () => {
    expect(SERVED_CONTRACTS).toEqual({ current: ACTIVITY_CONTRACT, oldest: ACTIVITY_CONTRACT - 1 });
    expect(OLDEST_SERVED_CONTRACT).toBe(ACTIVITY_CONTRACT - 1);
    for (let c = OLDEST_SERVED_CONTRACT; c <= ACTIVITY_CONTRACT; c++) expect(canRead(c), `contract ${c}`).toBe(true);
  });

  it('retry a newer contract as Lambda\'s own failures (a deploy under way), and never an older one or a bad payload', () => {
    expect(LAMBDA_RETRY.ErrorEquals).toContain(CONTRACT_ERRORS.TOO_NEW);
    for (const retrier of [LAMBDA_RETRY, TRANSIENT_RETRY]) {
      expect(retrier.ErrorEquals).not.toContain(CONTRACT_ERRORS.TOO_OLD);
      expect(retrier.ErrorEquals).not.toContain(CONTRACT_ERRORS.BAD_PAYLOAD);
    }
  });
});

describe('readPayload', () => {
  it('reads a payload of the current contract', () => {
    expect(readPayload(current(), SERVED_CONTRACTS)).toEqual({
      contract: ACTIVITY_CONTRACT,
      activityId: 'getUser',
      activityType: 'GET_USER',
      inputs,
      keep: ['$._decision'],
      state,
    });
  });

  it('reads a payload with no contract (state machines compiled before contracts were numbered) as contract 1', () => {
    expect(UNNUMBERED_CONTRACT).toBe(1);
    expect(readPayload(unnumbered(), SERVED_CONTRACTS)).toMatchObject({ contract: 1, inputs, keep: ['$._decision'] });
    // Its older forms too: inputs and outputs as objects, no keep and the whole session as the state.
    const session = { instance: { tenantId: 'demo', processInstanceId: 'p' }, vars: {} };
    expect(readPayload({ activityId: 'a', activityType: 'GET_USER', inputs, outputs: { x: '${y}' }, state: session }, SERVED_CONTRACTS)).toEqual({
      contract: 1,
      activityId: 'a',
      activityType: 'GET_USER',
      inputs,
      outputs: { x: '${y}' },
      state: session,
    });
  });

  it('reads the previous contract, numbered', () => {
    expect(readPayload({ ...unnumbered(), contract: ACTIVITY_CONTRACT - 1 }, SERVED_CONTRACTS)).toMatchObject({ contract: ACTIVITY_CONTRACT - 1, inputs });
  });

  it('refuses a contract older than the previous one as Activity.ContractTooOld, saying which it serves', () => {
    const err = catching(() => readPayload(current({ contract: OLDEST_SERVED_CONTRACT - 1 }), SERVED_CONTRACTS));
    expect(err).toBeInstanceOf(ActivityError);
    expect(err).toMatchObject({ name: CONTRACT_ERRORS.TOO_OLD, message: expect.stringContaining(`serves contracts ${OLDEST_SERVED_CONTRACT} to ${ACTIVITY_CONTRACT}`) });
    // A build that has dropped contract 1 refuses the unnumbered payloads too.
    expect(() => readPayload(unnumbered(), { current: ACTIVITY_CONTRACT, oldest: ACTIVITY_CONTRACT })).toThrow(
      expect.objectContaining({ name: CONTRACT_ERRORS.TOO_OLD }),
    );
  });

  it('refuses a newer contract (a newer state machine calling older code during a deploy) as Activity.ContractTooNew', () => {
    expect(() => readPayload(current({ contract: ACTIVITY_CONTRACT + 1 }), SERVED_CONTRACTS)).toThrow(
      expect.objectContaining({ name: CONTRACT_ERRORS.TOO_NEW, message: expect.stringContaining('a deploy is under way') }),
    );
    // What the build before this one (serving 1 only) does with this build's payloads.
    expect(() => readPayload(current(), { current: ACTIVITY_CONTRACT - 1, oldest: ACTIVITY_CONTRACT - 2 })).toThrow(
      expect.objectContaining({ name: CONTRACT_ERRORS.TOO_NEW }),
    );
  });

  it('refuses a contract that is no whole number as Activity.BadPayload', () => {
    for (const contract of ['2', 2.5, -1, null, true, {}, Number.NaN]) {
      expect(() => readPayload(current({ contract }), SERVED_CONTRACTS), JSON.stringify(contract)).toThrow(
        expect.objectContaining({ name: CONTRACT_ERRORS.BAD_PAYLOAD }),
      );
    }
  });

  it('refuses a payload that is not what its contract says as Activity.BadPayload, never a TypeError', () => {
    const cases: [string, unknown][] = [
      ['not an object', 'hello'],
      ['null', null],
      ['an array', [current()]],
      ['no activityId', current({ activityId: undefined })],
      ['an activityType that is no name', current({ activityType: 7 })],
      ['a state that is no object', current({ state: 'x' })],
      ['a state that is null', current({ state: null })],
      ['inputs as an object (contract 2 writes JSON text)', current({ inputs })],
      ['no inputs', current({ inputs: undefined })],
      ['inputs that are not JSON', current({ inputs: '{nope' })],
      ['inputs that are JSON but no object', current({ inputs: '[1]' })],
      ['no keep', current({ keep: undefined })],
      ['keep that is no list of paths', current({ keep: '$.vars' })],
      ['an output that is no expression', current({ outputs: JSON.stringify({ x: 1 }) })],
      ['a task token that is no text', current({ taskToken: 5 })],
      ['contract 1 inputs that are neither text nor an object', { ...unnumbered(), inputs: 5 }],
    ];
    for (const [what, raw] of cases) {
      const err = catching(() => readPayload(raw, SERVED_CONTRACTS));
      expect(err, what).toBeInstanceOf(ContractError);
      expect((err as Error).name, what).toBe(CONTRACT_ERRORS.BAD_PAYLOAD);
    }
  });
});

describe('runActivity at the contract\'s edges', () => {
  it('fails the step under the contract error before any store is read', async () => {
    // No table is reachable in unit tests: a read would fail otherwise, not with these names.
    await expect(runActivity(current({ contract: ACTIVITY_CONTRACT + 1 }), new Date())).rejects.toMatchObject({ name: CONTRACT_ERRORS.TOO_NEW });
    await expect(runActivity(current({ contract: OLDEST_SERVED_CONTRACT - 1 }), new Date())).rejects.toMatchObject({ name: CONTRACT_ERRORS.TOO_OLD });
    await expect(runActivity(current({ inputs: '{nope' }), new Date())).rejects.toMatchObject({ name: CONTRACT_ERRORS.BAD_PAYLOAD });
    await expect(runActivity(null as never, new Date())).rejects.toMatchObject({ name: CONTRACT_ERRORS.BAD_PAYLOAD });
  });

  it('fails a journey at its step limit before any store is read: a loop of service steps ends', async () => {
    const at = (v: number) => current({ state: { ...state, _ref: { ...state._ref, v } } });
    await expect(runActivity(at(MAX_JOURNEY_STEPS), new Date())).rejects.toMatchObject({ name: 'JourneyStepLimit' });
    await expect(runActivity(at(MAX_JOURNEY_STEPS + 5), new Date())).rejects.toMatchObject({ name: 'JourneyStepLimit' });
    // One step below: the session is read (no table in unit tests, so that read is what fails).
    await expect(runActivity(at(MAX_JOURNEY_STEPS - 1), new Date())).rejects.not.toMatchObject({ name: 'JourneyStepLimit' });
  });

  it('serves the current and the previous contract: the step runs its module', async () => {
    // An unresolved reference is the module's input check: reached only once the payload is served.
    const unresolved = JSON.stringify({ ...inputs, 'Store Name': '${storeName}' });
    const session = { instance: { tenantId: 'demo', processInstanceId: 'p' }, vars: {} };
    for (const contract of [ACTIVITY_CONTRACT, ACTIVITY_CONTRACT - 1]) {
      // The whole session as the state: served without the table (executions started before the session moved there).
      await expect(runActivity({ ...current({ contract, inputs: unresolved }), state: session }, new Date()), `contract ${contract}`).rejects.toMatchObject({
        name: 'UnresolvedReference',
      });
    }
  });

  it('refuses a user step with no task token as Activity.BadPayload, rather than recording a step nothing can resume', async () => {
    const session = { instance: { tenantId: 'demo', processInstanceId: 'p' }, vars: {} };
    const form = { 'Form data Key': 'details', 'Step Timeout (Seconds)': 600, Form: { title: { values: { en: 'T' } }, version: 1, components: [] } };
    await expect(
      runActivity({ ...current({ activityId: 'details', activityType: 'DATA_FORM', inputs: JSON.stringify(form) }), state: session }, new Date()),
    ).rejects.toMatchObject({ name: CONTRACT_ERRORS.BAD_PAYLOAD, message: expect.stringContaining('task token') });
  });
});

function catching(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}
