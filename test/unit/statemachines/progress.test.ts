import { describe, expect, it } from 'vitest';
import { stepProgress } from '../../../statemachines/progress.js';
import type { ProcessDefinition } from '../../../statemachines/definition.js';

const user = (type: string) => type === 'USER';
const def = (activities: ProcessDefinition['activities'], gateways?: ProcessDefinition['gateways']): ProcessDefinition => ({
  name: 'p',
  version: 1,
  description: '',
  retentionDays: 30,
  startActivityId: 'a',
  activities,
  ...(gateways ? { gateways } : {}),
});

describe('stepProgress', () => {
  it('numbers the user steps of a line and skips service steps', () => {
    const d = def({ a: { type: 'SERVICE', inputs: {}, next: 'b' }, b: { type: 'USER', inputs: {}, next: 'c' }, c: { type: 'USER', inputs: {}, next: 'd' }, d: { type: 'SERVICE', inputs: {} } });
    expect(stepProgress(d, user)).toEqual({ b: [1, 2], c: [2, 2] });
  });

  it('numbers by the longest way in, totals by the longest way on from the step, and cuts a retake loop', () => {
    const d = def(
      {
        a: { type: 'USER', inputs: {}, next: 'g' },
        long1: { type: 'USER', inputs: {}, next: 'long2' },
        long2: { type: 'USER', inputs: {}, next: 'z' },
        short: { type: 'USER', inputs: {}, next: 'z' },
        // Its error route goes back to the start (a retake): cut, not counted.
        z: { type: 'USER', inputs: {}, errorEvents: { Retake: 'a' } },
      },
      { g: { branches: [{ when: '${x}', next: 'long1' }], default: 'short' } },
    );
    expect(stepProgress(d, user)).toEqual({ a: [1, 4], long1: [2, 4], long2: [3, 4], short: [2, 3], z: [4, 4] });
  });
});
