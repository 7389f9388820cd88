/**
 * The sandbox that runs a tenant's cloud function: QuickJS compiled to WebAssembly
 * (quickjs-emscripten), a fresh interpreter for every run, limits on time, memory, stack, output,
 * logs and outbound HTTP, and nothing of the host reachable from inside.
 *
 * ## What the function's code sees
 *
 * ```js
 * // index.js (an ES module; more modules may sit beside it and be imported with './lib/util.js')
 * export async function handler({ variables, secrets }) {
 *   const res = await fetch('https://api.example.com/check', {
 *     method: 'POST',
 *     headers: { authorization: `Bearer ${secrets.apiKey}`, 'content-type': 'application/json' },
 *     body: JSON.stringify({ name: variables.firstName }),
 *   });
 *   if (!res.ok) throw new Error(`check failed: ${res.status}`);
 *   const { score } = await res.json();
 *   console.log('score', score);
 *   return { checkScore: score };
 * }
 * ```
 *
 * - The entry module's exported `handler` (or its default export) is called with
 *   `{ variables, secrets }` (plain JSON copies) and may be async. What it returns is the variables
 *   to set: an object whose values are JSON (nested objects and arrays are fine; functions,
 *   symbols, BigInts, NaN and Infinity are refused; `undefined` values are left out). Returning
 *   nothing sets no variables.
 * - `console.log/info/warn/error/debug` are captured as log lines (non-strings as JSON), together
 *   at most the run's log budget (64 KiB by default); past it lines are cut and the result says so.
 *   Log lines and error messages have the run's secret values (8 characters or longer) replaced
 *   by `[secret]`, so a stray `console.log(secrets)` does not store them.
 * - `fetch(url, { method, headers, body, redirect })`: HTTPS to public addresses only (see
 *   outbound.ts), at most 20 calls a run, 10 s and 5 MiB a response, 5 MiB a request body by
 *   default. `body` is a string, `Uint8Array` (any typed array or DataView), `ArrayBuffer` or
 *   `URLSearchParams`; `headers` a plain object or `[name, value]` pairs. The response has
 *   `status`, `statusText`, `ok`, `url`, `redirected`, `headers` (a plain object with lower-case
 *   names, plus `headers.get(name)` and `headers.has(name)`), and `text()`, `json()`,
 *   `arrayBuffer()`, `bytes()`. Bodies are not decompressed (no `Accept-Encoding` is sent unless
 *   the function sets one). A refused or failed fetch rejects with an Error named
 *   `OutboundRefused` or `OutboundFailed` whose `code` says which rule or failure.
 * - `setTimeout`/`clearTimeout` (the wait counts against the run's time limit), `queueMicrotask`,
 *   `atob`/`btoa`, `TextEncoder`/`TextDecoder` (UTF-8), `URL`/`URLSearchParams`, and the
 *   language's own built-ins (JSON, Math, Date, RegExp, Map, Promise, typed arrays, Proxy, ...).
 * - `import` works between the function's own modules only (relative paths, or paths from the
 *   function's root with a leading `/`); `import('fs')` or any other name is refused.
 * - Nothing else: no `process`, `require`, Node modules, file system, environment, network other
 *   than fetch, `WebAssembly`, or any reference to an object of the host.
 *
 * ## Limits and what they report (contract.ts has the numbers)
 * - Running past `timeoutMs`, or awaiting something that can never settle: `FunctionTimeout`.
 * - Allocating past `memoryBytes`: `FunctionMemoryExceeded` (unless the function catches it).
 * - Recursing past `stackBytes`: a catchable `InternalError: stack overflow`, or, when the host's
 *   own stack runs out first (deeply nested JSON), `FunctionError` "stack overflow".
 * - Output not an object, not JSON, or over `outputBytes`: `FunctionOutputInvalid`.
 *
 * ## Why it is built this way
 * - **The sync build of QuickJS (RELEASE_SYNC), not asyncify.** Host calls that take time (fetch,
 *   timers) are promises inside the VM, resolved when the host's work completes, so nothing has
 *   to suspend the interpreter. The asyncify build would allow one suspension at a time per
 *   WebAssembly module (runs would queue behind each other's fetches), is twice the size and
 *   slower.
 * - **A WebAssembly instance per run**, from one compiled module: a run's heap is its own linear
 *   memory, so no bug in QuickJS can show one run another's data (secrets), a run that breaks the
 *   interpreter (the host stack running out inside WebAssembly) takes only its own instance down,
 *   and the memory goes back when the run ends (linear memory never shrinks). Instantiating costs
 *   a few milliseconds.
 * - **Only strings, numbers and byte buffers cross the boundary.** Input goes in as a JSON string
 *   the VM parses; output comes out as a JSON string the host parses; host functions take and
 *   return primitives and ArrayBuffers. The host functions are handed to a prelude that closes
 *   over them, and are never put on the global object.
 * - **The prelude is TypeScript of its own** (guest/, checked against the language's built-ins
 *   alone by tsconfig.guest.json), bundled by `npm run build:guest` into one script,
 *   prelude.generated.ts, which is evaluated as a string: whatever runs the host (tsx, vitest,
 *   the runner Lambda's bundle), the VM gets that script and nothing of the host's code.
 *   guest/contract.ts holds the types both sides share.
 * - **Time is enforced three ways**: QuickJS's interrupt handler stops running code at the
 *   deadline (catch blocks cannot swallow it), the host stops waiting at the deadline, and the
 *   host stops running queued jobs at the deadline. A native built-in that does not poll the
 *   interrupt handler (sorting a very large array without a comparator) can overrun by a few
 *   seconds; its result is still reported as a timeout, and the local runner and the runner
 *   Lambda's own timeout bound it hard.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
} from 'quickjs-emscripten';
import { resolveLimits, type LogLine, type RunErrorName, type RunLimits, type RunRequest, type RunResult } from './contract.js';
import type { EntryPoints, FetchRequest, FetchResponseMeta, HostFunctions, PreludeConfig, UrlPart } from './guest/contract.js';
import { PRELUDE } from './prelude.generated.js';
import { guardedFetch, OutboundFailed, OutboundRefused, type GuardedFetch } from '../shared/outbound.js';
import { nestsDeeperThan } from '../shared/json.js';

export type { GuardedFetch } from '../shared/outbound.js';

/** Error messages handed back are cut to this many bytes of UTF-8. */
const ERROR_MESSAGE_BYTES = 2048;
/** Timers a run may have waiting at once: each is a host timer, outside the VM's memory limit. */
const MAX_PENDING_TIMERS = 1000;
/** Longest string the host URL parser takes from the VM. */
const MAX_URL_CHARS = 1024 * 1024;
/** Jobs run between two checks of the deadline and a turn of the host's event loop. */
const JOBS_PER_TURN = 1000;
/** Secrets shorter than this are not redacted from logs: replacing "1234" everywhere garbles more than it hides. */
const MIN_REDACTED_SECRET = 8;
/** Deepest nesting of the returned variables (objects and arrays). */
const MAX_OUTPUT_DEPTH = 64;
/** What each log line costs against `logBytes` besides its text (its level, time and framing when stored). */
const LOG_LINE_OVERHEAD = 64;


