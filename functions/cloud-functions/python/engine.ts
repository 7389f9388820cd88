/**
 * The engine that runs tenant cloud functions written in Python: CPython 3.12 compiled to
 * WebAssembly (the `pyodide` npm package), in a fresh, locked-down Node child process per run.
 *
 * ## What the function's code sees
 *
 * ```python
 * import json, requests
 * from cfresults import Outcome, OverallResult, OverallResultEncoder
 * r = requests.post("https://api.example.com/check", json={"name": params["vars"]["idv"]["name"]},
 *                   headers={"Authorization": "Bearer " + params["secrets"]["apiKey"]}, timeout=10)
 * r.raise_for_status()
 * results["executionVariables"] = {"idv": {**params["vars"]["idv"], "score": r.json()["score"]}}
 * results["cfResults"] = json.loads(OverallResultEncoder().encode(OverallResult(Outcome.APPROVE, {})))
 * ```
 *
 * - A top-level script (no entry point): the dict `params` (the request's JSON) and the dict
 *   `results`, empty, which after the script is turned into JSON and is the run's output.
 *   datetime/date/time become ISO text, Decimal text, set/tuple lists, bytes base64 text, the
 *   cfresults objects what their encoder writes; anything else fails the run naming its key path.
 * - The standard library (json, re, datetime, hashlib, hmac, base64, uuid, urllib.parse, decimal,
 *   random, secrets, zoneinfo...), `cfresults`, and `requests` (requests.py: the surface functions
 *   use), whose calls go out through the same guard as JavaScript functions (outbound.ts).
 * - print() lines are 'info' log lines, stderr lines 'error' ones; an uncaught exception (SystemExit
 *   too) fails the run with `<Type>: <message> (line N)` and its traceback as error lines. Secret
 *   values (params["secrets"], 8 characters or longer, and their URL-encoded forms) are masked.
 * - Nothing else: no environment (os.environ is a fixed four keys), no host files (the file system
 *   is pyodide's in-memory one), no sockets, no processes, no JavaScript (`js`, `pyodide_js` and the
 *   pyodide package are removed before the script runs, with the JavaScript values pyodide's own
 *   modules kept). Not there either: threads, asyncio (pyodide's event loop needs its JavaScript
 *   side), ssl and sqlite3 (not shipped by pyodide 0.27.8), and any package outside the standard
 *   library but these pure-Python ones (pylibs.zip): jwt (PyJWT, its HMAC algorithms), rsa, ecdsa,
 *   pyaes, pyasn1, six. `cryptography` is not there: its pyodide wheel is not in the npm package,
 *   so neither are PyJWT's RSA and EC algorithms (ecdsa and rsa sign and verify directly). Python 3.9
 *   scripts run on this 3.12; what 3.10-3.12 removed (distutils, imp, asynchat...) is missing.
 *   zoneinfo has Debian's time zone database (tzdata.zip).
 *
 * ## Why it is built this way (measured in /work/notes/issue29-spike.md)
 * - **A process per run**, not an interpreter per run in this process: pyodide's Python can reach
 *   the JavaScript realm it runs in (ctypes → emscripten_run_script, os.system → child_process,
 *   `import pyodide_js` → mountNodeFS), so the realm itself must hold nothing: the child has an
 *   empty environment, Node's permission model (reads of pyodide, the snapshot and the child's own
 *   two files; no writes, processes or workers), no code generation from strings, and its network
 *   shut by preload.mjs. Everything that has a capability (the guarded fetch, the secrets' masks,
 *   the limits) stays here, in the parent. A child runs one function and is killed after it, so
 *   nothing a run changes (sys.modules, builtins, files in /tmp) is seen by the next.
 * - **A memory snapshot**: loading pyodide takes ~2.4 s; a child started from a snapshot taken
 *   after the standard library was imported is ready in ~0.5 s. The snapshot is made once per
 *   pyodide version and engine files (snapshot.mjs, by a trusted child), written atomically,
 *   checked by size and hash, and reused by later engines and processes.
 * - **A spare child** is kept ready, so a warm run pays a few milliseconds, not the start.
 * - **Limits are enforced from outside**: the wall clock by SIGKILL, memory by watching the child's
 *   resident size (/proc/<pid>/status, every 25 ms) against its size when the run began
 *   (WebAssembly memory cannot be capped through pyodide's loader; where there is no /proc there
 *   is no memory limit), output and logs by counting what arrives.
 *
 * ## Deploying it
 * - The files PYTHON_ASSETS names must sit beside the bundled engine (it finds them from its own
 *   URL), and `pyodide` must be an installed package resolvable from there (a layer, as
 *   quickjs-emscripten is: it reads its .wasm and stdlib zip at run time); its `ws` dependency is
 *   not needed. Node 20+, Linux for the memory limit.
 * - The snapshot goes to os.tmpdir() unless `snapshotDir` names a folder that has it (one made by
 *   the same pyodide version and engine files, e.g. shipped in the layer): making it takes 4-6 s.
 * - Memory: an idle spare child is ~200 MB resident, a running one that plus up to `memoryBytes`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { resolveLimits, type LogLine, type RunLimits, type RunResult } from '../contract.js';
import { guardedFetch, OutboundFailed, OutboundRefused, type GuardedFetch } from '../../shared/outbound.js';
import { nestsDeeperThan } from '../../shared/json.js';

export interface PythonRunRequest {
  /** The function's text (the service checks <= 20,000 chars; over 64 KiB is refused here). */
  script: string;
  /** JSON; the Python dict `params` ({secrets: {name: value}, vars: {...}}). */
  params: Record<string, unknown>;
  /** `memoryBytes` is the growth the run may take past the ready child's size. */
  limits?: Partial<RunLimits>;
  /** Exact origins the guard lets through (the local S3 stand-in); empty on AWS. */
  allowedOrigins?: string[];
  /** The local runtime's own services, refused whatever; empty on AWS. */
  refusedEndpoints?: string[];
}

