import { describe, expect, it } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import { run } from '../../../functions/activities/clear-variables-v1.js';
import { runActivity } from '../../../functions/activities/lambda.js';
import type { Session } from '../../../functions/activities/contract.js';
import { validateDefinition } from '../../../statemachines/validate.js';

const session = (vars: Record<string, unknown> = {}): Session =>
  ({ instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: { dvsAttempt: '9' }, vars, _checks: { face: { result: 'PASS' } } }) as Session;
const clear = (names: string[], vars?: Record<string, unknown>) =>
  run({ activityId: 'reset', inputs: { 'Variables to clear': names }, session: session(vars), tenantId: 'demo', actor: 'journey:p', now: new Date(), deps: activityDeps });

describe('Clear Variables', () => {
  it('removes the named process variables and leaves the rest of the session as it was', async () => {
    const after = await clear(['dvsAttempt', 'confirmDetailsCounter'], { dvsAttempt: 3, confirmDetailsCounter: 1, kept: 'yes' });
    expect(after.vars).toEqual({ kept: 'yes' });
    expect(after.parameters).toEqual({ dvsAttempt: '9' });
    expect(after._checks).toEqual({ face: { result: 'PASS' } });
  });

  it('takes a name the journey does not have, or an empty list, as nothing to do', async () => {
    expect((await clear(['missing', 'constructor'], { kept: 1 })).vars).toEqual({ kept: 1 });
    expect((await clear([], { kept: 1 })).vars).toEqual({ kept: 1 });
  });

  it('refuses a session key or a name that is no variable name, and then clears nothing', async () => {
    for (const names of [['_checks'], ['instance'], ['ok', 'two words'], ['1st'], ['a.b']]) {
      await expect(clear(names, { ok: 1 }), names.join()).rejects.toMatchObject({ name: 'InvalidInput' });
    }
  });

  it('needs its list when it runs, and a list at publish', async () => {
    await expect(runActivity({ activityId: 'reset', activityType: 'CLEAR_VARIABLES_V1', inputs: {}, state: session() }, new Date())).rejects.toMatchObject({ name: 'MissingInput' });
    const definition = (value: unknown) => ({
      name: 'resetting',
      version: 1,
      startActivityId: 'reset',
      activities: { reset: { type: 'CLEAR_VARIABLES_V1', inputs: { 'Variables to clear': value }, next: 'done' }, done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } },
    });
    expect(() => validateDefinition(definition(['dvsAttempt']))).not.toThrow();
    expect(() => validateDefinition(definition('dvsAttempt'))).toThrow(/Variables to clear/);
  });
});
