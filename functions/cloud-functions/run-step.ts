import { isPythonType, type CloudFunctionLogStore, type CloudFunctionStore, type CloudFunctionType, type CloudSecretSealer, type CloudSecretStore, type FunctionRunner, type RunResult } from './model.js';
import { functionToRun } from './functions.js';
import { secretsForRun } from './secrets.js';

/**
 * One run of a tenant's function for a journey step (the Execute Cloud Function v2 activity):
 * the version to run, the variables and secrets the step lists, the run in the sandbox (never in
 * this process), the log kept with the instance, and the variables the function returns.
 */
export interface FunctionStep {
  functionName: string;
  /** Undefined: the latest DEPLOYED_ACTIVE version. */
  functionVersion: number | undefined;
  /** The process variables the function may read, and their values now. */
  variables: Record<string, unknown>;
  /** The secrets it may read, by name. */
  secretNames: string[];
  reportLog: boolean;
  /** The family's label of the run, kept with its log. */
  ruleExecutionName?: string | undefined;
  /** The function types the step runs (Execute Cloud Function v1: PYTHON39V1 only); any when absent. */
  types?: readonly CloudFunctionType[];
}

export type FunctionStepOutcome =
  /** A JavaScript function: the variables it returned. */
  | { ok: true; kind: 'javascript'; variables: Record<string, unknown> }
  /** A Python function: its `results` (the family's contract: the step writes them back), and the version that ran. */
  | { ok: true; kind: 'python'; results: Record<string, unknown>; functionName: string }
  /** `reason` is the stable error: NotFound, SecretMissing, Timeout, Error. `message` names only the definition's own names (and, Python, the exception). */
  | { ok: false; reason: 'NotFound' | 'SecretMissing' | 'Timeout' | 'Error'; message: string };

export interface FunctionStepDeps {
  functions: Pick<CloudFunctionStore, 'get' | 'getVersion' | 'versionsOf'>;
  secrets: CloudSecretStore;
  sealer: CloudSecretSealer;
  logs: Pick<CloudFunctionLogStore, 'put'>;
  runner: FunctionRunner;
  /** Origins the guard lets through though it would refuse them (the local S3 stand-in); none on AWS. */
  allowedOrigins: string[];
  /** The local runtime's own services, which the guard refuses whatever it allows (DynamoDB Local, fauxqs); none on AWS. */
  refusedEndpoints: string[];
}

const MiB = 1024 * 1024;
/** The variables a run may return, as JSON: well within the session's 192 KiB with what it already holds. */
export const MAX_OUTPUT_BYTES = 128 * 1024;
/**
 * A Python function's `results` as JSON: the journey keeps them twice (where gateways read them
 * and where forms read them, as the family does), so half of what a JavaScript function may return.
 */
export const MAX_PYTHON_OUTPUT_BYTES = 60 * 1024;
/** A Python function's failure as the step reports it (its type, message and line). */
const MAX_ERROR_CHARS = 1_200;

export async function runFunctionStep(
  d: FunctionStepDeps,
  step: FunctionStep,
  at: { tenantId: string; processInstanceId: string; activityId: string; now: Date; expiresAt: number | undefined },
): Promise<FunctionStepOutcome> {
  const fn = await functionToRun(d.functions, at.tenantId, step.functionName, step.functionVersion);
  // The names may come from references to the session: the messages (the journey's history) do not repeat them.
  if (!fn) {
    const which = step.functionVersion === undefined ? 'no DEPLOYED_ACTIVE version' : 'no such version that is not ARCHIVED';
    return { ok: false, reason: 'NotFound', message: `The cloud function step ${at.activityId} names a function with ${which}.` };
  }
  const type = fn.type ?? 'JAVASCRIPT';
  if (step.types && !step.types.includes(type)) {
    return { ok: false, reason: 'Error', message: `Cloud function "${fn.name}" version ${fn.version} is a ${type} function; this step runs ${step.types.join(' or ')} functions only.` };
  }
  const { values, missing } = await secretsForRun(d, at.tenantId, step.secretNames);
  if (missing.length) return { ok: false, reason: 'SecretMissing', message: `The cloud function step ${at.activityId} lists ${missing.length} cloud secret(s) the tenant does not have.` };

  const python = isPythonType(type);
  // Below the journey's session limit (192 KiB), so that what fits here also fits there.
  const limits = { timeoutMs: fn.timeoutSeconds * 1000, memoryBytes: fn.memoryMb * MiB, outputBytes: python ? MAX_PYTHON_OUTPUT_BYTES : MAX_OUTPUT_BYTES };
  const result: RunResult = await d.runner.run(
    python
      ? {
          language: 'python',
          script: fn.modules[fn.entryPoint] ?? '',
          params: { secrets: values, vars: step.variables },
          limits,
          allowedOrigins: d.allowedOrigins,
          refusedEndpoints: d.refusedEndpoints,
        }
      : {
          modules: fn.modules,
          entry: fn.entryPoint,
          input: { variables: step.variables, secrets: values },
          limits,
          allowedOrigins: d.allowedOrigins,
          refusedEndpoints: d.refusedEndpoints,
        },
  );
  if (step.reportLog && at.expiresAt !== undefined) {
    await d.logs.put({
      tenantId: at.tenantId,
      processInstanceId: at.processInstanceId,
      activityId: at.activityId,
      at: at.now.toISOString(),
      functionName: fn.name,
      functionVersion: fn.version,
      ...(step.ruleExecutionName ? { ruleExecutionName: step.ruleExecutionName } : {}),
      outcome: result.ok ? 'SUCCEEDED' : 'FAILED',
      // The sandbox has masked the secrets (and their URL-encoded forms) in the lines and the error.
      error: result.ok ? null : result.error,
      durationMs: result.durationMs,
      lines: result.logs,
      truncated: result.logsTruncated,
      expiresAt: at.expiresAt,
    });
  }
  if (result.ok) return python ? { ok: true, kind: 'python', results: result.output, functionName: fn.name } : { ok: true, kind: 'javascript', variables: result.output };
  const named = `Cloud function "${fn.name}" version ${fn.version}`;
  if (result.error.name === 'FunctionTimeout') return { ok: false, reason: 'Timeout', message: `${named} ran past its ${fn.timeoutSeconds} s.` };
  if (python) return { ok: false, reason: 'Error', message: `${named} failed: ${pythonFailure(result.error)}`.slice(0, MAX_ERROR_CHARS) };
  // What the function said stays in its log (the tenant's to read); the journey's history names only the error.
  return { ok: false, reason: 'Error', message: `${named} failed (${result.error.name}); its log has the details.` };
}

/**
 * A Python run's failure as the step reports it (the family's `errorMessageVariable`): the
 * exception's type and the script's line, `ValueError (line 3)`, and the engine's own words for a
 * run it stopped. Never the exception's text: a step's error message is kept in the execution's
 * history for 90 days whatever the instance's retention, and what a function raises often names
 * what the end user gave (`email ann@example.com could not be verified`); the text is in the run's
 * log (Report Log), kept and deleted with the instance, secrets masked.
 */
export function pythonFailure(error: { name: string; message: string }): string {
  if (error.name !== 'FunctionError') return error.message;
  const raised = /^([A-Za-z_][\w.]*)(?::[\s\S]*?)?(?: \(line (\d+)\))?$/.exec(error.message);
  if (!raised || !/^[A-Z]/.test(raised[1]!.split('.').pop()!)) return 'the function stopped the Python interpreter; its log has the details';
  return `${raised[1]}${raised[2] ? ` (line ${raised[2]})` : ''}; its log has the message`;
}
