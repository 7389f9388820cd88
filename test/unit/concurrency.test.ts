import { describe, expect, it } from 'vitest';
import { reservedConcurrencyFromContext, totalReserved } from '../../lib/concurrency.js';

const from = (context: Record<string, unknown>) => reservedConcurrencyFromContext((key) => context[key]);

describe('reservedConcurrencyFromContext', () => {
  it('reserves nothing when the context asks for nothing', () => {
    expect(from({})).toEqual({});
    expect(from({ reservedConcurrency: 'false' })).toEqual({});
  });

  it('reserves 112 in all with reservedConcurrency=true (as -c hands it, or from cdk.json)', () => {
    for (const flag of ['true', true]) {
      const r = from({ reservedConcurrency: flag });
      expect(r).toEqual({ activities: 100, executionEnd: 10, reconciler: 1, janitor: 1 });
      expect(totalReserved(r)).toBe(112);
    }
  });

  it('reserves for one function given its own value, replacing its default under reservedConcurrency=true', () => {
    expect(from({ activityConcurrency: '40' })).toEqual({ activities: 40 });
    expect(from({ reservedConcurrency: 'true', executionEndConcurrency: 5 })).toEqual({ activities: 100, executionEnd: 5, reconciler: 1, janitor: 1 });
  });

  it('rejects when a value is not a positive integer within bounds, or contradicts reservedConcurrency=false', () => {
    expect(() => from({ reservedConcurrency: 'yes' })).toThrow(/"reservedConcurrency" must be true or false/);
    expect(() => from({ activityConcurrency: '0' })).toThrow(/"activityConcurrency" must be an integer from 1 to 5000/);
    expect(() => from({ executionEndConcurrency: '2.5' })).toThrow(/"executionEndConcurrency"/);
    expect(() => from({ reservedConcurrency: 'false', activityConcurrency: '10' })).toThrow(/"reservedConcurrency" is false/);
  });
});