/** The part of WebAssembly.Memory used here (@types/node does not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** @types/node declares only some of WebAssembly's types and none of its global values (this project has no DOM lib). */
const Wasm = (globalThis as unknown as {
  WebAssembly: {
    compile(bytes: Uint8Array): Promise<WebAssembly.Module>;
    Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
    RuntimeError: new (message?: string) => Error;
  };
}).WebAssembly;

const WASM_PAGE = 64 * 1024;
/**
 * The linear memory QuickJS's build starts with (its INITIAL_MEMORY): the interpreter's 5 MB
 * stack, its static data, and the first of the heap.
 */
const INITIAL_PAGES = (16 * 1024 * 1024) / WASM_PAGE;

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * QuickJS's WebAssembly, compiled once per process (about 20 ms) and instantiated per run (a few
 * ms). The .wasm file is found through quickjs-emscripten's own dependency, so a bundle must keep
 * `quickjs-emscripten` as an installed node module rather than inline it.
 */
function quickJsWasm(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const fromHere = createRequire(import.meta.url);
    const fromQuickJs = createRequire(fromHere.resolve('quickjs-emscripten'));
    return Wasm.compile(await readFile(fromQuickJs.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
  })().catch((err: unknown) => {
    compiled = undefined;
    throw err;
  });
  return compiled;
}

/**
 * Readies the sandbox ahead of the first real run, so that run does not pay for it: compiles
 * QuickJS and goes through two small runs. Measured on Node 20, the first run in a process
 * spends about 60 ms compiling the interpreter's code lazily and the second about 130 ms in
 * instantiating (V8 tiering the code up), where later runs take about 10 ms. A runner calls it
 * while it starts: the Lambda's init phase, the local runner's child process.
 */
