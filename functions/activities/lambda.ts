import { activityDeps } from './deps.js';
import { BEGINS, RUNS } from './index.generated.js';
import { activityFunction } from './run.js';

/**
 * The activity function's entry point, which owns its list: the run and begin functions of every
 * activity module (the generated index) and the stores and engines they get (deps.ts). The local
 * runtime calls this same function (lib/local/functions.ts).
 */
export const runActivity = activityFunction({ runs: RUNS, begins: BEGINS, deps: activityDeps });

/**
 * The activity function's Lambda entry: Step Functions invokes it for every Task state with the
 * payload the compiler wrote ({contract, activityId, activityType, inputs, outputs?, keep, state,
 * taskToken?}; functions/activities/payload.ts reads it by its contract). An error it
 * throws fails the state under the error's name, which is what the definitions' Catch routes match.
 */
export async function handler(payload: Record<string, unknown>): Promise<unknown> {
  return runActivity(payload, new Date());
}
