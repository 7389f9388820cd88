import { runActivity } from './run.js';

/**
 * The activity function's Lambda entry: Step Functions invokes it for every Task state with the
 * payload the compiler wrote ({activityId, activityType, inputs, state, taskToken?}). An error it
 * throws fails the state under the error's name, which is what the definitions' Catch routes match.
 */
export async function handler(payload: Record<string, unknown>): Promise<unknown> {
  return runActivity(payload, new Date());
}
