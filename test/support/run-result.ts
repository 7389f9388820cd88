import type { RunResult } from '../../functions/cloud-functions/contract.js';

/** A run's output, or the test fails saying what the run did instead. */
export function output(result: RunResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected success, got ${result.error.name}: ${result.error.message}`);
  return result.output;
}

/** A run's error, or the test fails with what the run returned. */
export function failure(result: RunResult): { name: string; message: string } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.output)}`);
  return result.error;
}
