/**
 * The local runtime's cloud function runner: a long-lived child process that runs tenant code in
 * the sandbox, so that code never runs in the service's own process (as on AWS, where the runner
 * is a Lambda of its own). One child serves every run, several at once, each in a fresh QuickJS
 * instance; when it dies, the runs it had fail with a clear error and the next run starts a new
 * one.
 *
 * Why a process and not the service's own event loop: a crash of the interpreter, a V8 heap
 * exhausted by a run, or a native built-in that ignores the deadline stays in the child. The
 * child gets a V8 heap of its own (256 MB), none of the service's environment (no credentials,
 * no configuration), and exits when the service goes, SIGKILL included (its IPC channel closes).
 *
 * The hard deadline: a run is given its time limit plus a grace (5 s by default); a run still
 * unanswered then is a built-in that never polled the interrupt handler, and the child is killed.
 * That run reports FunctionTimeout; the others in flight fail with CloudFunctionRunnerError.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolveLimits, type PythonCheck, type PythonRunRequest, type RunnerPayload, type RunRequest, type RunResult } from '../../functions/cloud-functions/contract.js';
import type { RunnerReplyMessage, RunnerRequestMessage } from './cloud-function-runner-child.js';

const CHILD_ENTRY = fileURLToPath(new URL('./cloud-function-runner-child.ts', import.meta.url));
/** Where `--import tsx` is resolved from: the project root, whose node_modules holds tsx. */
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HARD_DEADLINE_GRACE_MS = 5_000;
/** The Python interpreter's first start in the child (its snapshot made, a sandbox ready), measured in seconds: allowed for on top. */
const PYTHON_COLD_START_MS = 30_000;
/** The child's V8 heap; each run's QuickJS memory is a WebAssembly memory outside it. */
const CHILD_HEAP_MB = 256;

/** The runner itself failed (its process died or was stopped); nothing is known of the run's outcome. */
export class CloudFunctionRunnerError extends Error {
  override readonly name = 'CloudFunctionRunnerError';
}

export interface CloudFunctionRunner {
  run(req: RunRequest | PythonRunRequest): Promise<RunResult>;
  /** Compiles a Python script in the child (never runs it). */
  checkPython(script: string): Promise<PythonCheck>;
  /** Ends the child; runs in flight fail with CloudFunctionRunnerError, and later runs are refused. */
  stop(): Promise<void>;
}

interface InFlight {
  resolve(result: unknown): void;
  reject(err: Error): void;
  watchdog: NodeJS.Timeout;
  request: RunnerPayload;
  startedAt: number;
  sent: boolean;
}

/** One child process and the runs it has. */
interface Child {
  process: ChildProcess;
  ready: boolean;
  exited: Promise<void>;
  /** The run whose hard deadline killed the child, answered FunctionTimeout rather than an error. */
  overran: Set<number>;
}

export interface CloudFunctionRunnerOptions {
  /** How long past its time limit a run may go unanswered before the child is killed (5 s by default). */
  hardDeadlineGraceMs?: number;
}

