import { cloudFunctionAccess, cloudFunctionRun } from './cloud-function-step.js';
import type { ActivityAccess } from './contract.js';
import { spec } from './specs/execute-cloud-function-v2.js';

export const aws = cloudFunctionAccess satisfies ActivityAccess;

/** Every type: JavaScript, and the family's Python 3.9 and 3.12 functions. */
export const run = cloudFunctionRun(spec);