export type PythonCheck = { ok: true } | { ok: false; line: number; column: number; message: string };

export interface PythonEngine {
  /** Never rejects for what the script does; rejects only when the engine itself cannot work (or is stopped). */
  run(req: PythonRunRequest): Promise<RunResult>;
  /** compile() only, nothing executed. */
  check(script: string): Promise<PythonCheck>;
  /** Makes or loads the snapshot and has one child ready. */
  warmUp(): Promise<void>;
  /** Kills every child; later calls reject. */
  stop(): Promise<void>;
}

export interface PythonEngineOptions {
  /** Where the snapshot is kept: os.tmpdir()/arthr-python-<pyodide version> by default. */
  snapshotDir?: string;
  /** This folder's non-TypeScript files (PYTHON_ASSETS): this module's folder by default. */
  assetsDir?: string;
  /** node_modules/pyodide, resolved from here by default. */
  pyodideDir?: string;
  /** The outbound request function (the guard by default; a fake in tests). */
  fetch?: GuardedFetch;
  /** Children kept ready (default 1). */
  spare?: number;
}

/** The files of this folder the engine reads at run time: a bundle ships them beside engine.ts's code. */
export const PYTHON_ASSETS: readonly string[] = Object.freeze(['child.mjs', 'preload.mjs', 'snapshot.mjs', 'cfhost.py', 'cfresults.py', 'requests.py', 'pylibs.zip', 'tzdata.zip']);

const KiB = 1024;
/** Longest script accepted (UTF-8); the service's own limit is 20,000 characters. */
const MAX_SCRIPT_BYTES = 64 * KiB;
/** Error messages handed back are cut to this many characters. */
const ERROR_MESSAGE_CHARS = 1000;
/** As sandbox.ts: shorter secrets are not masked (replacing "1234" everywhere garbles more than it hides). */
const MIN_REDACTED_SECRET = 8;
/** As sandbox.ts: what each log line costs against logBytes besides its text. */
const LOG_LINE_OVERHEAD = 64;
/** As sandbox.ts: deepest nesting of the output. */
const MAX_OUTPUT_DEPTH = 64;
/** How often the child's resident size is read during a run. */
const MEMORY_POLL_MS = 25;
/** A child that is not ready in this long is broken (a cold start is ~0.5-1 s, 2-3 s on a busy machine). */
const START_TIMEOUT_MS = 60_000;
/** Making the snapshot (~2-4 s). */
const SNAPSHOT_TIMEOUT_MS = 120_000;
/** A check compiles only; anything this slow is a pathological script. */
const CHECK_TIMEOUT_MS = 10_000;
/** Longest message line from a child (a request body of MAX 10 MiB, base64 in JSON in JSON). */
const MAX_MESSAGE_BYTES = 40 * 1024 * KiB;

