import { describe, expect, it } from 'vitest';
import { executionEndConcurrencyFor, executionEndsPerSecond, RESERVED_DEFAULTS, reservedConcurrencyFromContext, TARGET_JOURNEY_ENDS_PER_SECOND, totalReserved } from '../../lib/concurrency.js';

const from = (context: Record<string, unknown>) => reservedConcurrencyFromContext((key) => context[key]);

describe('reservedConcurrencyFromContext', () => {
  it('reserves nothing when the context asks for nothing', () => {
    expect(from({})).toEqual({});
    expect(from({ reservedConcurrency: 'false' })).toEqual({});
  });

  it('reserves 202 in all with reservedConcurrency=true (as -c hands it, or from cdk.json)', () => {
    for (const flag of ['true', true]) {
      const r = from({ reservedConcurrency: flag });
      expect(r).toEqual({ activities: 100, executionEnd: 100, reconciler: 1, janitor: 1 });
      expect(totalReserved(r)).toBe(202);
    }
  });

  it('sizes the execution-end reservation for 500 journey ends a second, where 10 recorded 60', () => {
    expect(executionEndsPerSecond(10)).toBe(60);
    expect(executionEndsPerSecond(RESERVED_DEFAULTS.executionEnd)).toBeGreaterThanOrEqual(TARGET_JOURNEY_ENDS_PER_SECOND * 1.2);
    expect(executionEndConcurrencyFor(60)).toBe(20);
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
