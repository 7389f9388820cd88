import { cloudFunctionAccess, cloudFunctionRun } from './cloud-function-step.js';
import type { ActivityAccess } from './contract.js';
import { spec } from './specs/execute-cloud-function-v1.js';

export const aws = cloudFunctionAccess satisfies ActivityAccess;

/** The family's v1 runs its Python 3.9 functions only. */
export const run = cloudFunctionRun(spec, ['PYTHON39V1']);
