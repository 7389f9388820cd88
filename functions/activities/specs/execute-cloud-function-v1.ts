import type { ActivitySpec } from '../spec.js';
import { spec as v2 } from './execute-cloud-function-v2.js';

/**
 * The family's first cloud function activity: the same task as v2 (its inputs, its error codes,
 * `FailedSyncRuleExecution` above all), which runs the family's Python 3.9 functions
 * (PYTHON39V1) only, as the family's v1 does.
 */
export const spec = {
  ...v2,
  type: 'EXECUTE_CLOUD_FUNCTION_V1',
  displayName: 'Execute Cloud Function v1',
  description:
    "Runs a version of the tenant's Python 3.9 cloud function (PYTHON39V1) with the process variables and cloud secrets the step lists, " +
    "in the family's contract: `params` in, `results` out, `results.executionVariables` set on the journey. " +
    'A function of another type fails the step (Execute Cloud Function v2 runs every type).',
  family: { palette: 'ECF01', beans: ['syncRuleExecutorV1'] },
} as const satisfies ActivitySpec;
