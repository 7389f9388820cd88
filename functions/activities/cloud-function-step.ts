/**
 * The run of both cloud function activities (Execute Cloud Function v1 and v2: one task, the
 * family's inputs and error codes): the function's version and secrets, its run in the runner,
 * its log, and what it gives the journey: a JavaScript function's variables, or a Python
 * function's `results` written back in the family's contract (cloud-functions/family-results.ts).
 */
import { processVariables } from '../../statemachines/variables.js';
import { runFunctionStep } from '../cloud-functions/run-step.js';
import { countersOf, ReservedVariableError, writeBack } from '../cloud-functions/family-results.js';
import type { CloudFunctionType } from '../cloud-functions/model.js';
import { getStoreConfig, localServiceEndpoints } from '../config.js';
import { countCloudFunctionCounter, countCloudFunctionRun } from '../observability/metrics.js';
import { sessionSandbox } from '../process-manager/sandbox.js';
import { TransientActivityError, type ServiceRun, activityError } from './contract.js';
import type { spec as v1 } from './specs/execute-cloud-function-v1.js';
import type { spec as v2 } from './specs/execute-cloud-function-v2.js';

/** The function's versions and code, its secrets (unsealed here), and its log beside the instance; the run is the runner's. */
export const cloudFunctionAccess = { table: ['GetItem', 'Query', 'PutItem'], cloudFunctions: true } as const;

const ERRORS = { NotFound: 'CloudFunctionNotFound', SecretMissing: 'CloudSecretMissing', Timeout: 'CloudFunctionTimeout', Error: 'CloudFunctionError' } as const;

const names = (list: readonly unknown[] | undefined) => (list ?? []).filter((n): n is string => typeof n === 'string' && n !== '');

/** The step's run; `types`: the function types it runs (all when absent). */
export function cloudFunctionRun(spec: typeof v2 | typeof v1, types?: readonly CloudFunctionType[]): ServiceRun<typeof v2> {
  return async ({ activityId, inputs, session, tenantId, now, expiresAt, deps }) => {
    const scope = processVariables(session) as Record<string, unknown>;
    const variables = Object.fromEntries(names(inputs['Process Variables']).filter((n) => Object.hasOwn(scope, n)).map((n) => [n, scope[n]]));
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
          secretNames: names(inputs['Cloud Secrets']),
          reportLog: inputs['Report Log'] !== false,
          ruleExecutionName: inputs['Rule Execution Name'],
          ...(types ? { types } : {}),
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
    const forTest = sessionSandbox(session) !== undefined;
    const allowed = names(inputs['Allowed Metrics']);
    if (inputs.Metrics === true || allowed.length > 0) await countCloudFunctionRun(tenantId, outcome.ok ? 'SUCCEEDED' : 'FAILED', { forTest });
    if (!outcome.ok) throw activityError(spec, ERRORS[outcome.reason], outcome.message);
    if (outcome.kind === 'javascript') return { ...session, vars: { ...(session.vars ?? {}), ...outcome.variables } };
    let written;
    try {
      written = writeBack(session, outcome.results, { functionName: outcome.functionName, ruleExecutionName: inputs['Rule Execution Name'] });
    } catch (err) {
      if (err instanceof ReservedVariableError) throw activityError(spec, 'CloudFunctionError', `Cloud function "${outcome.functionName}": ${err.message}`);
      throw err;
    }
    for (const [counter, result] of countersOf(outcome.results, allowed)) await countCloudFunctionCounter(tenantId, counter, result, { forTest });
    return { ...session, vars: written.vars, _checks: written.checks };
  };
}
