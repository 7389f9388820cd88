import type { LambdaClient } from '@aws-sdk/client-lambda';
import { getStoreConfig } from '../config.js';
import { traced } from '../observability/tracer.js';
import type { FunctionRunner, PythonCheck, PythonRunRequest, RunnerPayload, RunRequest, RunResult } from '../cloud-functions/model.js';

/** The runner Lambda answered with an error of its own (not the function's): its runtime failed. */
export class RunnerInvokeError extends Error {
  override readonly name = 'RunnerInvokeError';
}

/**
 * The runner on AWS: a synchronous Invoke of the runner Lambda (CLOUD_FUNCTION_RUNNER), whose
 * role grants nothing, so the tenant's code holds no credential of the service. Its answer is
 * the RunResult; a `FunctionError` on the invocation is the runtime failing (out of memory, a
 * crash), not the function's own error.
 */
export class LambdaFunctionRunner implements FunctionRunner {
  private client: Promise<LambdaClient> | undefined;
  constructor(private readonly functionName: string) {}
  private lambda() {
    this.client ??= import('@aws-sdk/client-lambda').then(({ LambdaClient }) => traced(new LambdaClient({})));
    return this.client;
  }
  private async invoke(payload: RunnerPayload): Promise<{ text: string; functionError: string | undefined }> {
    const { InvokeCommand } = await import('@aws-sdk/client-lambda');
    const out = await (await this.lambda()).send(
      new InvokeCommand({ FunctionName: this.functionName, InvocationType: 'RequestResponse', Payload: Buffer.from(JSON.stringify(payload), 'utf8') }),
    );
    return { text: out.Payload ? Buffer.from(out.Payload).toString('utf8') : '', functionError: out.FunctionError };
  }
  async checkPython(script: string): Promise<PythonCheck> {
    const { text, functionError } = await this.invoke({ action: 'checkPython', script });
    if (functionError) throw new RunnerInvokeError(`The runner failed (${functionError}): ${text.slice(0, 500)}`);
    return JSON.parse(text) as PythonCheck;
  }
  async run(request: RunRequest | PythonRunRequest): Promise<RunResult> {
    const { text, functionError } = await this.invoke(request);
    if (functionError) {
      // Past the runner Lambda's own timeout (a built-in that never let the deadline in): the
      // function's timeout, as the local runner reports it, not a runner failure to retry.
      if (/Task timed out|Sandbox\.Timedout/.test(text)) {
        return { ok: false, error: { name: 'FunctionTimeout', message: 'the run outlasted the runner' }, logs: [], logsTruncated: false, durationMs: 0 };
      }
      throw new RunnerInvokeError(`The runner failed (${functionError}): ${text.slice(0, 500)}`);
    }
    return JSON.parse(text) as RunResult;
  }
}

let installed: FunctionRunner | undefined;

/** The local runtime's runner (a child process), installed at start in place of the Lambda. */
export function installFunctionRunner(runner: FunctionRunner | undefined): void {
  installed = runner;
}

let lambda: FunctionRunner | undefined;

/** Runs with the installed runner, or the runner Lambda named by CLOUD_FUNCTION_RUNNER. */
function current(): FunctionRunner {
  if (installed) return installed;
  const name = getStoreConfig().CLOUD_FUNCTION_RUNNER;
  if (!name) throw new Error('CLOUD_FUNCTION_RUNNER is not configured for this function');
  lambda ??= new LambdaFunctionRunner(name);
  return lambda;
}

export const functionRunner: FunctionRunner = {
  run: (request) => current().run(request),
  checkPython: (script) => current().checkPython(script),
};