export function startCloudFunctionRunner(options: CloudFunctionRunnerOptions = {}): CloudFunctionRunner {
  const grace = options.hardDeadlineGraceMs ?? HARD_DEADLINE_GRACE_MS;
  const inFlight = new Map<number, InFlight>();
  let nextId = 1;
  let child: Child | undefined;
  let stopped = false;

  function spawnChild(): Child {
    const proc = spawn(process.execPath, [`--max-old-space-size=${CHILD_HEAP_MB}`, '--import', 'tsx', CHILD_ENTRY], {
      cwd: PROJECT_ROOT,
      // Nothing of the service's environment: tenant code cannot read it anyway, and a child that
      // never had the credentials cannot leak them.
      env: {},
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Out of the terminal's process group: Ctrl-C is the service's to handle, and its stop ends
      // this child after the runs in flight (a child killed by the same SIGINT would fail them).
      detached: true,
    });
    const current: Child = {
      process: proc,
      ready: false,
      overran: new Set(),
      exited: new Promise((resolve) => proc.once('exit', () => resolve())),
    };
    proc.on('message', (message: RunnerReplyMessage) => {
      if ('type' in message) {
        current.ready = true;
        for (const [id, run] of inFlight) if (!run.sent) dispatch(current, id, run);
        return;
      }
      const run = inFlight.get(message.id);
      if (!run) return;
      settle(message.id);
      if ('result' in message) run.resolve(message.result);
      else run.reject(new CloudFunctionRunnerError(`the cloud function runner could not run the function: ${message.error}`));
    });
    proc.on('error', (err) => failAll(current, `the cloud function runner could not start: ${err.message}`));
    proc.once('exit', (code, signal) => {
      if (child === current) child = undefined;
      failAll(
        current,
        stopped
          ? 'the cloud function runner was stopped while the run was in flight'
          : `the cloud function runner process exited (${signal ?? `code ${code}`}) while the run was in flight`,
      );
    });
    updateRef(current);
    return current;
  }

  function dispatch(target: Child, id: number, run: InFlight): void {
    run.sent = true;
    const message: RunnerRequestMessage = { id, request: run.request };
    target.process.send(message, (err) => {
      if (err && inFlight.has(id)) {
        settle(id);
        run.reject(new CloudFunctionRunnerError(`the cloud function runner did not take the run: ${err.message}`));
      }
    });
  }

  function settle(id: number): void {
    const run = inFlight.get(id);
    if (!run) return;
    clearTimeout(run.watchdog);
    inFlight.delete(id);
    if (child) updateRef(child);
  }

  function failAll(dead: Child, message: string): void {
    for (const [id, run] of [...inFlight]) {
      settle(id);
      if (dead.overran.has(id) && !('action' in run.request)) {
        const limits = resolveLimits(run.request.limits);
        run.resolve({
          ok: false,
          error: { name: 'FunctionTimeout', message: `the function ran past its time limit of ${limits.timeoutMs} ms and did not stop; its runner process was ended` },
          logs: [],
          logsTruncated: false,
          durationMs: Math.round(performance.now() - run.startedAt),
        });
      } else {
        run.reject(new CloudFunctionRunnerError(message));
      }
    }
  }

  /** The child keeps the service's event loop alive only while it has runs. */
  function updateRef(target: Child): void {
    const channel = target.process.channel as { ref(): void; unref(): void } | undefined;
    if (inFlight.size > 0) {
      target.process.ref();
      channel?.ref();
    } else {
      target.process.unref();
      channel?.unref();
    }
  }

  // The child starts with the first run (and again after one dies): a service whose journeys run no
  // function never pays for it (a Node process with its own heap, and QuickJS's warm-up).
  function send<T>(request: RunnerPayload, hardDeadline: number): Promise<T> {
    if (stopped) return Promise.reject(new CloudFunctionRunnerError('the cloud function runner is stopped'));
    const target = (child ??= spawnChild());
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const run: InFlight = {
        resolve: resolve as (result: unknown) => void,
        reject,
        request,
        startedAt: performance.now(),
        sent: false,
        watchdog: setTimeout(() => {
          target.overran.add(id);
          target.process.kill('SIGKILL');
        }, hardDeadline),
      };
      inFlight.set(id, run);
      updateRef(target);
      if (target.ready) dispatch(target, id, run);
    });
  }

  return {
    run(request: RunRequest | PythonRunRequest): Promise<RunResult> {
      // A Python run's first use makes the interpreter's snapshot (a few seconds, once): given its time too.
      const start = 'language' in request ? PYTHON_COLD_START_MS : 0;
      return send<RunResult>(request, resolveLimits(request.limits).timeoutMs + grace + start);
    },

    checkPython(script: string): Promise<PythonCheck> {
      return send<PythonCheck>({ action: 'checkPython', script }, PYTHON_COLD_START_MS + grace);
    },

    async stop(): Promise<void> {
      stopped = true;
      const current = child;
      child = undefined;
      if (!current) return;
      // Referenced again: the caller awaits the exit, which an idle (unreferenced) child would not keep alive.
      current.process.ref();
      if (current.process.exitCode === null && current.process.signalCode === null) {
        // Closing the channel is the child's signal to exit; the kill covers a child stuck in a run.
        if (current.process.connected) current.process.disconnect();
        current.process.kill('SIGKILL');
      }
      await current.exited;
    },
  };
}
