import { s, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'EXECUTE_CLOUD_FUNCTION_V2',
  displayName: 'Execute Cloud Function v2',
  kind: 'service',
  description:
    "Runs a version of the tenant's cloud function in the sandbox with the process variables and cloud secrets the step lists. " +
    'A JavaScript function returns the variables set on the journey; a Python function (PYTHON39V1 or PYTHON312V2) reads `params` and ' +
    "fills `results` in the family's contract: `results.executionVariables` set on the journey, `results` itself kept for gateways " +
    '(`cloudFunctions.ruleExecutionResults.<Rule Execution Name>.ruleResults`) and forms (`_checks.cloudFunctions.<Function Name>.metaData.ruleResults`).',
  inputs: [
    {
      ...s('Function Name', false, undefined, 'The function to run. Empty (as the family allows at publish): the step fails with Function Not Found when it runs.'),
      family: { name: 'functionName' },
    },
    { name: 'Function Version', type: 'I', required: false, min: 1, description: 'Empty: the latest DEPLOYED_ACTIVE version.', family: { name: 'functionVersion' } },
    {
      name: 'Process Variables',
      type: 'L',
      required: false,
      description: 'The variables the function may read (`variables` in a JavaScript handler, `params["vars"]` in Python).',
      family: { name: 'processVariables' },
    },
    {
      name: 'Cloud Secrets',
      type: 'L',
      required: false,
      description: 'The secrets the function may read (`secrets` in a JavaScript handler, `params["secrets"]` in Python), by name; an entry may be an expression (`${idv.configSecrets[0]}`).',
      family: { name: 'cloudSecrets' },
    },
    { name: 'Metrics', type: 'B', required: false, default: false, description: 'Also count the run as a CloudFunctionRuns metric, by outcome.' },
    {
      name: 'Allowed Metrics',
      type: 'L',
      required: false,
      description:
        "The family's Metrics list: the counter names a Python function may record (`results[\"metrics\"] = {\"counters\": {name: outcome}}`; a name not listed is not recorded). A non-empty list also counts the run as a CloudFunctionRuns metric, as Metrics does.",
      // Matched by its name only: its label (Metrics) is this activity's Metrics input's name.
      family: { name: 'cloudFunctionAllowedMetrics', type: 'LIST_STRING' },
    },
    { name: 'Report Log', type: 'B', required: false, default: true, description: "Keep the run's console output with the instance." },
    s('Rule Execution Name', false, undefined, 'A label kept with the run.'),
  ],
  rules: [],
  // Each member of the object the function returns becomes a process variable of that name.
  outputs: [],
  errorEvents: [
    { name: 'Function Error', aslError: 'CloudFunctionError', code: 'cloudFunctionError', description: 'The function threw, returned something other than an object, or ran out of memory.' },
    { name: 'Function Timeout', aslError: 'CloudFunctionTimeout', code: 'cloudFunctionTimeout', description: 'The function ran past its timeout.' },
    { name: 'Function Not Found', aslError: 'CloudFunctionNotFound', code: 'cloudFunctionNotFound', description: 'No runnable version of the function.' },
    { name: 'Cloud Secret Missing', aslError: 'CloudSecretMissing', code: 'cloudSecretMissing', description: 'A secret the step lists does not exist.' },
    {
      // The family routes every failure of a cloud function step by this one code.
      name: 'Failed Sync Rule Execution',
      aslError: 'CloudFunctionError',
      alsoCatches: ['CloudFunctionTimeout', 'CloudFunctionNotFound', 'CloudSecretMissing'],
      code: 'failedSyncRuleExecution',
      familyCode: 'FailedSyncRuleExecution',
      description: 'Any failure of the step: the four events above together (route either this one or those).',
    },
  ],
  family: { palette: 'ECF02', beans: ['syncCloudFunctionExecutorV2'] },
} as const satisfies ActivitySpec;
