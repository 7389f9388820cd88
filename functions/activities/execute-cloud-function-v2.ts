import { processVariables } from '../../statemachines/variables.js';
import { cloudFunctionLogs, cloudFunctions, cloudSecrets, runner, secretSealer } from '../cloud-functions/deps.js';
import { runFunctionStep } from '../cloud-functions/run-step.js';
import { getStoreConfig, localServiceEndpoints } from '../config.js';
import { countCloudFunctionRun } from '../observability/metrics.js';
import { ActivityError, TransientActivityError, type ActivityAccess, type ServiceRun } from './contract.js';
import { s, type ActivitySpec } from './spec.js';

export const spec = {
  type: 'EXECUTE_CLOUD_FUNCTION_V2',
  displayName: 'Execute Cloud Function v2',
  kind: 'service',
  description:
    "Runs a version of the tenant's cloud function in the sandbox with the process variables and cloud secrets the step lists; " +
    'the variables it returns are set on the journey (for example for a gateway to read).',
  inputs: [
    s('Function Name', true),
    { name: 'Function Version', type: 'I', required: false, min: 1, description: 'Empty: the latest DEPLOYED_ACTIVE version.' },
    { name: 'Process Variables', type: 'L', required: false, description: 'The variables the function may read (`variables` in its handler).' },
    { name: 'Cloud Secrets', type: 'L', required: false, description: 'The secrets the function may read (`secrets` in its handler), by name.' },
    { name: 'Metrics', type: 'B', required: false, default: false, description: 'Also count the run as a CloudFunctionRuns metric, by outcome.' },
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
  ],
} as const satisfies ActivitySpec;

export const aliases = ['syncCloudFunctionExecutorV2'] as const;

/** The function's versions and code, its secrets (unsealed here), and its log beside the instance; the run is the runner's. */
export const aws = { table: ['GetItem', 'Query', 'PutItem'], cloudFunctions: true } as const satisfies ActivityAccess;

const ERRORS = { NotFound: 'CloudFunctionNotFound', SecretMissing: 'CloudSecretMissing', Timeout: 'CloudFunctionTimeout', Error: 'CloudFunctionError' } as const;

export const run: ServiceRun<typeof spec> = async ({ activityId, inputs, session, tenantId, now, expiresAt }) => {
  const scope = processVariables(session) as Record<string, unknown>;
  const names = (inputs['Process Variables'] ?? []).filter((n): n is string => typeof n === 'string' && n !== '');
  const variables = Object.fromEntries(names.filter((n) => Object.hasOwn(scope, n)).map((n) => [n, scope[n]]));
  let outcome;
  try {
    outcome = await runFunctionStep(
      {
        functions: cloudFunctions,
        secrets: cloudSecrets,
        sealer: secretSealer,
        logs: cloudFunctionLogs,
        runner,
        allowedOrigins: getStoreConfig().CLOUD_FUNCTION_ALLOWED_ORIGINS?.split(',').filter(Boolean) ?? [],
        refusedEndpoints: localServiceEndpoints(),
      },
      {
        functionName: inputs['Function Name'],
        functionVersion: inputs['Function Version'],
        variables,
        secretNames: (inputs['Cloud Secrets'] ?? []).filter((n): n is string => typeof n === 'string' && n !== ''),
        reportLog: inputs['Report Log'] !== false,
        ruleExecutionName: inputs['Rule Execution Name'],
      },
      { tenantId, processInstanceId: session.instance.processInstanceId, activityId, now, expiresAt },
    );
  } catch (err) {
    // The runner could not be reached or died: nothing is known of the run, so the step runs again.
    if (err instanceof Error && (err.name === 'CloudFunctionRunnerError' || err.name === 'RunnerInvokeError')) {
      throw new TransientActivityError(`The cloud function runner failed: ${err.name}`, { cause: err });
    }
    throw err;
  }
  if (inputs.Metrics === true) await countCloudFunctionRun(tenantId, outcome.ok ? 'SUCCEEDED' : 'FAILED');
  if (!outcome.ok) throw new ActivityError(ERRORS[outcome.reason], outcome.message);
  return { ...session, vars: { ...(session.vars ?? {}), ...outcome.variables } };
};