/**
 * Node 20 spells the permission model --experimental-permission; 22.13 and later --permission
 * (the old spelling is gone in 23). Only Node 20 was measured here.
 */
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';

interface PyodideInfo {
  dir: string;
  version: string;
  python: string;
}

function findPyodide(dir?: string): PyodideInfo {
  const root = dir ?? path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
  const real = realpathSync(root);
  const lock = JSON.parse(readFileSync(path.join(real, 'pyodide-lock.json'), 'utf8')) as { info: { version: string; python: string } };
  return { dir: real, version: lock.info.version, python: lock.info.python };
}

/** The Python version functions run on, read from the installed pyodide ('' when pyodide cannot be found). */
export const PYTHON_VERSION: string = (() => {
  try {
    return findPyodide().python;
  } catch {
    return '';
  }
})();

export function startPythonEngine(options: PythonEngineOptions = {}): PythonEngine {
  return new Engine(options);
}

// ---- the children

type ChildMessage =
  | { t: 'ready' }
  | { t: 'checked'; result: { ok: boolean; line?: number; column?: number; message?: string } }
  | { t: 'log'; stream: 'out' | 'err'; text: string }
  | { t: 'log-cut' }
  | { t: 'fetch'; request: string }
  | { t: 'result'; outcome: Outcome };

type Outcome =
  | { status: 'ok'; output: string }
  | { status: 'invalid' | 'output'; message: string }
  | { status: 'error'; message: string; traceback?: string[] }
  | { status: 'fatal' };

/** Every child of every engine: killed when this process exits, so no run outlives its parent. */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of liveChildren) c.kill('SIGKILL');
    });
  }
}

/** The last few KiB a child wrote on stderr, long lines (minified source in Node's error output) cut. */
function tail(text: string): string {
  return text
    .split('\n')
    .map((line) => (line.length > 300 ? `${line.slice(0, 120)}…` : line))
    .join('\n')
    .slice(-2000)
    .trim();
}

class Child {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  private readonly channel: Readable & Writable;
  private buffer = '';
  private stderr = '';
  /** Pending checks, answered in order; undefined when the child exits first. */
  private checks: ((result: PythonCheck | undefined) => void)[] = [];
  /** The run's handler of messages; undefined while the child is spare. */
  onMessage: ((message: ChildMessage) => void) | undefined;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  dead = false;
  isReady = false;
  killedFor: 'timeout' | 'memory' | 'protocol' | 'stopped' | undefined;

  constructor(args: string[]) {
    this.process = spawn(process.execPath, args, { env: {}, stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
    track(this.process);
    this.channel = this.process.stdio[3] as Readable & Writable;
    this.process.stderr!.setEncoding('utf8');
    this.process.stderr!.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-64 * KiB);
    });
    // A child that died has no reader: writes to it fail, which its exit already reports.
    this.process.stdin!.on('error', () => {});
    this.channel.on('error', () => {});
    this.channel.setEncoding('utf8');
    this.channel.on('data', (chunk: string) => this.receive(chunk));
    this.exited = new Promise((resolve) => {
      this.process.once('exit', (code, signal) => {
        this.dead = true;
        for (const settle of this.checks) settle(undefined);
        this.checks = [];
        resolve({ code, signal });
      });
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill('protocol');
        reject(new Error(`the Python child was not ready within ${START_TIMEOUT_MS} ms`));
      }, START_TIMEOUT_MS);
      this.onReady = () => {
        this.isReady = true;
        clearTimeout(timer);
        resolve();
      };
      void this.exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`the Python child exited before it was ready (${signal ?? `code ${code}`}): ${tail(this.stderr)}`));
      });
    });
    // A spare child must not keep an otherwise finished process alive.
    this.unref();
  }

  private onReady: () => void = () => {};

  unref(): void {
    this.process.unref();
    for (const stream of [this.process.stdin, this.process.stderr, this.channel]) (stream as unknown as { unref?: () => void }).unref?.();
  }

  ref(): void {
    this.process.ref();
    for (const stream of [this.process.stdin, this.process.stderr, this.channel]) (stream as unknown as { ref?: () => void }).ref?.();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_MESSAGE_BYTES) {
      // Only a broken or subverted child says this much in one line.
      this.kill('protocol');
      return;
    }
    for (let newline = this.buffer.indexOf('\n'); newline >= 0; newline = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      let message: ChildMessage;
      try {
        message = JSON.parse(line) as ChildMessage;
      } catch {
        this.kill('protocol');
        return;
      }
      if (message.t === 'ready') this.onReady();
      else if (message.t === 'checked') this.checks.shift()?.(toCheck(message.result));
      else this.onMessage?.(message);
    }
  }

  send(message: unknown): void {
    if (!this.dead) this.process.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  reply(message: unknown): void {
    if (!this.dead) this.channel.write(`${JSON.stringify(message)}\n`);
  }

  check(script: string): Promise<PythonCheck | undefined> {
    return new Promise((resolve) => {
      this.checks.push(resolve);
      this.send({ t: 'check', script });
    });
  }

  kill(reason: NonNullable<Child['killedFor']>): void {
    this.killedFor ??= reason;
    if (!this.dead) this.process.kill('SIGKILL');
  }

  /** Resident memory in bytes (VmRSS), or undefined where /proc is not there. */
  rss(): number | undefined {
    if (this.process.pid === undefined || this.dead) return undefined;
    try {
      const status = readFileSync(`/proc/${this.process.pid}/status`, 'utf8');
      const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
      return match ? Number(match[1]) * 1024 : undefined;
    } catch {
      return undefined;
    }
  }
}

