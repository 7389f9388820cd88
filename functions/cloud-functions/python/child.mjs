/**
 * One run of a Python cloud function, in a process of its own that the engine (engine.ts) starts
 * with the permission model on (reads of pyodide, the snapshot and this folder only; no writes,
 * no child processes, no workers), no code generation from strings, an empty environment and the
 * network shut by preload.mjs. It loads pyodide from the snapshot, cuts Python's ways to the
 * JavaScript side, says it is ready, then answers any number of `check` jobs and at most one
 * `run` job, after which it exits: no state outlives a run.
 *
 * Channels: jobs arrive as JSON lines on stdin; everything it says goes as JSON lines on fd 3
 * (ready, log chunks, fetch requests, results), and fetch answers come back on fd 3, read
 * synchronously while Python waits in requests' read of /dev/host.
 *
 * argv: <pyodide dir> <snapshot path> <settle: 1 for a spare, 0 for a child a run is waiting for>
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const CHANNEL = 3;
const [pyodideDir, snapshotPath, settleArg] = process.argv.slice(2);
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `text` to fd 3, waiting out a full pipe. */
function send(message) {
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(CHANNEL, bytes, offset, bytes.length - offset);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}

let pending = Buffer.alloc(0);
/** The next line the engine writes on fd 3 (a fetch answer), read synchronously. */
function receiveLine() {
  const chunk = Buffer.alloc(1 << 20);
  for (;;) {
    const newline = pending.indexOf(10);
    if (newline >= 0) {
      const line = pending.subarray(0, newline);
      pending = pending.subarray(newline + 1);
      return line;
    }
    let n;
    try {
      n = fs.readSync(CHANNEL, chunk, 0, chunk.length, null);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 2);
      continue;
    }
    if (n === 0) throw new Error('the engine closed the channel');
    pending = Buffer.concat([pending, chunk.subarray(0, n)]);
  }
}

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, 'pyodide.mjs')).href);
let job; // the run job while it runs
let logBudget = 0;
const streams = { out: new TextDecoder(), err: new TextDecoder() };
/**
 * Python's stdout/stderr, forwarded while a run runs, up to the run's log budget in bytes (the
 * engine counts exactly, lines and their overhead); past it the rest is dropped and the engine told.
 */
let cutSent = false;
function forward(kind, bytes) {
  if (!job) return bytes.length;
  if (logBudget <= 0) {
    if (!cutSent) send({ t: 'log-cut' });
    cutSent = true;
    return bytes.length;
  }
  const kept = bytes.length > logBudget ? bytes.subarray(0, logBudget) : bytes;
  logBudget -= kept.length;
  send({ t: 'log', stream: kind, text: streams[kind].decode(kept, { stream: true }) });
  return bytes.length;
}

const py = await loadPyodide({
  indexURL: `${pyodideDir}/`,
  jsglobals: Object.create(null),
  env: {},
  _loadSnapshot: fs.readFileSync(snapshotPath),
  stdout: () => {},
  stderr: () => {},
});
// stdin is the engine's job channel: Python's input() gets end of file, never a job.
py.setStdin({ stdin: () => null });
py.setStdout({ write: (bytes) => forward('out', bytes) });
py.setStderr({ write: (bytes) => forward('err', bytes) });

// /dev/host: requests writes a request, then reads the answer until EOF. Python sees a file,
// never a JavaScript object; the engine checks and performs the request.
const FS = py.FS;
const device = FS.makedev(64, 0);
const requestCap = () => Math.ceil(((job?.requestBytes ?? 0) * 4) / 3) + 1024 * 1024;
FS.registerDevice(device, {
  open(stream) {
    stream.host = { written: [], size: 0, answer: undefined, position: 0 };
  },
  close() {},
  write(stream, buffer, offset, length) {
    const state = stream.host;
    if (state.answer !== undefined || state.size + length > requestCap()) throw new FS.ErrnoError(27 /* EFBIG */);
    state.written.push(Buffer.from(buffer.buffer.slice(buffer.byteOffset + offset, buffer.byteOffset + offset + length)));
    state.size += length;
    return length;
  },
  read(stream, buffer, offset, length) {
    const state = stream.host;
    if (state.answer === undefined) {
      if (!job) throw new FS.ErrnoError(5 /* EIO */);
      send({ t: 'fetch', request: Buffer.concat(state.written).toString('utf8') });
      state.answer = receiveLine();
    }
    const n = Math.min(length, state.answer.length - state.position);
    buffer.set(state.answer.subarray(state.position, state.position + n), offset);
    state.position += n;
    return n;
  },
});
FS.mkdev('/dev/host', device);