export async function warmUp(): Promise<void> {
  await quickJsWasm();
  for (let i = 0; i < 2; i++) {
    const result = await runFunction({
      modules: { 'warm-up.js': 'export async function handler({ variables }) { console.log(new URL("https://x.invalid/").host); return { ...variables } }' },
      entry: 'warm-up.js',
      input: { variables: { ready: true }, secrets: {} },
    });
    if (!result.ok) throw new Error(`the sandbox failed its warm-up run: ${result.error.name}: ${result.error.message}`);
  }
}

/**
 * Runs one cloud function and reports what happened. Never throws for anything the function's
 * code does; it throws only when the sandbox itself cannot start (the WebAssembly cannot load) or
 * the request is malformed (not the shape of RunRequest), which are the service's faults.
 */
export async function runFunction(req: RunRequest, deps: { fetch?: GuardedFetch } = {}): Promise<RunResult> {
  assertRequestShape(req);
  const run = new Run(req, deps.fetch ?? guardedFetch);
  return run.execute();
}

function assertRequestShape(req: RunRequest): void {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isRecord(req)) throw new TypeError('runFunction: the request must be an object');
  if (!isRecord(req.modules) || !Object.values(req.modules).every((s) => typeof s === 'string')) {
    throw new TypeError('runFunction: modules must map paths to source strings');
  }
  if (typeof req.entry !== 'string') throw new TypeError('runFunction: entry must be a string');
  if (!isRecord(req.input) || !isRecord(req.input.variables) || !isRecord(req.input.secrets)) {
    throw new TypeError('runFunction: input must be { variables, secrets }');
  }
  if (req.allowedOrigins !== undefined && !(Array.isArray(req.allowedOrigins) && req.allowedOrigins.every((o) => typeof o === 'string'))) {
    throw new TypeError('runFunction: allowedOrigins must be a list of origins');
  }
  if (req.refusedEndpoints !== undefined && !(Array.isArray(req.refusedEndpoints) && req.refusedEndpoints.every((o) => typeof o === 'string'))) {
    throw new TypeError('runFunction: refusedEndpoints must be a list of URLs');
  }
}

/** Ends a run early with a result; thrown inside the host side of a run, caught by execute(). */
class RunFailure extends Error {
  constructor(
    readonly errorName: RunErrorName,
    message: string,
  ) {
    super(message);
  }
}

/** What the prelude hands back to the host (guest/contract.ts): the functions the host calls, never put on globalThis. */
type Internals = Record<keyof EntryPoints, QuickJSHandle>;

type Settled = { ok: true; value: QuickJSHandle } | { ok: false; error: QuickJSHandle };

class Run {
  private readonly limits: RunLimits;
  private readonly startedAt = performance.now();
  private readonly deadline: number;
  private readonly logs: LogLine[] = [];
  private logBytes = 0;
  private logsTruncated = false;
  private fetchCount = 0;
  /** Host work the VM is waiting on (fetches, timers): while none is left, a pending promise never settles. */
  private inflight = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private wakers: (() => void)[] = [];
  private readonly stop = new AbortController();
  private ended = false;
  /** A failure found while resolving host work into the VM; the run ends with it. */
  private fatal: RunFailure | undefined;
  /** Why a module could not be resolved or loaded, for telling FunctionInvalid from a throw. */
  private moduleProblem: string | undefined;
  private readonly modules = new Map<string, string>();
  private readonly secrets: string[];
  private memory: WasmMemory | undefined;
  private rt!: QuickJSRuntime;
  private vm!: QuickJSContext;

  constructor(
    private readonly req: RunRequest,
    private readonly fetchImpl: GuardedFetch,
  ) {
    this.limits = resolveLimits(req.limits);
    this.deadline = this.startedAt + this.limits.timeoutMs;
    for (const [path, source] of Object.entries(req.modules)) this.modules.set(modulePath(path), source);
    // Each secret as it is, and URL-encoded (as a secret sent in a query string shows in a fetch error).
    const forms = Object.values(req.input.secrets).flatMap((s) => (typeof s === 'string' ? [s, encodeURIComponent(s)] : []));
    this.secrets = [...new Set(forms)].filter((s) => s.length >= MIN_REDACTED_SECRET).sort((a, b) => b.length - a.length);
  }

  async execute(): Promise<RunResult> {
    try {
      const output = await this.runHandler();
      return this.result({ ok: true, output });
    } catch (err) {
      return this.result({ ok: false, error: this.failureOf(err) });
    } finally {
      this.end();
    }
  }