function toCheck(result: { ok: boolean; line?: number; column?: number; message?: string }): PythonCheck {
  if (result.ok) return { ok: true };
  return { ok: false, line: Number(result.line) || 1, column: Number(result.column) || 1, message: String(result.message ?? 'invalid syntax') };
}

// ---- the engine

class Engine implements PythonEngine {
  private readonly pyodide: PyodideInfo;
  private readonly assetsDir: string;
  private readonly snapshotDir: string;
  private readonly fetchImpl: GuardedFetch;
  private readonly spareCount: number;
  private snapshot: Promise<string> | undefined;
  private snapshotFile: string | undefined;
  private spares: Child[] = [];
  private readonly children = new Set<Child>();
  private stopped = false;

  constructor(options: PythonEngineOptions) {
    this.pyodide = findPyodide(options.pyodideDir);
    this.assetsDir = realpathSync(options.assetsDir ?? fileURLToPath(new URL('.', import.meta.url)));
    for (const asset of PYTHON_ASSETS) {
      if (!existsSync(path.join(this.assetsDir, asset))) throw new Error(`the Python engine's file ${asset} is missing from ${this.assetsDir}`);
    }
    this.snapshotDir = options.snapshotDir ?? path.join(tmpdir(), `arthr-python-${this.pyodide.version}`);
    this.fetchImpl = options.fetch ?? guardedFetch;
    this.spareCount = Math.max(0, Math.floor(options.spare ?? 1));
  }

  async warmUp(): Promise<void> {
    this.assertRunning();
    await this.snapshotPath();
    if (this.spares.length === 0) this.spares.push(await this.spawn());
    await this.spares[0]!.ready;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const children = [...this.children];
    this.spares = [];
    for (const child of children) {
      // Held again so this process waits for their exit, which stop() promises.
      child.ref();
      child.kill('stopped');
    }
    await Promise.all(children.map((child) => child.exited));
  }