const host = py.pyimport('_cfhost');
const check = host.check;
const run = host.run;

// Python's ways to JavaScript go before any tenant code: the js and pyodide_js modules, the
// finder that imports them, and the pyodide package built on them. The snapshot also recorded
// the environment of the process that made it.
py.runPython(`
import os, sys
os.environ.clear()
os.environ.update({"HOME": "/home/pyodide", "LANG": "C.UTF-8", "PATH": "/usr/local/bin:/usr/bin:/bin", "TZ": "UTC"})
for name in [n for n in list(sys.modules) if n.split(".")[0] in ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "_cfhost")]:
    del sys.modules[name]
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "JsFinder"]
# JavaScript values pyodide's own modules keep in their globals (the webloop's scheduleCallback,
# loadedPackages) outlive the modules' removal: dropped too.
def _scrub():
    import gc
    for holder in gc.get_objects():
        if type(holder) is dict:
            for key, value in list(holder.items()):
                if "JsProxy" in type(value).__name__ and not isinstance(value, type):
                    holder[key] = None
_scrub()
sys.path_importer_cache.clear()
# A speed bump, not the boundary (_imp.create_builtin bypasses finders): the modules that lead to
# JavaScript or to raw memory fail with a plain ImportError rather than a fatal error.
class _Refused:
    NAMES = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "ctypes", "_ctypes")
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.NAMES:
            raise ImportError("the module %s is not available to cloud functions" % name, name=name)
        return None
sys.meta_path.insert(0, _Refused())
sys.stdout.reconfigure(line_buffering=True)
sys.stderr.reconfigure(line_buffering=True)
del os, sys, name, _Refused, _scrub
`);
py.runPython('globals().clear()');
delete process.getBuiltinModule;

let input = '';
let ready = false;
let hurry = false;
const queued = [];
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
  for (let newline = input.indexOf('\n'); newline >= 0; newline = input.indexOf('\n')) {
    const line = input.slice(0, newline);
    input = input.slice(newline + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      // Not a job this child can do (the engine sent something broken): it ends, unused.
      process.exit(70);
    }
    if (message.t === 'hurry') hurry = true;
    else if (ready) handle(message);
    else queued.push(message);
  }
});
process.stdin.on('end', () => process.exit(0));

// Ready once settled: after loading, V8 keeps compiling pyodide's WebAssembly on background
// threads for a few hundred milliseconds, and a run sent meanwhile took 50-250 ms instead of ~10.
// A spare says ready when a 50 ms window passes with under 10 ms of CPU (all threads), or after
// 1.5 s; a child a run is already waiting for (argv, or told to hurry) does not wait.
const settleBy = settleArg === '1' ? Date.now() + 1500 : 0;
for (let last = process.cpuUsage(); Date.now() < settleBy && !hurry; ) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const now = process.cpuUsage();
  const usedMs = (now.user - last.user + now.system - last.system) / 1000;
  last = now;
  if (usedMs < 10) break;
}
ready = true;
send({ t: 'ready' });
for (const message of queued.splice(0)) handle(message);

function handle(message) {
  if (message.t === 'check') {
    send({ t: 'checked', result: JSON.parse(check(message.script)) });
    return;
  }
  if (message.t !== 'run' || job) return;
  job = message;
  logBudget = message.logBytes;
  let outcome;
  try {
    outcome = JSON.parse(run(message.script, message.params, message.outputBytes));
  } catch {
    // A pyodide fatal error (ctypes, os.system...) or a broken interpreter: this child is done.
    outcome = { status: 'fatal' };
  }
  for (const kind of ['out', 'err']) {
    const rest = streams[kind].decode();
    if (rest) send({ t: 'log', stream: kind, text: rest });
  }
  send({ t: 'result', outcome });
  process.exit(0);
}
