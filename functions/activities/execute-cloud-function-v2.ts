import { processVariables } from '../../statemachines/variables.js';
import { runFunctionStep } from '../cloud-functions/run-step.js';
import { getStoreConfig, localServiceEndpoints } from '../config.js';
import { countCloudFunctionRun } from '../observability/metrics.js';
import { sessionSandbox } from '../process-manager/sandbox.js';
import { ActivityError, TransientActivityError, type ActivityAccess, type ServiceRun , activityError } from './contract.js';
import { s } from './spec.js';
import { spec } from './specs/execute-cloud-function-v2.js';

/** The function's versions and code, its secrets (unsealed here), and its log beside the instance; the run is the runner's. */
export const aws = { table: ['GetItem', 'Query', 'PutItem'], cloudFunctions: true } as const satisfies ActivityAccess;

const ERRORS = { NotFound: 'CloudFunctionNotFound', SecretMissing: 'CloudSecretMissing', Timeout: 'CloudFunctionTimeout', Error: 'CloudFunctionError' } as const;

export const run: ServiceRun<typeof spec> = async ({ activityId, inputs, session, tenantId, now, expiresAt, deps }) => {
  const scope = processVariables(session) as Record<string, unknown>;
  const names = (inputs['Process Variables'] ?? []).filter((n): n is string => typeof n === 'string' && n !== '');
  const variables = Object.fromEntries(names.filter((n) => Object.hasOwn(scope, n)).map((n) => [n, scope[n]]));
  const functionName = inputs['Function Name'];
  if (functionName === undefined || functionName === '') throw activityError(spec, 'CloudFunctionNotFound', 'The step names no function: its Function Name is empty.');
  let outcome;
  try {
    outcome = await runFunctionStep(
      {
        functions: deps.cloudFunctions,
        secrets: deps.cloudSecrets,
        sealer: deps.secretSealer,
        logs: deps.cloudFunctionLogs,
        runner: deps.functionRunner,
        allowedOrigins: getStoreConfig().CLOUD_FUNCTION_ALLOWED_ORIGINS?.split(',').filter(Boolean) ?? [],
        refusedEndpoints: localServiceEndpoints(),
      },
      {
        functionName,
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
  if (inputs.Metrics === true || (inputs['Allowed Metrics'] ?? []).length > 0) await countCloudFunctionRun(tenantId, outcome.ok ? 'SUCCEEDED' : 'FAILED', { forTest: sessionSandbox(session) !== undefined });
  if (!outcome.ok) throw activityError(spec, ERRORS[outcome.reason], outcome.message);
  return { ...session, vars: { ...(session.vars ?? {}), ...outcome.variables } };
};