  async check(script: string): Promise<PythonCheck> {
    this.assertRunning();
    if (typeof script !== 'string') throw new TypeError('check: the script must be a string');
    if (Buffer.byteLength(script, 'utf8') > MAX_SCRIPT_BYTES) {
      return { ok: false, line: 1, column: 1, message: `the script is over ${MAX_SCRIPT_BYTES} bytes` };
    }
    // Compiling runs nothing of the script, so the spare that checks it stays spare. A spare a run
    // takes meanwhile answers the check first (its jobs are read in order); one that dies does not,
    // and the check goes to another.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.spares.length === 0) this.spares.push(await this.spawn());
      const child = this.spares[0]!;
      await child.ready;
      if (child.dead || !this.spares.includes(child)) continue;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<PythonCheck>((resolve) => {
        timer = setTimeout(() => {
          this.discard(child);
          child.kill('timeout');
          resolve({ ok: false, line: 1, column: 1, message: `the script could not be compiled within ${CHECK_TIMEOUT_MS} ms` });
        }, CHECK_TIMEOUT_MS);
      });
      try {
        const result = await Promise.race([child.check(script), timedOut]);
        if (result) return result;
      } finally {
        clearTimeout(timer);
      }
      this.assertRunning();
    }
    throw new Error('the Python engine could not check the script: its children kept exiting');
  }

  async run(req: PythonRunRequest): Promise<RunResult> {
    this.assertRunning();
    assertRequestShape(req);
    const startedAt = performance.now();
    const limits = resolveLimits(req.limits);
    const run = new PythonRun(req, limits, this.fetchImpl, startedAt);
    if (Buffer.byteLength(req.script, 'utf8') > MAX_SCRIPT_BYTES) {
      return run.fail('FunctionInvalid', `the script is over ${MAX_SCRIPT_BYTES} bytes`);
    }
    const params = JSON.stringify(req.params);
    const child = await this.take();
    try {
      await child.ready;
    } catch (err) {
      this.refill();
      throw err;
    }
    try {
      return await run.execute(child, params);
    } finally {
      child.kill('stopped');
      this.children.delete(child);
      // The next spare starts once this run is done: started beside it, its start-up (~0.5-1 s of
      // CPU) slowed a short run by 20-30 ms on two cores.
      this.refill();
    }
  }

  private assertRunning(): void {
    if (this.stopped) throw new Error('the Python engine is stopped');
  }

  /** A ready (or starting) child for one run, taken out of the spares. */
  private async take(): Promise<Child> {
    const spare = this.spares.shift();
    if (spare && !spare.dead) {
      // A spare still settling (child.mjs) would make the run wait for nothing: it starts now.
      if (!spare.isReady) spare.send({ t: 'hurry' });
      return spare;
    }
    return this.spawn(false);
  }

  /** Starts spares up to the count, in the background; one that fails to start is dropped. */
  private refill(): void {
    if (this.stopped || this.snapshotFile === undefined) return;
    while (this.spares.filter((c) => !c.dead).length < this.spareCount) this.spares.push(this.spawnNow(this.snapshotFile));
  }

  private discard(child: Child): void {
    this.spares = this.spares.filter((c) => c !== child);
    this.children.delete(child);
  }

  /** A new child; `settle`: a spare, which says ready only once its start-up work is done (child.mjs). */
  private async spawn(settle = true): Promise<Child> {
    const snapshot = await this.snapshotPath();
    this.assertRunning();
    return this.spawnNow(snapshot, settle);
  }

  private spawnNow(snapshot: string, settle = true): Child {
    const file = (name: string) => path.join(this.assetsDir, name);
    const child = new Child([
      PERMISSION_FLAG,
      `--allow-fs-read=${this.pyodide.dir}/`,
      `--allow-fs-read=${snapshot}`,
      `--allow-fs-read=${file('child.mjs')}`,
      `--allow-fs-read=${file('preload.mjs')}`,
      '--disallow-code-generation-from-strings',
      '--no-warnings',
      '--import',
      file('preload.mjs'),
      file('child.mjs'),
      this.pyodide.dir,
      snapshot,
      settle ? '1' : '0',
    ]);
    this.children.add(child);
    // A spare that fails to start is dropped when it exits; whoever takes it sees the rejection.
    child.ready.catch(() => {});
    void child.exited.then(() => this.discard(child));
    return child;
  }

  private snapshotPath(): Promise<string> {
    this.snapshot ??= ensureSnapshot(this.pyodide, this.assetsDir, this.snapshotDir).then(
      (file) => (this.snapshotFile = file),
      (err: unknown) => {
        this.snapshot = undefined;
        throw err;
      },
    );
    return this.snapshot;
  }
}

function assertRequestShape(req: PythonRunRequest): void {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isRecord(req)) throw new TypeError('run: the request must be an object');
  if (typeof req.script !== 'string') throw new TypeError('run: script must be a string');
  if (!isRecord(req.params)) throw new TypeError('run: params must be an object');
  for (const key of ['allowedOrigins', 'refusedEndpoints'] as const) {
    const list = req[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((o) => typeof o === 'string'))) throw new TypeError(`run: ${key} must be a list of strings`);
  }
}

// ---- the snapshot

/**
 * The snapshot's path, made first when there is none for this pyodide version and these engine
 * files. Its name carries a hash of what it was made from; a stamp beside it holds its size and
 * SHA-256, checked before it is used (a truncated or altered file is made again).
 */
