import { describe, expect, it } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import { run } from '../../../functions/activities/counter-v1.js';
import { COUNTER_PASS_LIMIT } from '../../../functions/activities/specs/counter-v1.js';
import { runActivity } from '../../../functions/activities/lambda.js';
import type { Session } from '../../../functions/activities/contract.js';
import { validateDefinition } from '../../../statemachines/validate.js';

const session = (vars: Record<string, unknown> = {}): Session => ({ instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: {}, vars }) as Session;
const count = (name: string, vars?: Record<string, unknown>) =>
  run({ activityId: 'c', inputs: { 'Counter Name': name }, session: session(vars), tenantId: 'demo', actor: 'journey:p', now: new Date(), deps: activityDeps });

describe('Counter v1', () => {
  it('creates the variable at 1, then adds one each pass, leaving the rest of the session as it was', async () => {
    const first = await count('visits', { other: 'kept' });
    expect(first.vars).toEqual({ other: 'kept', visits: 1 });
    expect((await count('visits', first.vars as Record<string, unknown>)).vars).toEqual({ other: 'kept', visits: 2 });
  });

  it('counts on from a count kept as text (a token parameter) or null', async () => {
    expect((await count('visits', { visits: '41' })).vars).toMatchObject({ visits: 42 });
    expect((await count('visits', { visits: null })).vars).toMatchObject({ visits: 1 });
  });

  it('fails as CounterNotANumber when the variable holds something else', async () => {
    for (const visits of ['two', '-1', 1.5, -1, true, { n: 1 }, [1]]) {
      await expect(count('visits', { visits }), JSON.stringify(visits)).rejects.toMatchObject({ name: 'CounterNotANumber' });
    }
  });

  it('counts up to its pass limit and fails the pass after it, which bounds a loop of service steps', async () => {
    expect((await count('visits', { visits: COUNTER_PASS_LIMIT - 1 })).vars).toMatchObject({ visits: COUNTER_PASS_LIMIT });
    for (const visits of [COUNTER_PASS_LIMIT, String(COUNTER_PASS_LIMIT), Number.MAX_SAFE_INTEGER]) {
      await expect(count('visits', { visits }), String(visits)).rejects.toMatchObject({ name: 'CounterLimitExceeded' });
    }
  });

  it('refuses a session key as its name when it runs, and at publish a name that is no variable name or a reference', async () => {
    await expect(count('_checks')).rejects.toMatchObject({ name: 'InvalidInput' });
    await expect(runActivity({ activityId: 'c', activityType: 'COUNTER_V1', inputs: {}, state: session() }, new Date())).rejects.toMatchObject({ name: 'MissingInput' });
    const definition = (name: string) => ({
      name: 'counting',
      version: 1,
      startActivityId: 'count',
      activities: { count: { type: 'COUNTER_V1', inputs: { 'Counter Name': name }, next: 'done' }, done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } },
    });
    expect(() => validateDefinition(definition('visits'))).not.toThrow();
    for (const name of ['two words', '1st', '${counterName}']) expect(() => validateDefinition(definition(name)), name).toThrow(/Counter Name/);
  });

  it('does not count a prototype name as an existing variable', async () => {
    expect((await count('constructor')).vars).toEqual({ constructor: 1 });
  });
});
