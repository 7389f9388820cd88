import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../functions/cloud-functions/contract.js';
import { startPythonEngine, type PythonEngine } from '../../functions/cloud-functions/python/engine.js';

// Each attempt runs as a tenant's function would, in the engine's fresh child, and must be
// contained: the attempt fails inside Python (or the run fails), and nothing outside changed.
let engine: PythonEngine;
let snapshotDir: string;
let scratch: string;
const pyodideDir = realpathSync(path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json')));

beforeAll(async () => {
  // Something the host's environment holds that a function must never see.
  process.env.ARTHR_ESCAPE_CANARY = 'canary-in-the-host-environment';
  snapshotDir = mkdtempSync(path.join(tmpdir(), 'python-escapes-test-'));
  scratch = mkdtempSync(path.join(tmpdir(), 'python-escapes-scratch-'));
  engine = startPythonEngine({ snapshotDir });
  await engine.warmUp();
}, 90_000);

afterAll(async () => {
  await engine?.stop();
  delete process.env.ARTHR_ESCAPE_CANARY;
  rmSync(snapshotDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

function run(script: string, timeoutMs = 10_000): Promise<RunResult> {
  return engine.run({ script, params: { secrets: {}, vars: { scratch } }, limits: { timeoutMs } });
}

function output(result: RunResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected success, got ${result.error.name}: ${result.error.message}`);
  return result.output;
}

/** Runs `attempt` (a Python expression) for each name and records what it raised. */
const ATTEMPTS = `
def attempt(fn):
    try:
        return "reached: " + repr(fn())[:200]
    except BaseException as e:
        return type(e).__name__ + ": " + str(e)[:200]
`;

describe("the run child's JavaScript realm (preload.mjs), should Python ever reach it", () => {
  it('has no network, no signals to other processes, no inspector and no native bindings', () => {
    const preload = fileURLToPath(new URL('../../functions/cloud-functions/python/preload.mjs', import.meta.url));
    const probe = `
      const net = await import('node:net'), tls = await import('node:tls'), dgram = await import('node:dgram'), dns = await import('node:dns'), http = await import('node:http'), inspector = await import('node:inspector');
      const attempts = {
        net: () => net.connect(9, '127.0.0.1'), socket: () => new net.Socket().connect(9, '127.0.0.1'), tls: () => tls.connect(443, '127.0.0.1'),
        udp: () => dgram.createSocket('udp4'), dns: () => dns.lookup('localhost', () => {}), dnsPromises: () => dns.promises.resolve4('localhost'),
        http: () => http.request('http://127.0.0.1:9/'), listen: () => net.createServer().listen(0), kill: () => process.kill(process.ppid, 0),
        debugProcess: () => process._debugProcess(process.ppid), inspector: () => inspector.open(0), binding: () => process.binding('fs'),
        fetch: () => fetch('http://127.0.0.1:9/'),
      };
      const out = {};
      for (const [name, attempt] of Object.entries(attempts)) { try { attempt(); out[name] = 'reached'; } catch (e) { out[name] = String(e.message); } }
      out.constants = typeof process.binding('constants').fs.O_RDONLY;
      console.log(JSON.stringify(out));`;
    const result = spawnSync(process.execPath, ['--no-warnings', '--import', preload, '--input-type=module', '-e', probe], { env: {}, encoding: 'utf8', timeout: 20_000 });
    const out = JSON.parse(result.stdout) as Record<string, string>;
    expect(out.constants).toBe('number');
    delete out.constants;
    for (const [name, outcome] of Object.entries(out)) expect(outcome, name).toMatch(/not available to cloud functions|fetch is not defined/);
  });
});

describe('a Python function trying to escape', () => {
  it('sees no host environment: os.environ is four fixed keys', async () => {
    const env = output(await run('import os\nresults["env"] = dict(os.environ)\nresults["getenv"] = os.getenv("ARTHR_ESCAPE_CANARY")')) as {
      env: Record<string, string>;
      getenv: unknown;
    };
    expect(env.env).toEqual({ HOME: '/home/pyodide', LANG: 'C.UTF-8', PATH: '/usr/local/bin:/usr/bin:/bin', TZ: 'UTC' });
    expect(env.getenv).toBeNull();
    expect(JSON.stringify(env)).not.toContain('canary');
  });

  it('reads no host file: /etc/passwd, /proc/self/environ, the host node_modules are not there', async () => {
    const result = output(
      await run(`${ATTEMPTS}
import os
def read(p):
    with open(p, "rb") as f:
        return f.read(200)
results["files"] = {p: attempt(lambda p=p: read(p)) for p in ["/etc/passwd", "/proc/self/environ", "/proc/self/status", params["vars"]["pyodide"] + "/package.json", "/work", "/var/task/index.mjs"]}
results["root"] = sorted(os.listdir("/"))
results["proc"] = sorted(os.listdir("/proc/self"))
`.replace('params["vars"]["pyodide"]', JSON.stringify(pyodideDir))),
    ) as { files: Record<string, string>; root: string[]; proc: string[] };
    for (const outcome of Object.values(result.files)) expect(outcome).toMatch(/^(FileNotFoundError|IsADirectoryError|PermissionError)/);
    expect(result.root).toEqual(['dev', 'home', 'lib', 'proc', 'tmp']);
    expect(result.proc).toEqual(['fd']);
  });

  it('cannot use ctypes: the import is refused, and the builtin reached anyway stops the interpreter', async () => {
    const refused = output(await run(`${ATTEMPTS}\nresults["ctypes"] = attempt(lambda: __import__("ctypes"))`));
    expect(refused.ctypes).toBe('ImportError: the module ctypes is not available to cloud functions');

    const marker = path.join(scratch, 'ctypes-ran');
    const forced = await run(`import _imp, importlib.machinery, sys
sys.meta_path.pop(0)
sys.modules.pop("ctypes", None)
import ctypes
ctypes.CDLL(None).emscripten_run_script_int(b"require('fs').writeFileSync('${marker}', 'x'), 1")`);
    expect(forced.ok).toBe(false);
    if (!forced.ok) expect(forced.error).toEqual({ name: 'FunctionError', message: expect.stringContaining('stopped the Python interpreter') });
    expect(existsSync(marker)).toBe(false);
  });

  it('runs no host command: os.system stops the interpreter, subprocess, popen, fork and exec fail', async () => {
    const marker = path.join(scratch, 'system-ran');
    const system = await run(`import os\nos.system("touch ${marker}")`);
    expect(system.ok).toBe(false);
    if (!system.ok) expect(system.error.message).toContain('stopped the Python interpreter');
    expect(existsSync(marker)).toBe(false);

    const others = output(
      await run(`${ATTEMPTS}
import os, subprocess, multiprocessing
results["r"] = {
    "subprocess": attempt(lambda: subprocess.run(["touch", "${marker}"])),
    "popen": attempt(lambda: os.popen("id").read()),
    "fork": attempt(lambda: os.fork()),
    "execv": attempt(lambda: os.execv("/bin/sh", ["sh", "-c", "touch ${marker}"])),
    "spawn": attempt(lambda: os.posix_spawn("/bin/sh", ["sh"], {})),
    "pool": attempt(lambda: multiprocessing.Pool(2)),
}`),
    ).r as Record<string, string>;
    for (const [name, outcome] of Object.entries(others)) expect(outcome, name).toMatch(/^(OSError|AttributeError|ModuleNotFoundError|ImportError|NotImplementedError)/);
    expect(existsSync(marker)).toBe(false);
  });

  it('survives a fork bomb: every fork fails at once', async () => {
    const result = output(await run('import os\ncount = 0\nwhile True:\n    try:\n        os.fork()\n    except OSError as e:\n        results["error"] = str(e)\n        break'));
    expect(result.error).toBe('[Errno 52] Function not implemented');
  });

  it('cannot import js, pyodide_js or pyodide internals, nor rebuild them by sys.modules or finder tricks', async () => {
    const result = output(
      await run(`${ATTEMPTS}
import sys, gc
r = {name: attempt(lambda name=name: __import__(name)) for name in ["js", "pyodide_js", "pyodide", "pyodide.code", "pyodide.ffi", "_pyodide", "_pyodide_core"]}
r["in_sys_modules"] = sorted(n for n in sys.modules if n.split(".")[0] in ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core"))
r["proxies_in_sys_modules"] = sorted(n for n, m in list(sys.modules.items()) if "JsProxy" in type(m).__name__)
# Drop the refusing finder, then try again: the JavaScript modules are gone with their finder.
sys.meta_path.pop(0)
r["js_again"] = attempt(lambda: __import__("js"))
r["pyodide_js_again"] = attempt(lambda: __import__("pyodide_js"))
r["run_js"] = attempt(lambda: __import__("pyodide.code", fromlist=["run_js"]).run_js("process.env"))
# JavaScript values left in any dict the collector knows (module globals included).
r["live_proxies"] = sorted({str(k) for o in gc.get_objects() if type(o) is dict for k, v in list(o.items()) if "JsProxy" in type(v).__name__ and not isinstance(v, type)})
finders = [o for o in gc.get_objects() if type(o).__name__ == "JsFinder"]
r["finders"] = len(finders)
if finders:
    sys.meta_path.append(finders[0])
    r["js_with_old_finder"] = attempt(lambda: __import__("js"))
    r["finder_modules"] = repr(getattr(finders[0], "jsproxies", None))
results["r"] = r`),
    ).r as Record<string, unknown>;
    for (const name of ['js', 'pyodide_js', 'pyodide', 'pyodide.code', 'pyodide.ffi', '_pyodide', '_pyodide_core']) {
      expect(result[name], name).toMatch(/^ImportError: the module .* is not available to cloud functions/);
    }
    expect(result.in_sys_modules).toEqual([]);
    expect(result.proxies_in_sys_modules).toEqual([]);
    expect(result.live_proxies).toEqual([]);
    expect(result.js_again).toMatch(/^ModuleNotFoundError: No module named 'js'/);
    expect(result.pyodide_js_again).toMatch(/^ModuleNotFoundError: No module named 'pyodide_js'/);
    expect(result.run_js).toMatch(/No module named 'js'/);
    // The finder survives only as an empty one: nothing registered in it.
    if (result.finders) {
      expect(result.js_with_old_finder).toMatch(/^ModuleNotFoundError/);
      expect(result.finder_modules).toBe('{}');
    }
  });

  it('finds no way out by walking object.__subclasses__(); JavaScript objects built by hand cannot generate code', async () => {
    const result = output(
      await run(`${ATTEMPTS}
import _imp, importlib.machinery
subs = {c.__name__ for c in object.__subclasses__()}
def walk(cls, seen):
    try:
        subs = cls.__subclasses__()
    except TypeError:  # type.__subclasses__ is unbound
        subs = []
    for sub in subs:
        if sub not in seen:
            seen.add(sub)
            walk(sub, seen)
    return seen
everything = walk(object, set())
r = {"classes": len(everything)}
r["js_named"] = sorted({c.__name__ for c in everything if c.__name__.startswith("Js")})
js_proxy = next((c for c in everything if c.__name__ == "JsProxy"), None)
r["new_jsproxy"] = attempt(lambda: js_proxy())
# The builtin module rebuilt directly, past every finder: JavaScript values, but no code generation.
core = _imp.create_builtin(importlib.machinery.ModuleSpec("_pyodide_core", importlib.machinery.BuiltinImporter))
obj = core.to_js({"a": 1})
r["function_ctor"] = attempt(lambda: obj.constructor.constructor("return process")())
r["globalThis"] = attempt(lambda: obj.constructor.constructor("return globalThis")())
results["r"] = r`),
    ).r as Record<string, unknown>;
    expect(result.classes).toBeGreaterThan(100);
    expect(result.new_jsproxy).toMatch(/^TypeError/);
    expect(result.function_ctor).toMatch(/EvalError: Code generation from strings disallowed/);
    expect(result.globalThis).toMatch(/EvalError: Code generation from strings disallowed/);
  });

  it('opens no socket: loopback and the metadata address are unreachable and nothing connects', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const result = output(
        await run(`${ATTEMPTS}
import socket, urllib.request, http.client
results["r"] = {
    "tcp": attempt(lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=2)),
    "tcp_localhost": attempt(lambda: socket.create_connection(("localhost", ${port}), timeout=2)),
    "udp": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", ${port}))),
    "metadata": attempt(lambda: urllib.request.urlopen("http://169.254.169.254/latest/meta-data/", timeout=2).read()),
    "lambda_api": attempt(lambda: http.client.HTTPConnection("127.0.0.1", 9001, timeout=2).request("GET", "/")),
}`),
      ).r as Record<string, string>;
      for (const [name, outcome] of Object.entries(result)) expect(outcome, name).not.toMatch(/^reached/);
      expect(result.tcp).toMatch(/Host is unreachable|OSError/);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('is stopped in an infinite loop, also one that catches BaseException', async () => {
    const plain = await run('while True:\n    pass', 1000);
    expect(plain.ok ? undefined : plain.error.name).toBe('FunctionTimeout');
    // Timed from a ready spare: durationMs counts waiting for a child too, long on a loaded machine.
    await engine.warmUp();
    const stubborn = await run('while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass', 1000);
    expect(stubborn.ok ? undefined : stubborn.error.name).toBe('FunctionTimeout');
    expect(stubborn.durationMs).toBeLessThan(4000);
  });

  it('is stopped by a memory bomb, and an impossible allocation is an ordinary error', async () => {
    const bomb = await run('x = []\nwhile True:\n    x.append(bytearray(10 ** 7))', 20_000);
    expect(bomb.ok ? undefined : bomb.error.name).toBe('FunctionMemoryExceeded');
    const huge = await run('x = "a" * 10 ** 10');
    expect(huge.ok ? undefined : huge.error).toMatchObject({ name: 'FunctionError', message: expect.stringMatching(/^(OverflowError|MemoryError)/) });
  });

  it('cannot flood: huge results fail, endless printing is cut', async () => {
    const big = await run('results["x"] = "a" * (10 * 1024 * 1024)');
    expect(big.ok ? undefined : big.error.name).toBe('FunctionOutputInvalid');
    const printing = await run('while True:\n    print("y" * 1000)', 3000);
    expect(printing.ok ? undefined : printing.error.name).toBe('FunctionTimeout');
    expect(printing.logsTruncated).toBe(true);
    expect(printing.logs.reduce((n, l) => n + Buffer.byteLength(l.message) + 64, 0)).toBeLessThanOrEqual(64 * 1024);
  });

  it('leaves nothing for the next run: modules, builtins, stdlib patches, files and environment start clean', async () => {
    const first = output(
      await run(`import builtins, json, os, sys, types
evil = types.ModuleType("evil"); evil.secret = "tenant-a"
sys.modules["evil"] = evil
builtins.len = lambda x: 999
json.dumps = lambda *a, **k: "HIJACKED"
os.environ["TENANT"] = "A"
with open("/tmp/tenant-a.txt", "w") as f:
    f.write("tenant A data")
builtins.leaked_global = "A"
results["wrote"] = True`),
    );
    // json.dumps was patched in that run, yet its output is intact: results are written by the engine's own reference.
    expect(first).toEqual({ wrote: true });
    const second = output(
      await run(`${ATTEMPTS}
import builtins, json, os, sys
results["r"] = {
    "evil": "evil" in sys.modules,
    "len": len([1, 2]),
    "dumps": json.dumps({"a": 1}),
    "env": os.environ.get("TENANT"),
    "file": attempt(lambda: open("/tmp/tenant-a.txt").read()),
    "global": hasattr(builtins, "leaked_global"),
}`),
    );
    expect(second.r).toEqual({ evil: false, len: 2, dumps: '{"a": 1}', env: null, file: expect.stringMatching(/^FileNotFoundError/), global: false });
  });
});
