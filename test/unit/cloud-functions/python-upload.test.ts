import { describe, expect, it } from 'vitest';
import { addCloudFunction, checkedBy, cloudFunctionView, MAX_PYTHON_CHARS } from '../../../functions/cloud-functions/functions.js';
import type { CloudFunctionRecord, PythonCheck } from '../../../functions/cloud-functions/model.js';

/** A store that keeps what it is given; a checker that says what it is told to. */
function fixture(check: (script: string) => Promise<PythonCheck> = async () => ({ ok: true })) {
  const kept: CloudFunctionRecord[] = [];
  const store = { create: async (r: CloudFunctionRecord) => (kept.push(r), true), latestVersion: async () => undefined };
  const checked: string[] = [];
  const ctx = { tenantId: 't1', actor: 'apikey:k', now: new Date('2026-11-28T12:00:00Z'), checkPython: async (s: string) => (checked.push(s), check(s)) };
  return { store, ctx, kept, checked };
}

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (err: { code?: string; details?: unknown }) => ({ code: err.code, details: err.details }));

describe('a Python function, uploaded as the family uploads it', () => {
  it('is stored as one script, read back as `resource`, its type kept', async () => {
    const f = fixture();
    const script = 'results["pass"] = params["vars"]["idv"]["ok"]\n';
    const record = await addCloudFunction(f.store, { name: 'VerifyEmail', type: 'PYTHON39V1', status: 'EDITABLE', resource: script }, f.ctx);
    expect(f.checked).toEqual([script]);
    expect(record).toMatchObject({ type: 'PYTHON39V1', format: 'PYTHON', entryPoint: 'function.py', files: ['function.py'], modules: { 'function.py': script } });
    expect(cloudFunctionView(record)).toMatchObject({ type: 'PYTHON39V1', resource: script });
  });

  it('takes 20,000 characters, counted as characters (not bytes), and refuses one more', async () => {
    const f = fixture();
    const at = `# ${'é'.repeat(MAX_PYTHON_CHARS - 3)}\n`;
    expect([...at].length).toBe(MAX_PYTHON_CHARS);
    await addCloudFunction(f.store, { name: 'Long', type: 'PYTHON312V2', resource: at }, f.ctx);
    expect(await refusal(addCloudFunction(f.store, { name: 'Long', type: 'PYTHON312V2', resource: `${at}#` }, f.ctx))).toEqual({
      code: 'VALIDATION_FAILED',
      details: [{ location: 'body.resource', message: 'the script is 20001 characters; at most 20000' }],
    });
  });

  it("refuses a script that does not compile with CPython's line, column and message, and stores nothing", async () => {
    const f = fixture(async () => ({ ok: false, line: 2, column: 10, message: "expected ':'" }));
    expect(await refusal(addCloudFunction(f.store, { name: 'Bad', type: 'PYTHON39V1', resource: 'x = 1\nif x == 1\n  y = 2' }, f.ctx))).toEqual({
      code: 'VALIDATION_FAILED',
      details: [{ location: 'body.resource', message: "line 2, column 10: expected ':'" }],
    });
    expect(f.kept).toEqual([]);
  });

  it('refuses a zip, an entry point, no script, and the script given twice', async () => {
    const f = fixture();
    const cases: [Record<string, unknown>, string][] = [
      [{ zip: 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==', resource: 'x=1' }, 'body.zip'],
      [{ entryPoint: 'main.py', resource: 'x=1' }, 'body.entryPoint'],
      [{}, 'body.resource'],
      [{ resource: 'x=1', source: 'x=1' }, 'body.source'],
    ];
    for (const [body, location] of cases) {
      const got = await refusal(addCloudFunction(f.store, { name: 'F', type: 'PYTHON39V1', ...body }, f.ctx));
      expect(got?.code).toBe('VALIDATION_FAILED');
      expect((got?.details as { location: string }[])[0]!.location).toBe(location);
    }
    expect(f.kept).toEqual([]);
    expect(f.checked).toEqual([]);
  });

  it('answers 503 when the runner that compiles it does not answer (the same upload can be sent again)', async () => {
    const check = checkedBy({ checkPython: async () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' })) });
    const f = fixture(check);
    expect(await refusal(addCloudFunction(f.store, { name: 'F', type: 'PYTHON39V1', resource: 'x = 1' }, f.ctx))).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(f.kept).toEqual([]);
  });

  it('takes a JavaScript module as `resource` too (the family field), and never asks the Python checker', async () => {
    const f = fixture();
    const record = await addCloudFunction(f.store, { name: 'Js', resource: 'export const handler = () => ({})' }, f.ctx);
    expect(record).toMatchObject({ type: 'JAVASCRIPT', format: 'JAVASCRIPT', entryPoint: 'index.js' });
    expect(cloudFunctionView(record).resource).toBe('export const handler = () => ({})');
    expect(f.checked).toEqual([]);
  });
});

describe("a Python run's failure, as the step reports it", () => {
  it('names the exception type and line, never its text (which the execution history would keep past the retention)', async () => {
    const { pythonFailure } = await import('../../../functions/cloud-functions/run-step.js');
    expect(pythonFailure({ name: 'FunctionError', message: 'ValueError: email ann@example.com could not be verified (line 3)' })).toBe('ValueError (line 3); its log has the message');
    expect(pythonFailure({ name: 'FunctionError', message: 'requests.exceptions.HTTPError: 500 Server Error\nfor url (line 12)' })).toBe('requests.exceptions.HTTPError (line 12); its log has the message');
    expect(pythonFailure({ name: 'FunctionError', message: 'SystemExit: 3' })).toBe('SystemExit; its log has the message');
    expect(pythonFailure({ name: 'FunctionError', message: 'the function stopped the Python interpreter (an operation cloud functions cannot do, such as ctypes)' })).toBe(
      'the function stopped the Python interpreter; its log has the details',
    );
    expect(pythonFailure({ name: 'FunctionMemoryExceeded', message: 'the function used more than its memory limit of 67108864 bytes' })).toBe('the function used more than its memory limit of 67108864 bytes');
  });
});
