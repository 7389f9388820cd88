/**
 * The contract between the service and the runner of tenant cloud functions: what a run is asked
 * (`RunRequest`) and what it answers (`RunResult`). The same shapes cross the local runner's IPC
 * channel and the runner Lambda's invoke payload, so everything here is plain JSON.
 *
 * This module imports nothing: the runner Lambda (whose role grants nothing) and the service
 * both load it, and neither should drag the other's code along.
 */

export interface RunRequest {
  /** The function's modules by path ("index.js", "lib/util.js"); one entry for a single-file function. ES modules. */
  modules: Record<string, string>;
  /** The module whose exported `handler` (or default export) is called. */
  entry: string;
  input: { variables: Record<string, unknown>; secrets: Record<string, string> };
  limits?: Partial<RunLimits>;
  /** Exact origins (scheme://host:port) reachable though the guard would refuse them (the local S3 stand-in on loopback). Empty on AWS. */
  allowedOrigins?: string[];
  /** The local runtime's own services (URLs), refused though an allowance would let them through. Empty on AWS. */
  refusedEndpoints?: string[];
}

/**
 * A Python run, the family's contract: the script runs at top level with the dict `params`
 * (`secrets`, `vars`) and fills the dict `results`, which is the run's `output`. Secrets are the
 * values of `params.secrets`, masked in its logs as a JavaScript run's are.
 */
export interface PythonRunRequest {
  language: 'python';
  script: string;
  params: { secrets: Record<string, string>; vars: Record<string, unknown> } & Record<string, unknown>;
  limits?: Partial<RunLimits>;
  allowedOrigins?: string[];
  refusedEndpoints?: string[];
}

/** A Python script's syntax checked (compiled, never run): where it fails and why, as CPython words it. */
export type PythonCheck = { ok: true } | { ok: false; line: number; column: number; message: string };

/** The runner Lambda's payload: a run (JavaScript when it names no language), or a Python syntax check. */
export type RunnerPayload = RunRequest | PythonRunRequest | { action: 'checkPython'; script: string };

export interface RunLimits {
  /** Wall-clock time of the whole run: evaluating the modules, the handler, its fetches and timers. */
  timeoutMs: number;
  /**
   * The run's heap: the WebAssembly memory it runs in may grow this far past the interpreter's
   * fixed 16 MiB (its 5 MB stack, its data, the first of its heap), and no further.
   */
  memoryBytes: number;
  /** QuickJS's own stack accounting; see MAX_LIMITS for why it stays small. */
  stackBytes: number;
  /** The returned variables as UTF-8 JSON. */
  outputBytes: number;
  /** All log messages of the run together, UTF-8; past it the lines are cut and `logsTruncated` is set. */
  logBytes: number;
  /** fetch() calls per run (each redirect hop is part of its call). */
  fetches: number;
  /** One fetch, redirects included, from the call to the last byte of the body. */
  fetchTimeoutMs: number;
  /** One response body. */
  responseBytes: number;
  /** One request body. */
  requestBytes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  timeoutMs: 30_000,
  memoryBytes: 64 * MiB,
  stackBytes: 256 * KiB,
  outputBytes: 256 * KiB,
  logBytes: 64 * KiB,
  fetches: 20,
  fetchTimeoutMs: 10_000,
  responseBytes: 5 * MiB,
  requestBytes: 5 * MiB,
});

/**
 * What a caller may ask for at most.
 *
 * - `stackBytes` stays at 256 KiB: QuickJS runs as WebAssembly on the host's own thread, and each
 *   of its C frames also takes room on V8's native stack (about 984 KiB on Node's main thread).
 *   Measured on Node 20 with quickjs-emscripten 0.32.0, QuickJS's own check ("stack overflow", an
 *   error the function can catch) fires before V8's for ordinary recursion up to about 320 KiB;
 *   past that, plain recursion overflows V8's stack first. The sandbox survives that too (it
 *   discards the run's WebAssembly instance and reports the overflow), but the function can no
 *   longer catch it.
 * - `outputBytes` stays at 256 KiB: the variables travel on in the journey's Step Functions state,
 *   whose payloads are capped at 256 KiB.
 * - `memoryBytes` 128 MiB and `timeoutMs` 120 s keep one run from starving the others sharing the
 *   local runner's process, and a runner Lambda within a sane memory size and timeout.
 */
export const MAX_LIMITS: Readonly<RunLimits> = Object.freeze({
  timeoutMs: 120_000,
  memoryBytes: 128 * MiB,
  stackBytes: 256 * KiB,
  outputBytes: 256 * KiB,
  logBytes: 1 * MiB,
  fetches: 100,
  fetchTimeoutMs: 60_000,
  responseBytes: 10 * MiB,
  requestBytes: 10 * MiB,
});

/** The smallest value each limit may take; anything below would make every run fail. */
const MIN_LIMITS: Readonly<RunLimits> = Object.freeze({
  timeoutMs: 1,
  memoryBytes: 1 * MiB,
  stackBytes: 16 * KiB,
  outputBytes: 2,
  logBytes: 0,
  fetches: 0,
  fetchTimeoutMs: 1,
  responseBytes: 0,
  requestBytes: 0,
});

/**
 * The limits of one run: the defaults, overridden by the caller's where given, each clamped to
 * [MIN, MAX]. A value that is not a finite number falls back to the default rather than failing
 * the run: the caller is the service, and a limit is never the tenant's code's fault.
 */
export function resolveLimits(requested: Partial<RunLimits> | undefined): RunLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof RunLimits)[]) {
    const value = requested?.[key];
    if (typeof value === 'number' && Number.isFinite(value)) {
      limits[key] = Math.min(MAX_LIMITS[key], Math.max(MIN_LIMITS[key], Math.floor(value)));
    }
  }
  return limits;
}

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  /** ISO 8601. */
  at: string;
}

/**
 * Stable error names of a failed run (the journey routes on them):
 * - `FunctionError`: the function threw or its promise rejected (message: its message, capped);
 *   also a stack overflow the function did not catch.
 * - `FunctionTimeout`: past `timeoutMs`, or awaiting something that can never settle.
 * - `FunctionMemoryExceeded`: past `memoryBytes`.
 * - `FunctionOutputInvalid`: the handler's value is not a JSON object, or is over `outputBytes`.
 * - `FunctionInvalid`: the entry or a module it imports is missing or does not parse, or the
 *   entry exports no `handler` function (nor a default one).
 */
export type RunErrorName =
  | 'FunctionError'
  | 'FunctionTimeout'
  | 'FunctionMemoryExceeded'
  | 'FunctionOutputInvalid'
  | 'FunctionInvalid';

export type RunResult =
  | { ok: true; output: Record<string, unknown>; logs: LogLine[]; logsTruncated: boolean; durationMs: number }
  | { ok: false; error: { name: string; message: string }; logs: LogLine[]; logsTruncated: boolean; durationMs: number };