  private async runHandler(): Promise<Record<string, unknown>> {
    const entry = modulePath(this.req.entry);
    const source = this.modules.get(entry);
    if (source === undefined) throw new RunFailure('FunctionInvalid', `the entry module ${JSON.stringify(this.req.entry)} is not one of the function's modules`);

    const wasm = await quickJsWasm();
    // The memory limit is the WebAssembly memory's own maximum. QuickJS's setMemoryLimit alone
    // does not hold here: its allocator counts a fixed 8 bytes per allocation when built with
    // Emscripten (malloc_usable_size is unknown there), so a function allocating 1 MB buffers
    // reached 2 GB under a 64 MiB "limit". A memory that cannot grow makes malloc fail, and
    // QuickJS throws "out of memory" whatever the allocation.
    this.memory = new Wasm.Memory({ initial: INITIAL_PAGES, maximum: INITIAL_PAGES + Math.ceil(this.limits.memoryBytes / WASM_PAGE) });
    const quickjs = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmModule: wasm, wasmMemory: this.memory }));
    this.rt = quickjs.newRuntime();
    this.rt.setMemoryLimit(this.limits.memoryBytes);
    this.rt.setMaxStackSize(this.limits.stackBytes);
    this.rt.setInterruptHandler(() => this.expired() || this.ended);
    // The normalizer never fails: quickjs-emscripten drops a normalizer's error and loads "" in
    // its place, so a name that resolves to nothing is handed to the loader marked, and the
    // loader, which can fail, says why.
    this.rt.setModuleLoader(
      (name) => {
        const found = this.modules.get(name);
        if (found !== undefined) return found;
        const [requested, base] = unresolvedName(name) ?? [name, this.req.entry];
        this.moduleProblem = `the module ${JSON.stringify(requested)} (imported by ${base}) is not one of the function's modules; import them by relative path, such as './lib/util.js'`;
        return { error: new Error(this.moduleProblem) };
      },
      (base, requested) => {
        const resolved = resolveSpecifier(base, requested);
        return resolved !== undefined && this.modules.has(resolved) ? resolved : UNRESOLVED + JSON.stringify([requested, base]);
      },
    );
    this.vm = this.rt.newContext();
    const internals = this.installPrelude();
    this.describeError = internals.describeError;

    const evaluated = this.vm.evalCode(source, entry, { type: 'module' });
    if (evaluated.error) throw this.moduleFailure(evaluated.error);
    const loaded = await this.settle(evaluated.value);
    if (!loaded.ok) throw this.moduleFailure(loaded.error);

    const handler = this.call(internals.pickHandler, loaded.value);
    if (!handler.ok || this.vm.typeof(handler.value) !== 'function') {
      throw new RunFailure('FunctionInvalid', `the entry module ${entry} exports no handler: export async function handler({ variables, secrets }) { ... }, or a default function`);
    }
    const input = this.vm.newString(JSON.stringify({ variables: this.req.input.variables, secrets: this.req.input.secrets }));
    const called = this.call(internals.invoke, handler.value, input);
    if (!called.ok) throw this.thrown(called.error);
    const settled = await this.settle(called.value);
    if (!settled.ok) throw this.thrown(settled.error);

    const limit = this.vm.newNumber(this.limits.outputBytes);
    const serialized = this.call(internals.serializeOutput, settled.value, limit);
    if (!serialized.ok) {
      const failure = this.thrown(serialized.error);
      throw failure.errorName === 'FunctionError' ? new RunFailure('FunctionOutputInvalid', failure.message) : failure;
    }
    this.checkTime();
    // Bounded by outputBytes inside the VM before it is copied out.
    const json = this.vm.getString(serialized.value);
    // Nesting past MAX_OUTPUT_DEPTH would overflow the stack of whatever serialises the result next
    // (the runner's IPC, the Lambda runtime, the session's size check): refused here, before any of them.
    if (nestsDeeperThan(json, MAX_OUTPUT_DEPTH)) {
      throw new RunFailure('FunctionOutputInvalid', `the variables are nested deeper than ${MAX_OUTPUT_DEPTH} levels`);
    }
    let output: unknown;
    try {
      output = JSON.parse(json);
    } catch {
      // Only an interpreter left broken (memory exhausted mid-copy) hands back text that is not JSON.
      throw this.atMemoryCap() ? this.memoryExceeded() : new RunFailure('FunctionOutputInvalid', 'the returned value is not JSON');
    }
    if (typeof output !== 'object' || output === null || Array.isArray(output)) {
      throw new RunFailure('FunctionOutputInvalid', 'the handler must return an object of variables');
    }
    // A key named __proto__ would set a prototype wherever the variables are later merged (shared/own.ts).
    if (/"__proto__"\s*:/.test(json)) throw new RunFailure('FunctionOutputInvalid', 'the variables have a key named __proto__, which cannot be stored');
    return output as Record<string, unknown>;
  }

  /**
   * Installs the globals the function sees and returns the host's private entry points. The
   * prelude (guest/, bundled into prelude.generated.ts by `npm run build:guest`) is a script that
   * evaluates to a function, called once with the host functions and the config.
   */
  private installPrelude(): Internals {
    const vm = this.vm;
    const prelude = vm.evalCode(PRELUDE, 'arthr:prelude', { type: 'global', strict: true });
    if (prelude.error) throw new Error(`the sandbox prelude does not evaluate: ${JSON.stringify(vm.dump(prelude.error))}`);
    const host = vm.newObject();
    const hostFunction = (name: keyof HostFunctions, fn: Parameters<QuickJSContext['newFunction']>[1]) => vm.setProp(host, name, vm.newFunction(name, fn));
    hostFunction('log', (level, message, cut) => this.hostLog(level, message, cut));
    hostFunction('fetch', (request, body) => this.hostFetch(request, body));
    hostFunction('sleep', (ms) => this.hostSleep(ms));
    hostFunction('url', (input, base, key, value) => this.hostUrl(input, base, key, value));
    const config = vm.newObject();
    vm.setProp(config, 'logCap' satisfies keyof PreludeConfig, vm.newNumber(this.limits.logBytes));
    const made = vm.callFunction(prelude.value, vm.undefined, host, config);
    if (made.error) throw new Error(`the sandbox prelude fails: ${JSON.stringify(vm.dump(made.error))}`);
    const get = (name: keyof Internals) => vm.getProp(made.value, name);
    return { pickHandler: get('pickHandler'), invoke: get('invoke'), serializeOutput: get('serializeOutput'), describeError: get('describeError') };
  }

  private call(fn: QuickJSHandle, ...args: QuickJSHandle[]): Settled {
    const result = this.vm.callFunction(fn, this.vm.undefined, ...args);
    return result.error ? { ok: false, error: result.error } : { ok: true, value: result.value };
  }

  /**
   * Drives the VM until `promise` settles: runs its queued jobs, then waits for host work (a
   * fetch, a timer) to complete, until the deadline. A value that is not a promise is settled.
   */
  private async settle(promise: QuickJSHandle): Promise<Settled> {
    for (;;) {
      if (this.fatal) throw this.fatal;
      this.checkTime();
      const jobs = this.rt.executePendingJobs(JOBS_PER_TURN);
      if (jobs.error) throw this.thrown(jobs.error);
      this.checkTime();
      const state = this.vm.getPromiseState(promise);
      if (state.type === 'fulfilled') return { ok: true, value: state.value };
      if (state.type === 'rejected') return { ok: false, error: state.error };
      if (this.rt.hasPendingJob()) {
        // Long chains of jobs: let other runs and this run's host work move between batches.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      if (this.inflight === 0) {
        throw new RunFailure('FunctionTimeout', 'the function is waiting for a promise that nothing can settle (no fetch or timer is pending)');
      }
      await this.nextEvent();
    }
  }

  /** Resolves when host work completes or the deadline passes. */
  private nextEvent(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(wake, Math.max(0, this.deadline - performance.now()) + 1);
      function wake() {
        clearTimeout(timer);
        resolve();
      }
      this.wakers.push(wake);
    });
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }

  private expired(): boolean {
    return performance.now() >= this.deadline;
  }

  private checkTime(): void {
    if (this.expired()) throw this.timeout();
  }

  private timeout(): RunFailure {
    return new RunFailure('FunctionTimeout', `the function ran past its time limit of ${this.limits.timeoutMs} ms`);
  }

  /** A value thrown inside the VM, as the run's failure. */
  private thrown(error: QuickJSHandle): RunFailure {
    if (this.expired()) return this.timeout();
    const { name, message, readable } = this.describe(error);
    // Out of memory, QuickJS throws InternalError "out of memory", or null when it cannot even
    // allocate that error; a value that cannot be read back at the cap is the same case.
    if ((name === 'InternalError' && message === 'out of memory') || ((message === 'null' || !readable) && this.atMemoryCap())) {
      return this.memoryExceeded();
    }
    return new RunFailure('FunctionError', message);
  }

  private memoryExceeded(): RunFailure {
    return new RunFailure('FunctionMemoryExceeded', `the function used more than its memory limit of ${this.limits.memoryBytes} bytes`);
  }

  /** The linear memory has grown to (about) its maximum: a failing allocation is the likely cause of what went wrong. */
  private atMemoryCap(): boolean {
    if (!this.memory) return false;
    const max = (INITIAL_PAGES + Math.ceil(this.limits.memoryBytes / WASM_PAGE)) * WASM_PAGE;
    return this.memory.buffer.byteLength + 1024 * 1024 >= max;
  }

  /** The entry could not be loaded: syntax errors and unresolvable imports are FunctionInvalid, a throw at the top level FunctionError. */
  private moduleFailure(error: QuickJSHandle): RunFailure {
    const failure = this.thrown(error);
    if (failure.errorName !== 'FunctionError') return failure;
    const { name } = this.describe(error);
    if (name === 'SyntaxError') return new RunFailure('FunctionInvalid', `the function does not parse: ${failure.message}`);
    if (this.moduleProblem !== undefined) return new RunFailure('FunctionInvalid', this.moduleProblem);
    return failure;
  }

  /**
   * Name and message of a thrown value, read by the prelude inside the VM (a thrown object's
   * getters are the function's code and run under its limits).
   */
  private describe(error: QuickJSHandle): { name: string; message: string; readable: boolean } {
    const read = (): { name: string; message: string; readable: boolean } | undefined => {
      if (!this.describeError) return undefined;
      const described = this.vm.callFunction(this.describeError, this.vm.undefined, error);
      if (described.error) return undefined;
      try {
        const parsed = JSON.parse(this.vm.getString(described.value)) as { name: unknown; message: unknown };
        return { name: String(parsed.name), message: String(parsed.message), readable: true };
      } catch {
        return undefined;
      }
    };
    return read() ?? { name: 'Error', message: '(the thrown value could not be read)', readable: false };
  }

  private describeError: QuickJSHandle | undefined;

  // ---- host functions (called from inside the VM; they take and return primitives and buffers only)

  private hostLog(levelHandle: QuickJSHandle | undefined, messageHandle: QuickJSHandle | undefined, cutHandle: QuickJSHandle | undefined): void {
    if (this.logsTruncated || !levelHandle || !messageHandle) return;
    if (cutHandle && this.vm.typeof(cutHandle) === 'boolean' && this.vm.dump(cutHandle) === true) this.logsTruncated = true;
    const level = this.vm.getString(levelHandle);
    const message = this.redact(this.vm.typeof(messageHandle) === 'string' ? this.vm.getString(messageHandle) : '');
    const lineLevel: LogLine['level'] = level === 'debug' || level === 'warn' || level === 'error' ? level : 'info';
    // Each line costs its overhead too, so a flood of empty lines is bounded like one of long ones.
    const bytes = Buffer.byteLength(message, 'utf8') + LOG_LINE_OVERHEAD;
    const room = this.limits.logBytes - this.logBytes;
    if (bytes <= room) {
      // A line the prelude cut is kept (what fits of it), and is the last.
      this.logBytes += bytes;
      this.logs.push({ level: lineLevel, message, at: new Date().toISOString() });
      return;
    }
    this.logsTruncated = true;
    if (room > LOG_LINE_OVERHEAD) {
      const cut = capUtf8(message, room - LOG_LINE_OVERHEAD);
      this.logBytes += Buffer.byteLength(cut, 'utf8') + LOG_LINE_OVERHEAD;
      this.logs.push({ level: lineLevel, message: cut, at: new Date().toISOString() });
    }
  }

  private hostFetch(requestHandle: QuickJSHandle | undefined, bodyHandle: QuickJSHandle | undefined): QuickJSHandle {
    const vm = this.vm;
    const deferred = vm.newPromise();
    const refuse = (name: string, message: string, code: string) => {
      const error = vm.newError({ name, message });
      vm.newString(code).consume((c) => vm.setProp(error, 'code', c));
      deferred.reject(error);
      error.dispose();
      return deferred.handle;
    };
    if (!requestHandle || vm.typeof(requestHandle) !== 'string') return refuse('TypeError', 'fetch: invalid request', 'invalid-request');
    if (this.fetchCount >= this.limits.fetches) {
      return refuse('OutboundFailed', `fetch: this function may make at most ${this.limits.fetches} requests a run`, 'too-many-fetches');
    }
    this.fetchCount++;
    let request: FetchRequest;
    let body: string | Uint8Array | undefined;
    try {
      request = JSON.parse(vm.getString(requestHandle)) as typeof request;
      const bodyType = bodyHandle ? vm.typeof(bodyHandle) : 'undefined';
      if (bodyType === 'string') body = vm.getString(bodyHandle!);
      else if (bodyType === 'object') body = vm.getArrayBuffer(bodyHandle!).consume((bytes) => Uint8Array.from(bytes.value));
      else if (bodyType !== 'undefined') return refuse('TypeError', 'fetch: invalid body', 'invalid-request');
    } catch {
      return refuse('TypeError', 'fetch: invalid request', 'invalid-request');
    }
    const remaining = Math.max(1, Math.floor(this.deadline - performance.now()));
    const work = this.fetchImpl(
      String(request.url),
      { method: request.method, headers: request.headers, body, redirect: request.redirect },
      {
        allowedOrigins: this.req.allowedOrigins ?? [],
        refusedEndpoints: this.req.refusedEndpoints ?? [],
        timeoutMs: Math.min(this.limits.fetchTimeoutMs, remaining),
        maxResponseBytes: this.limits.responseBytes,
        maxRequestBytes: this.limits.requestBytes,
        signal: this.stop.signal,
      },
    );
    this.track(work, deferred, (response) => {
      const result = vm.newObject();
      const meta = JSON.stringify({
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        url: response.url,
        redirected: response.redirected,
      } satisfies FetchResponseMeta);
      vm.newString(meta).consume((m) => vm.setProp(result, 'meta', m));
      vm.newArrayBuffer(response.body.buffer.slice(response.body.byteOffset, response.body.byteOffset + response.body.byteLength)).consume((b) =>
        vm.setProp(result, 'body', b),
      );
      return result;
    }, (err) => {
      if (err instanceof OutboundRefused) return { name: err.name, message: err.message, code: err.rule };
      if (err instanceof OutboundFailed) return { name: err.name, message: err.message, code: err.reason };
      return { name: 'OutboundFailed', message: 'fetch failed', code: 'network' };
    });
    return deferred.handle;
  }

  private hostSleep(msHandle: QuickJSHandle | undefined): QuickJSHandle {
    const vm = this.vm;
    if (this.timers.size >= MAX_PENDING_TIMERS) {
      return vm.newError({ name: 'RangeError', message: `at most ${MAX_PENDING_TIMERS} timers may wait at once` }).consume((error) => {
        const deferred = vm.newPromise();
        deferred.reject(error);
        return deferred.handle;
      });
    }
    const requested = msHandle && vm.typeof(msHandle) === 'number' ? vm.getNumber(msHandle) : 0;
    const ms = Number.isFinite(requested) ? Math.max(0, requested) : 0;
    const deferred = vm.newPromise();
    // A wait past the deadline can only end in a timeout: no host timer is set past it.
    const delay = Math.min(ms, Math.max(0, this.deadline - performance.now()) + 1);
    const work = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, delay);
      this.timers.add(timer);
    });
    this.track(work, deferred, () => vm.undefined, () => ({ name: 'Error', message: 'timer failed', code: 'timer' }));
    return deferred.handle;
  }

  private hostUrl(...handles: (QuickJSHandle | undefined)[]): QuickJSHandle {
    const vm = this.vm;
    const [input, base, key, value] = handles.map((h) => {
      if (!h || vm.typeof(h) !== 'string') return undefined;
      const text = vm.getString(h);
      return text.length > MAX_URL_CHARS ? null : text;
    });
    if (input === undefined || input === null || base === null || value === null) return vm.undefined;
    try {
      const url = base === undefined ? new URL(input) : new URL(input, base);
      if (key !== undefined && key !== null) {
        if (!URL_SETTERS.has(key)) return vm.undefined;
        (url as unknown as Record<string, string>)[key] = value ?? '';
      }
      const parts: Record<string, string> = {};
      for (const part of URL_PARTS) parts[part] = url[part];
      return vm.newString(JSON.stringify(parts));
    } catch {
      return vm.undefined;
    }
  }

  /**
   * Counts host work as pending, and when it completes resolves (or rejects) the VM's promise,
   * then wakes the run. Nothing is touched once the run has ended.
   */
  private track<T>(
    work: Promise<T>,
    deferred: QuickJSDeferredPromise,
    toVm: (value: T) => QuickJSHandle,
    toError: (err: unknown) => { name: string; message: string; code: string },
  ): void {
    this.inflight++;
    work.then(
      (value) => this.complete(deferred, () => toVm(value), true),
      (err: unknown) =>
        this.complete(
          deferred,
          () => {
            const { name, message, code } = toError(err);
            const error = this.vm.newError({ name, message });
            this.vm.newString(code).consume((c) => this.vm.setProp(error, 'code', c));
            return error;
          },
          false,
        ),
    );
  }

  private complete(deferred: QuickJSDeferredPromise, make: () => QuickJSHandle, fulfil: boolean): void {
    this.inflight--;
    if (this.ended) return;
    try {
      const handle = make();
      if (fulfil) deferred.resolve(handle);
      else deferred.reject(handle);
      if (handle.alive && handle !== this.vm.undefined) handle.dispose();
    } catch (err) {
      // Copying a response in failed: the VM's memory is full (or the interpreter broke).
      this.fatal = isStackOverflow(err) ? new RunFailure('FunctionError', 'stack overflow') : this.memoryExceeded();
    }
    this.wake();
  }

  // ---- the end of a run

  private failureOf(err: unknown): { name: string; message: string } {
    if (err instanceof RunFailure) return { name: err.errorName, message: capUtf8(this.redact(err.message), ERROR_MESSAGE_BYTES) };
    if (isStackOverflow(err)) {
      // V8's stack ran out inside the interpreter: the instance is in an unknown state and is dropped (see end()).
      return { name: 'FunctionError', message: 'stack overflow (maximum call stack size exceeded)' };
    }
    if (err instanceof Wasm.RuntimeError) {
      // A trap at the memory cap is an allocation that failed where the interpreter did not expect it.
      if (this.atMemoryCap()) return { name: 'FunctionMemoryExceeded', message: this.memoryExceeded().message };
      return { name: 'FunctionError', message: `the interpreter stopped the function (${err.message})` };
    }
    throw err;
  }

  private result(outcome: { ok: true; output: Record<string, unknown> } | { ok: false; error: { name: string; message: string } }): RunResult {
    const common = { logs: this.logs, logsTruncated: this.logsTruncated, durationMs: Math.round(performance.now() - this.startedAt) };
    return outcome.ok ? { ok: true, output: outcome.output, ...common } : { ok: false, error: outcome.error, ...common };
  }

  /**
   * Stops everything the run started: in-flight fetches are aborted, timers cleared, and the
   * interrupt handler stops any VM code a late callback could start. The WebAssembly instance is
   * not disposed handle by handle: it is dropped whole with this Run (nothing else refers to it),
   * which also covers an instance left inconsistent by a host stack overflow.
   */
  private end(): void {
    this.ended = true;
    this.stop.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.wake();
  }

  private redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('[secret]');
    return out;
  }
}

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}

