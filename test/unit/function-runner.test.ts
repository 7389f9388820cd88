import { afterEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaFunctionRunner, RunnerInvokeError } from '../../functions/adapters/function-runner.js';
import type { RunRequest } from '../../functions/cloud-functions/model.js';

const lambda = mockClient(LambdaClient);
afterEach(() => lambda.reset());

const request: RunRequest = { modules: { 'index.js': 'export const handler = () => ({ a: 1 })' }, entry: 'index.js', input: { variables: { n: 1 }, secrets: { k: 'secret-value' } } };
const payload = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v)) as never;

describe('the runner Lambda (AWS)', () => {
  it('invokes the runner synchronously with the request and answers its RunResult', async () => {
    const result = { ok: true, output: { a: 1 }, logs: [], logsTruncated: false, durationMs: 12 };
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload(result) });
    expect(await new LambdaFunctionRunner('arn:aws:lambda:eu-west-1:111122223333:function:arthr-fir-cloud-function-runner').run(request)).toEqual(result);
    const call = lambda.commandCalls(InvokeCommand)[0]!.args[0].input;
    expect(call).toMatchObject({ FunctionName: 'arn:aws:lambda:eu-west-1:111122223333:function:arthr-fir-cloud-function-runner', InvocationType: 'RequestResponse' });
    expect(JSON.parse(Buffer.from(call.Payload as Uint8Array).toString('utf8'))).toEqual(request);
  });

  it("reports a run past the Lambda's own timeout as the function's timeout", async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'Sandbox.Timedout', errorMessage: 'RequestId: x Error: Task timed out after 75.00 seconds' }) });
    expect(await new LambdaFunctionRunner('runner').run(request)).toMatchObject({ ok: false, error: { name: 'FunctionTimeout' } });
  });

  it("fails as the runner's own failure (retried as transient) when its runtime errs, and when the invoke is throttled", async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'Runtime.OutOfMemory', errorMessage: 'out of memory' }) });
    await expect(new LambdaFunctionRunner('runner').run(request)).rejects.toBeInstanceOf(RunnerInvokeError);
    lambda.reset();
    lambda.on(InvokeCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
    await expect(new LambdaFunctionRunner('runner').run(request)).rejects.toMatchObject({ name: 'TooManyRequestsException' });
  });

  it('sends a Python run as its own payload, and checks a script by the checkPython action', async () => {
    const result = { ok: true, output: { pass: true }, logs: [], logsTruncated: false, durationMs: 9 };
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload(result) });
    const python = { language: 'python' as const, script: 'results["pass"] = True', params: { secrets: {}, vars: { idv: {} } } };
    expect(await new LambdaFunctionRunner('runner').run(python)).toEqual(result);
    expect(JSON.parse(Buffer.from(lambda.commandCalls(InvokeCommand)[0]!.args[0].input.Payload as Uint8Array).toString('utf8'))).toEqual(python);
    lambda.reset();
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload({ ok: false, line: 2, column: 10, message: "expected ':'" }) });
    expect(await new LambdaFunctionRunner('runner').checkPython('if x\n')).toEqual({ ok: false, line: 2, column: 10, message: "expected ':'" });
    expect(JSON.parse(Buffer.from(lambda.commandCalls(InvokeCommand)[0]!.args[0].input.Payload as Uint8Array).toString('utf8'))).toEqual({ action: 'checkPython', script: 'if x\n' });
  });

  it("fails a check as the runner's failure when its runtime errs or the invoke is throttled", async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'Runtime.ExitError' }) });
    await expect(new LambdaFunctionRunner('runner').checkPython('x = 1')).rejects.toBeInstanceOf(RunnerInvokeError);
    lambda.reset();
    lambda.on(InvokeCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
    await expect(new LambdaFunctionRunner('runner').checkPython('x = 1')).rejects.toMatchObject({ name: 'TooManyRequestsException' });
  });
});