async function ensureSnapshot(pyodide: PyodideInfo, assetsDir: string, dir: string): Promise<string> {
  const source = createHash('sha256').update(pyodide.version);
  for (const name of ['snapshot.mjs', 'cfhost.py', 'cfresults.py', 'requests.py', 'pylibs.zip', 'tzdata.zip']) source.update(await readFile(path.join(assetsDir, name)));
  const name = `snapshot-${source.digest('hex').slice(0, 16)}`;
  const file = path.join(dir, `${name}.bin`);
  const stampFile = path.join(dir, `${name}.json`);
  if (await snapshotIsValid(file, stampFile)) return file;

  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A trusted child: no tenant code runs in it, and it needs to write the file.
  const maker = spawn(process.execPath, ['--no-warnings', path.join(assetsDir, 'snapshot.mjs'), pyodide.dir, assetsDir, file], {
    env: {},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(maker);
  let stderr = '';
  maker.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-64 * KiB)));
  maker.stdout!.resume();
  const timer = setTimeout(() => maker.kill('SIGKILL'), SNAPSHOT_TIMEOUT_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => maker.once('exit', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the Python snapshot could not be made (${signal ?? `code ${code}`}): ${tail(stderr)}`);
  const stamp = { size: (await stat(file)).size, sha256: await sha256(file) };
  const temporary = `${stampFile}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(stamp), { mode: 0o600 });
  await rename(temporary, stampFile);
  await removeStaleSnapshots(dir, name);
  return file;
}

/**
 * Snapshots of other engine versions left in the folder (25 MB each, and /tmp is small on Lambda),
 * once nothing is likely to be starting from them: an hour old. Another checkout sharing the
 * folder keeps its own while it is in use.
 */