/**
 * Marks a module name that resolved to nothing (names cross into C as NUL-terminated strings, so
 * the mark is U+0001, which no module path of a function has).
 */
const UNRESOLVED = '\u0001';

const URL_PARTS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const satisfies readonly UrlPart[];
const URL_SETTERS = new Set<string>(['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']);

/** What the normalizer marked as resolving to nothing: the name asked for and the module that asked. */
function unresolvedName(name: string): [string, string] | undefined {
  if (!name.startsWith(UNRESOLVED)) return undefined;
  try {
    const parsed: unknown = JSON.parse(name.slice(UNRESOLVED.length));
    return Array.isArray(parsed) && parsed.length === 2 ? [String(parsed[0]), String(parsed[1])] : undefined;
  } catch {
    return undefined;
  }
}

/** A module's key in `modules`: "./lib/a.js" and "/lib/a.js" are "lib/a.js". */
function modulePath(path: string): string {
  return posix.normalize(path).replace(/^(\.\/|\/)+/, '');
}

/**
 * Resolves an import between the function's modules: relative ("./x.js", "../x.js") or from the
 * root ("/x.js"); a bare name ("fs", "node:child_process", "std") resolves to nothing, and so
 * does a path that climbs above the root.
 */
function resolveSpecifier(base: string, requested: string): string | undefined {
  if (!requested.startsWith('./') && !requested.startsWith('../') && !requested.startsWith('/')) return undefined;
  const joined = requested.startsWith('/') ? requested : posix.join(posix.dirname(base), requested);
  const normalized = posix.normalize(joined).replace(/^\/+/, '');
  if (normalized === '..' || normalized.startsWith('../')) return undefined;
  return normalized;
}

/** The longest prefix of `text` that is at most `bytes` of UTF-8, never splitting a character. */
function capUtf8(text: string, bytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= bytes) return text;
  const buffer = Buffer.from(text, 'utf8').subarray(0, bytes);
  // A cut inside a multi-byte sequence decodes to U+FFFD at the end: drop it.
  return buffer.toString('utf8').replace(/\uFFFD+$/, '');
}
