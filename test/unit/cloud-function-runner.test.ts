import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRequest } from '../../functions/cloud-functions/contract.js';
import { CloudFunctionRunnerError, startCloudFunctionRunner, type CloudFunctionRunner } from '../../lib/local/cloud-function-runner.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNNER_MODULE = pathToFileURL(fileURLToPath(new URL('../../lib/local/cloud-function-runner.ts', import.meta.url))).href;

/** The runner children of a process, read from /proc: their pid and their environment. */
function runnerChildren(parent: number): { pid: number; environ: string }[] {
  const found: { pid: number; environ: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('cloud-function-runner-child')) continue;
      found.push({ pid: Number(entry), environ: readFileSync(`/proc/${entry}/environ`, 'utf8') });
    } catch {
      // The process ended while being read.
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return condition();
}

function fn(source: string, extra: Partial<RunRequest> = {}): RunRequest {
  return { modules: { 'index.js': source }, entry: 'index.js', input: { variables: {}, secrets: {} }, ...extra };
}

const SLEEP = `export async function handler({ variables }) { await new Promise((r) => setTimeout(r, variables.ms)); return { id: variables.id } }`;

let runner: CloudFunctionRunner | undefined;
let parentProcess: ChildProcess | undefined;

afterEach(async () => {
  await runner?.stop();
  runner = undefined;
  if (parentProcess?.exitCode === null) parentProcess.kill('SIGKILL');
  parentProcess = undefined;
});

describe('startCloudFunctionRunner', () => {
  it('runs functions in one child process of its own, several at once, with none of the service\'s environment', async () => {
    process.env.RUNNER_TEST_CANARY = 'canary-5e2a';
    runner = startCloudFunctionRunner();
    delete process.env.RUNNER_TEST_CANARY;
    expect(await runner.run(fn(SLEEP, { input: { variables: { ms: 1, id: 'warm' }, secrets: {} } }))).toMatchObject({ ok: true, output: { id: 'warm' } });

    const started = performance.now();
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((id) => runner!.run(fn(SLEEP, { input: { variables: { ms: 2000, id }, secrets: {} } }))),
    );
    expect(results.map((r) => (r.ok ? r.output.id : r.error))).toEqual([1, 2, 3, 4, 5]);
    // At once: five waits of 2 s take about 2 s; one after another they would take 10 s. The
    // margin is wide enough for a loaded machine (a tighter bound failed under load).
    expect(performance.now() - started).toBeLessThan(6000);

    const children = runnerChildren(process.pid);
    expect(children).toHaveLength(1);
    expect(children[0]!.pid).not.toBe(process.pid);
    expect(children[0]!.environ).not.toContain('canary-5e2a');
    expect(children[0]!.environ).not.toContain('PATH=');
  });

  it('keeps serving after a run times out in it', async () => {
    runner = startCloudFunctionRunner();
    const looped = await runner.run(fn(`export function handler() { while (true) {} }`, { limits: { timeoutMs: 200 } }));
    expect(looped).toMatchObject({ ok: false, error: { name: 'FunctionTimeout' } });
    const [child] = runnerChildren(process.pid);
    expect(await runner.run(fn(`export function handler() { return { after: 1 } }`))).toMatchObject({ ok: true, output: { after: 1 } });
    expect(runnerChildren(process.pid).map((c) => c.pid)).toEqual([child!.pid]);
  });

  it('fails the runs in flight with a clear error when the child dies, and starts a new child for the next run', async () => {
    runner = startCloudFunctionRunner();
    await runner.run(fn(`export function handler() { return {} }`));
    const [child] = runnerChildren(process.pid);
    const inFlight = runner.run(fn(SLEEP, { input: { variables: { ms: 5000, id: 1 }, secrets: {} } }));
    await new Promise((r) => setTimeout(r, 200));
    process.kill(child!.pid, 'SIGKILL');
    const err = await inFlight.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CloudFunctionRunnerError);
    expect((err as Error).message).toBe('the cloud function runner process exited (SIGKILL) while the run was in flight');

    expect(await runner.run(fn(`export function handler() { return { again: true } }`))).toMatchObject({ ok: true, output: { again: true } });
    const [next] = runnerChildren(process.pid);
    expect(next!.pid).not.toBe(child!.pid);
  });

  it('kills the child when a run ignores its deadline: that run is a FunctionTimeout, the others in flight fail', async () => {
    runner = startCloudFunctionRunner({ hardDeadlineGraceMs: 300 });
    await runner.run(fn(`export function handler() { return {} }`));
    const [child] = runnerChildren(process.pid);
    // A run stuck in native code (QuickJS's sort without a comparator never polls the interrupt
    // handler) looks to the runner like a child that does not answer. A stopped child is that,
    // whatever the machine's load: a real uninterruptible sort was timed here once, and a loaded
    // machine moved its deadline outside the sort, so the sandbox's own timeout answered first.
    const stuck = runner.run(fn(SLEEP, { input: { variables: { ms: 5000, id: 's' }, secrets: {} }, limits: { timeoutMs: 300, memoryBytes: 128 * 1024 * 1024 } }));
    const bystander = runner.run(fn(SLEEP, { input: { variables: { ms: 10000, id: 'b' }, secrets: {} } }));
    process.kill(child!.pid, 'SIGSTOP');
    // Killed by the runner's own deadline (the sandbox's timeout would say only "ran past").
    expect(await stuck).toMatchObject({ ok: false, error: { name: 'FunctionTimeout', message: expect.stringContaining('did not stop') } });
    await expect(bystander).rejects.toBeInstanceOf(CloudFunctionRunnerError);
    expect(await until(() => !alive(child!.pid), 2000)).toBe(true);
    expect(await runner.run(fn(`export function handler() { return { fresh: true } }`))).toMatchObject({ ok: true });
  });

  it('stops: runs in flight fail, the child is gone, later runs are refused', async () => {
    runner = startCloudFunctionRunner();
    await runner.run(fn(`export function handler() { return {} }`));
    const [child] = runnerChildren(process.pid);
    const inFlight = runner.run(fn(SLEEP, { input: { variables: { ms: 5000, id: 1 }, secrets: {} } }));
    await new Promise((r) => setTimeout(r, 100));
    await runner.stop();
    await expect(inFlight).rejects.toThrow('the cloud function runner was stopped while the run was in flight');
    expect(alive(child!.pid)).toBe(false);
    await expect(runner.run(fn(`export function handler() { return {} }`))).rejects.toThrow('the cloud function runner is stopped');
  });

  it('does not outlive its parent, even one killed with SIGKILL', async () => {
    const script = `
      import { startCloudFunctionRunner } from ${JSON.stringify(RUNNER_MODULE)};
      const runner = startCloudFunctionRunner();
      const result = await runner.run({ modules: { 'index.js': 'export function handler() { return { up: true } }' }, entry: 'index.js', input: { variables: {}, secrets: {} } });
      console.log(JSON.stringify(result.output));
      setInterval(() => {}, 1000);
    `;
    parentProcess = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const parent = parentProcess;
    const line = await new Promise<string>((resolve, reject) => {
      parent.stdout!.on('data', (chunk: Buffer) => resolve(chunk.toString()));
      parent.once('exit', (code) => reject(new Error(`the parent exited (${code}) before its runner answered`)));
    });
    expect(JSON.parse(line)).toEqual({ up: true });
    const [child] = runnerChildren(parent.pid!);
    expect(child).toBeDefined();
    parent.kill('SIGKILL');
    expect(await until(() => !alive(child!.pid), 5000)).toBe(true);
  });
});