async function removeStaleSnapshots(dir: string, current: string): Promise<void> {
  const hourAgo = Date.now() - 60 * 60 * 1000;
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (!/^snapshot-[0-9a-f]{16}\.(bin|json)$/.test(entry) || entry.startsWith(`${current}.`)) continue;
    const file = path.join(dir, entry);
    try {
      if ((await stat(file)).mtimeMs < hourAgo) await unlink(file);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

async function snapshotIsValid(file: string, stampFile: string): Promise<boolean> {
  try {
    const stamp = JSON.parse(await readFile(stampFile, 'utf8')) as { size: unknown; sha256: unknown };
    const { size } = await stat(file);
    return size === stamp.size && (await sha256(file)) === stamp.sha256;
  } catch {
    return false;
  }
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, 'r');
  try {
    for await (const chunk of handle.createReadStream()) hash.update(chunk as Buffer);
  } finally {
    await handle.close().catch(() => {});
  }
  return hash.digest('hex');
}

// ---- one run

type Failure = { name: 'FunctionError' | 'FunctionTimeout' | 'FunctionMemoryExceeded' | 'FunctionOutputInvalid' | 'FunctionInvalid'; message: string };

class PythonRun {
  private readonly logs: LogLine[] = [];
  private logBytes = 0;
  private logsTruncated = false;
  private readonly partial = { out: '', err: '' };
  private fetchCount = 0;
  private readonly secrets: string[];
  private readonly stopFetches = new AbortController();
  private deadline = Number.POSITIVE_INFINITY;

  constructor(
    private readonly req: PythonRunRequest,
    private readonly limits: RunLimits,
    private readonly fetchImpl: GuardedFetch,
    private readonly startedAt: number,
  ) {
    const raw = req.params.secrets;
    const values = typeof raw === 'object' && raw !== null ? Object.values(raw as Record<string, unknown>) : [];
    const forms = values.flatMap((s) => (typeof s === 'string' ? urlForms(s) : []));
    this.secrets = [...new Set(forms)].filter((s) => s.length >= MIN_REDACTED_SECRET).sort((a, b) => b.length - a.length);
  }

  fail(name: Failure['name'], message: string): RunResult {
    return this.result({ name, message });
  }

  async execute(child: Child, params: string): Promise<RunResult> {
    child.ref();
    const { limits } = this;
    let outcome: Outcome | undefined;
    const done = new Promise<void>((resolve) => {
      child.onMessage = (message) => {
        if (message.t === 'log') this.log(message.stream, message.text);
        else if (message.t === 'log-cut') this.logsTruncated = true;
        else if (message.t === 'fetch') void this.fetch(child, message.request);
        else if (message.t === 'result') {
          outcome = message.outcome;
          resolve();
        }
      };
      void child.exited.then(() => resolve());
    });

    // The memory limit is growth past the child's size as the run starts (pyodide and the
    // standard library are ~180-230 MB whatever the function does).
    const baseline = child.rss();
    const memoryCap = baseline === undefined ? undefined : baseline + limits.memoryBytes;
    const watch = setInterval(() => {
      const rss = child.rss();
      if (memoryCap !== undefined && rss !== undefined && rss > memoryCap) child.kill('memory');
    }, MEMORY_POLL_MS);
    this.deadline = performance.now() + limits.timeoutMs;
    const timer = setTimeout(() => child.kill('timeout'), limits.timeoutMs);
    child.send({ t: 'run', script: this.req.script, params, outputBytes: limits.outputBytes, logBytes: limits.logBytes, requestBytes: limits.requestBytes });
    try {
      await done;
    } finally {
      clearTimeout(timer);
      clearInterval(watch);
      this.stopFetches.abort();
    }
    this.flushLogs();
    if (child.killedFor === 'stopped') throw new Error('the Python engine was stopped during the run');
    if (child.killedFor === 'timeout') return this.fail('FunctionTimeout', `the function ran past its time limit of ${limits.timeoutMs} ms`);
    if (child.killedFor === 'memory') return this.fail('FunctionMemoryExceeded', `the function used more than its memory limit of ${limits.memoryBytes} bytes`);
    if (!outcome) return this.fail('FunctionError', 'the Python interpreter stopped unexpectedly');
    return this.finish(outcome);
  }

  private finish(outcome: Outcome): RunResult {
    switch (outcome.status) {
      case 'ok':
        return this.output(outcome.output);
      case 'invalid':
        return this.fail('FunctionInvalid', `the function does not compile: ${outcome.message}`);
      case 'output':
        return this.fail('FunctionOutputInvalid', outcome.message);
      case 'error':
        for (const line of outcome.traceback ?? []) this.addLine('error', String(line));
        return this.fail('FunctionError', outcome.message);
      default:
        // A pyodide fatal error: what ctypes, os.system and the like end in under the child's permissions.
        return this.fail('FunctionError', 'the function stopped the Python interpreter (an operation cloud functions cannot do, such as ctypes, os.system or a subprocess)');
    }
  }

  private output(json: string): RunResult {
    if (Buffer.byteLength(json, 'utf8') > this.limits.outputBytes) return this.fail('FunctionOutputInvalid', `results are over ${this.limits.outputBytes} bytes of JSON`);
    if (nestsDeeperThan(json, MAX_OUTPUT_DEPTH)) return this.fail('FunctionOutputInvalid', `results are nested deeper than ${MAX_OUTPUT_DEPTH} levels`);
    let output: unknown;
    try {
      output = JSON.parse(json);
    } catch {
      return this.fail('FunctionOutputInvalid', 'results are not JSON');
    }
    if (typeof output !== 'object' || output === null || Array.isArray(output)) return this.fail('FunctionOutputInvalid', 'results must be a dict');
    // A key named __proto__ would set a prototype wherever the output is later merged (shared/own.ts).
    if (/"__proto__"\s*:/.test(json)) return this.fail('FunctionOutputInvalid', 'results have a key named __proto__, which cannot be stored');
    return this.result(undefined, output as Record<string, unknown>);
  }

  private result(failure: Failure | undefined, output?: Record<string, unknown>): RunResult {
    const common = { logs: this.logs, logsTruncated: this.logsTruncated, durationMs: Math.round(performance.now() - this.startedAt) };
    if (!failure) return { ok: true, output: output ?? {}, ...common };
    const message = this.redact(failure.message);
    return { ok: false, error: { name: failure.name, message: message.length > ERROR_MESSAGE_CHARS ? `${message.slice(0, ERROR_MESSAGE_CHARS - 1)}…` : message }, ...common };
  }

  // ---- logs

  private log(stream: 'out' | 'err', text: string): void {
    if (typeof text !== 'string') return;
    const level = stream === 'err' ? 'error' : 'info';
    let buffered = this.partial[stream] + text;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      this.addLine(level, buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
    }
    // The child forwards at most logBytes, so a line without its end stays bounded.
    this.partial[stream] = buffered;
  }

  private flushLogs(): void {
    for (const stream of ['out', 'err'] as const) {
      if (this.partial[stream] !== '') this.addLine(stream === 'err' ? 'error' : 'info', this.partial[stream]);
      this.partial[stream] = '';
    }
  }

  /** As sandbox.ts hostLog: each line costs its text and an overhead; the line that does not fit is cut and the last. */
  private addLine(level: LogLine['level'], text: string): void {
    if (this.logsTruncated && this.logBytes >= this.limits.logBytes) return;
    const message = this.redact(text.replace(/\r$/, ''));
    const bytes = Buffer.byteLength(message, 'utf8') + LOG_LINE_OVERHEAD;
    const room = this.limits.logBytes - this.logBytes;
    if (bytes <= room) {
      this.logBytes += bytes;
      this.logs.push({ level, message, at: new Date().toISOString() });
      return;
    }
    this.logsTruncated = true;
    if (room > LOG_LINE_OVERHEAD) {
      const cut = capUtf8(message, room - LOG_LINE_OVERHEAD);
      this.logs.push({ level, message: cut, at: new Date().toISOString() });
    }
    this.logBytes = this.limits.logBytes;
  }

  private redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('[secret]');
    return out;
  }

  // ---- requests

  private async fetch(child: Child, raw: string): Promise<void> {
    const answer = await this.exchange(raw);
    child.reply(answer);
  }

  private async exchange(raw: string): Promise<Record<string, unknown>> {
    let request: { method?: unknown; url?: unknown; headers?: unknown; body?: unknown; timeout?: unknown; redirect?: unknown };
    try {
      request = JSON.parse(raw) as typeof request;
    } catch {
      return { ok: false, kind: 'invalid', message: 'requests: the request could not be read' };
    }
    if (typeof request.url !== 'string' || typeof request.method !== 'string') return { ok: false, kind: 'invalid', message: 'requests: the request has no URL or method' };
    if (this.fetchCount >= this.limits.fetches) {
      return { ok: false, kind: 'failed', message: `requests: this function may make at most ${this.limits.fetches} requests a run` };
    }
    this.fetchCount++;
    const headers: Record<string, string> = {};
    if (typeof request.headers === 'object' && request.headers !== null) {
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
    }
    const body = typeof request.body === 'string' ? Buffer.from(request.body, 'base64') : undefined;
    const remaining = Math.max(1, Math.floor(this.deadline - performance.now()));
    const asked = typeof request.timeout === 'number' && Number.isFinite(request.timeout) && request.timeout > 0 ? Math.ceil(request.timeout * 1000) : Number.POSITIVE_INFINITY;
    try {
      const response = await this.fetchImpl(
        request.url,
        { method: request.method, headers, body, redirect: request.redirect === 'manual' ? 'manual' : 'follow' },
        {
          allowedOrigins: this.req.allowedOrigins ?? [],
          refusedEndpoints: this.req.refusedEndpoints ?? [],
          timeoutMs: Math.min(this.limits.fetchTimeoutMs, remaining, asked),
          maxResponseBytes: this.limits.responseBytes,
          maxRequestBytes: this.limits.requestBytes,
          signal: this.stopFetches.signal,
        },
      );
      return {
        ok: true,
        status: response.status,
        reason: response.statusText,
        headers: response.headers,
        url: response.url,
        body: Buffer.from(response.body).toString('base64'),
      };
    } catch (err) {
      if (err instanceof OutboundRefused) return { ok: false, kind: 'refused', rule: err.rule, message: err.message };
      if (err instanceof OutboundFailed) {
        const kind = err.reason === 'timeout' ? 'timeout' : err.reason === 'too-many-redirects' ? 'redirects' : err.reason === 'invalid-request' ? 'invalid' : 'failed';
        return { ok: false, kind, message: err.message };
      }
      return { ok: false, kind: 'failed', message: 'the request failed' };
    }
  }
}

/**
 * A secret as it is and as URL encoders write it: encodeURIComponent, Python's quote() (which
 * also escapes !'()* and keeps /) and quote_plus() (spaces as +).
 */
function urlForms(secret: string): string[] {
  const component = encodeURIComponent(secret);
  const strict = component.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return [secret, component, strict, strict.replace(/%2F/g, '/'), strict.replace(/%20/g, '+')];
}


/** The longest prefix of `text` that is at most `bytes` of UTF-8, never splitting a character. */
function capUtf8(text: string, bytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= bytes) return text;
  return Buffer.from(text, 'utf8').subarray(0, bytes).toString('utf8').replace(/\uFFFD+$/, '');
}
