/**
 * Reserved concurrency of the stack's functions, from CDK context. None by default: a reservation
 * is taken from the account's Lambda concurrency quota, and Lambda always keeps 100 of it
 * unreserved, so every reserved execution raises the quota an account needs before CloudFormation
 * can even create the functions (new accounts often start at 10 or 50; a deploy that reserves more
 * than the quota allows rolls back whole).
 *
 * - `reservedConcurrency=true` reserves for the four functions that had reservations: the activity
 *   function 100, the execution-end function 100 (sized for 500 journey ends a second: below),
 *   the reconciler 1 and the janitor 1 (202 in all: an account quota of at least 302).
 * - `activityConcurrency=N`, `executionEndConcurrency=N` reserve N for that one function (with or
 *   without `reservedConcurrency=true`, where they replace its default).
 * - `reservedConcurrency=false` with one of those is refused, as a contradiction.
 *
 * Pure (no CDK import), so that the preflight (lib/preflight.ts) computes what a deploy with the
 * same context would reserve.
 */

/** Lambda keeps this much of an account's concurrency unreserved; a reservation into it is refused. */
export const LAMBDA_MINIMUM_UNRESERVED = 100;

/** The journey ends a second the execution-end function is sized for: one tenant's 500 journeys a second (docs/aws.md, Capacity model). */
export const TARGET_JOURNEY_ENDS_PER_SECOND = 500;

/**
 * Function time one journey end takes, in seconds of one execution environment: the `Record
 * outcome` invocation (the instance and its step read, one transaction of the status, its views
 * and events) and the status-change event's (the instance read, found already final). About a
 * sixth of a second: what the 60 ends a second the old reservation of 10 managed works out at.
 * An environment runs one invocation at a time, so concurrency N ends N / this a second.
 */
export const EXECUTION_END_SECONDS_PER_END = 1 / 6;

/** Journey ends a second `concurrency` execution environments of the execution-end function record. */
export function executionEndsPerSecond(concurrency: number): number {
  return concurrency / EXECUTION_END_SECONDS_PER_END;
}

/** The execution-end concurrency for `endsPerSecond`, with a fifth more for bursts, rounded up to ten. */
export function executionEndConcurrencyFor(endsPerSecond: number): number {
  return Math.ceil((endsPerSecond * EXECUTION_END_SECONDS_PER_END * 1.2) / 10) * 10;
}

/**
 * What `reservedConcurrency=true` reserves for each function not given its own value. A
 * reservation is also the function's ceiling: the execution-end function's is sized for
 * TARGET_JOURNEY_ENDS_PER_SECOND (100: 600 ends a second), where 10 held it to 60.
 */
export const RESERVED_DEFAULTS = {
  activities: 100,
  executionEnd: executionEndConcurrencyFor(TARGET_JOURNEY_ENDS_PER_SECOND),
  reconciler: 1,
  janitor: 1,
} as const;

export type ReservedFunction = keyof typeof RESERVED_DEFAULTS;

/** Reserved concurrency by function; a function not named here reserves none. */
export type ReservedConcurrency = Partial<Record<ReservedFunction, number>>;

/** The physical name suffix of each function (`arthr-{region}-{suffix}`: lib/stack.ts, lib/constructs/journey-functions.ts). */
const FUNCTION_SUFFIXES: Record<ReservedFunction, string> = {
  activities: 'activities',
  executionEnd: 'execution-end',
  reconciler: 'reconcileExecutions',
  janitor: 'sweepStateMachines',
};

/** The functions' physical names in a deployment (all far below Lambda's 64 characters, so never cut). */
export function reservedFunctionNames(namePrefix: string): Record<ReservedFunction, string> {
  return Object.fromEntries(Object.entries(FUNCTION_SUFFIXES).map(([fn, suffix]) => [fn, `${namePrefix}-${suffix}`])) as Record<ReservedFunction, string>;
}

/** Context keys of the per-function values, and their bounds. */
const PER_FUNCTION = {
  activities: { key: 'activityConcurrency', max: 5_000 },
  executionEnd: { key: 'executionEndConcurrency', max: 1_000 },
} as const;

/**
 * The reservations a context asks for. `get` reads one context key (`node.tryGetContext`, or the
 * preflight's own reading of cdk.json and `-c`): `-c key=value` hands over strings, cdk.json values.
 */
export function reservedConcurrencyFromContext(get: (key: string) => unknown): ReservedConcurrency {
  const flag = get('reservedConcurrency');
  const on = flag === true || flag === 'true';
  const off = flag === false || flag === 'false';
  if (!on && !off && flag !== undefined && flag !== null && flag !== '') {
    throw new Error(`Context "reservedConcurrency" must be true or false, got ${JSON.stringify(flag)}`);
  }
  const out: ReservedConcurrency = on ? { ...RESERVED_DEFAULTS } : {};
  for (const [fn, { key, max }] of Object.entries(PER_FUNCTION) as [ReservedFunction, { key: string; max: number }][]) {
    const v = get(key);
    if (v === undefined || v === null || v === '') continue;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`Context "${key}" must be an integer from 1 to ${max}, got ${JSON.stringify(v)}`);
    if (off) throw new Error(`Context "${key}" reserves concurrency, but "reservedConcurrency" is false: drop one of them`);
    out[fn] = n;
  }
  return out;
}

/** Everything the stack reserves together. */
export function totalReserved(r: ReservedConcurrency): number {
  return Object.values(r).reduce((sum, n) => sum + (n ?? 0), 0);
}
