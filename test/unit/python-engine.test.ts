import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../functions/cloud-functions/contract.js';
import { OutboundFailed, OutboundRefused, type GuardedFetch, type OutboundInit, type OutboundOptions } from '../../functions/shared/outbound.js';
import { PYTHON_ASSETS, PYTHON_VERSION, startPythonEngine, type PythonEngine, type PythonRunRequest } from '../../functions/cloud-functions/python/engine.js';
import { failure, output } from '../support/run-result.js';

// One engine (and one snapshot) for the file: a run costs a fresh child (~0.5 s), a snapshot ~3 s.
let engine: PythonEngine;
let guarded: PythonEngine;
let snapshotDir: string;
const calls: { url: string; init: OutboundInit; opts: OutboundOptions }[] = [];
let answer: (url: string, init: OutboundInit) => Promise<{ status: number; statusText?: string; headers?: Record<string, string>; body?: string }>;

const fakeFetch: GuardedFetch = async (url, init, opts) => {
  calls.push({ url, init, opts });
  const response = await answer(url, init);
  return { status: response.status, statusText: response.statusText ?? 'OK', headers: response.headers ?? {}, body: Buffer.from(response.body ?? ''), url, redirected: false };
};

beforeAll(async () => {
  snapshotDir = mkdtempSync(path.join(tmpdir(), 'python-engine-test-'));
  engine = startPythonEngine({ snapshotDir, fetch: fakeFetch });
  await engine.warmUp();
  // The real guard, sharing the snapshot the first engine made.
  guarded = startPythonEngine({ snapshotDir, spare: 0 });
}, 90_000);

afterAll(async () => {
  await engine?.stop();
  await guarded?.stop();
  rmSync(snapshotDir, { recursive: true, force: true });
});

function run(script: string, extra: Partial<PythonRunRequest> = {}): Promise<RunResult> {
  return engine.run({ script, params: { secrets: {}, vars: {} }, ...extra });
}


describe('startPythonEngine', () => {
  it('names the Python it runs and the files a bundle must ship', () => {
    expect(PYTHON_VERSION).toMatch(/^3\.12\.\d+$/);
    expect(PYTHON_ASSETS).toEqual(expect.arrayContaining(['child.mjs', 'preload.mjs', 'snapshot.mjs', 'cfhost.py', 'cfresults.py', 'requests.py', 'pylibs.zip']));
  });

  it('needs only the files PYTHON_ASSETS names beside it (what a bundle ships)', async () => {
    const source = fileURLToPath(new URL('../../functions/cloud-functions/python/', import.meta.url));
    const bundle = mkdtempSync(path.join(tmpdir(), 'python-engine-assets-'));
    for (const asset of PYTHON_ASSETS) copyFileSync(path.join(source, asset), path.join(bundle, asset));
    const copy = startPythonEngine({ assetsDir: bundle, snapshotDir, spare: 0 });
    try {
      expect(output(await copy.run({ script: 'import requests, cfresults, jwt\nresults["ok"] = True', params: {} }))).toEqual({ ok: true });
    } finally {
      await copy.stop();
      rmSync(bundle, { recursive: true, force: true });
    }
    const empty = mkdtempSync(path.join(tmpdir(), 'python-engine-empty-'));
    expect(() => startPythonEngine({ assetsDir: empty })).toThrow(/child\.mjs is missing/);
    rmSync(empty, { recursive: true, force: true });
  });

  it('runs a top-level script with params and returns results, cfResults and metrics as the family writes them', async () => {
    const result = await run(
      `import json
from cfresults import Outcome, Result, OverallResult, OverallResultEncoder
idv = params["vars"]["idv"]
checks = params["vars"].get("_checks", {})
checks["phoneCheck"] = {"outcome": "PASS", "valid": True, "metaData": {"score": 0.9}}
results["executionVariables"] = {"idv": {**idv, "seen": True}, "_checks": checks}
results["cfResults"] = json.loads(OverallResultEncoder().encode(OverallResult(Outcome.APPROVE, {"phone": Result(Outcome.PASSED, {"score": 1})})))
results["metrics"] = {"counters": {"phone": Outcome.NOT_FOUND, "email": "approve"}}
results["pass"] = __name__ == "__main__" and params["secrets"]["apiKey"] == "k-1"
`,
      { params: { secrets: { apiKey: 'k-1' }, vars: { idv: { name: 'Ann' } } } },
    );
    expect(output(result)).toEqual({
      executionVariables: { idv: { name: 'Ann', seen: true }, _checks: { phoneCheck: { outcome: 'PASS', valid: true, metaData: { score: 0.9 } } } },
      cfResults: { outcome: 'APPROVE', results: { phone: { outcome: 'PASSED', details: { score: 1 } } } },
      metrics: { counters: { phone: 'not_found', email: 'approve' } },
      pass: true,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('turns datetimes, Decimal, sets, tuples, bytes and cfresults objects into JSON, and names the key path of anything else', async () => {
    const converted = await run(`import datetime, decimal
from cfresults import Outcome, Result
results["at"] = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)
results["day"] = datetime.date(2024, 5, 6)
results["time"] = datetime.time(7, 8)
results["amount"] = decimal.Decimal("10.50")
results["set"] = {3, 1, 2}
results["pair"] = (1, "a")
results["raw"] = b"\\x00\\xffhi"
results["check"] = Result("review", {"why": "x"})
results["numbers"] = {1: "one", 2.5: "two and a half", False: "no", None: "none"}
`);
    expect(output(converted)).toEqual({
      at: '2024-05-06T07:08:09+00:00',
      day: '2024-05-06',
      time: '07:08:00',
      amount: '10.50',
      set: [1, 2, 3],
      pair: [1, 'a'],
      raw: Buffer.from([0, 0xff, 0x68, 0x69]).toString('base64'),
      check: { outcome: 'REVIEW', details: { why: 'x' } },
      numbers: { '1': 'one', '2.5': 'two and a half', false: 'no', null: 'none' },
    });

    const unknown = failure(await run('class Thing: pass\nresults["a"] = {"b": [1, Thing()]}'));
    expect(unknown.name).toBe('FunctionOutputInvalid');
    expect(unknown.message).toContain('results.a.b[1] is of type Thing');

    const nan = failure(await run('results["x"] = float("nan")'));
    expect(nan).toMatchObject({ name: 'FunctionOutputInvalid', message: expect.stringContaining('results.x is nan') });
  });

  it('offers the standard library functions need and pure-Python cryptography (jwt HMAC, ecdsa, rsa, pyaes)', async () => {
    const result = await run(
      `import json, re, datetime, time, base64, hashlib, hmac, uuid, urllib.parse, decimal, random, secrets, zoneinfo
import jwt, ecdsa, rsa, pyaes
key = params["secrets"]["key"]
token = jwt.encode({"sub": "ann", "exp": 4102444800}, key, algorithm="HS256")
sk = ecdsa.SigningKey.generate(curve=ecdsa.NIST256p)
signature = sk.sign(b"message", hashfunc=hashlib.sha256)
ctr = pyaes.AESModeOfOperationCTR(b"k" * 32)
results["sha256"] = hashlib.sha256(b"abc").hexdigest()
results["hmac"] = hmac.new(key.encode(), b"m", hashlib.sha256).hexdigest() == hmac.new(key.encode(), b"m", "sha256").hexdigest()
results["jwt"] = jwt.decode(token, key, algorithms=["HS256"])
results["ecdsa"] = sk.get_verifying_key().verify(signature, b"message", hashfunc=hashlib.sha256)
results["aes"] = pyaes.AESModeOfOperationCTR(b"k" * 32).decrypt(ctr.encrypt(b"secret text")).decode()
results["rsa"] = rsa.PublicKey.__name__
try:
    zoneinfo.ZoneInfo("No/Where")
except zoneinfo.ZoneInfoNotFoundError:
    results["zones"] = ["Australia/Sydney" in zoneinfo.available_timezones(), "Europe/Dublin" in zoneinfo.available_timezones()]
results["misc"] = [bool(re.match(r"a+", "aa")), urllib.parse.quote("a b"), str(decimal.Decimal("1.1") * 2), uuid.uuid4().version, len(secrets.token_hex(4)), base64.b64encode(b"x").decode(), datetime.datetime(2024, 1, 1, tzinfo=zoneinfo.ZoneInfo("Australia/Sydney")).isoformat()]`,
      { params: { secrets: { key: 'an-hmac-key-of-some-length' }, vars: {} } },
    );
    expect(output(result)).toEqual({
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      hmac: true,
      jwt: { sub: 'ann', exp: 4102444800 },
      ecdsa: true,
      aes: 'secret text',
      rsa: 'PublicKey',
      zones: [true, true],
      misc: [true, 'a%20b', '2.2', 4, 8, 'eA==', '2024-01-01T00:00:00+11:00'],
    });
  });

  it('refuses results rebound to something that is not a dict, nested past 64 levels, or over outputBytes (and takes exactly outputBytes)', async () => {
    expect(failure(await run('results = [1, 2]'))).toMatchObject({ name: 'FunctionOutputInvalid', message: expect.stringContaining('type list') });
    expect(failure(await run('x = results\nfor _ in range(70):\n    x["n"] = {}\n    x = x["n"]'))).toMatchObject({
      name: 'FunctionOutputInvalid',
      message: expect.stringContaining('deeper than 64'),
    });
    // {"a":"xx…"} is 8 bytes besides the value.
    expect(output(await run('results["a"] = "x" * 92', { limits: { outputBytes: 100 } }))).toEqual({ a: 'x'.repeat(92) });
    expect(failure(await run('results["a"] = "x" * 93', { limits: { outputBytes: 100 } }))).toEqual({
      name: 'FunctionOutputInvalid',
      message: 'results are over 100 bytes of JSON',
    });
  });

  it('logs stdout as info lines and stderr as error lines, masks secrets (also URL-encoded), and cuts at logBytes', async () => {
    const secret = 'p@ss word/with+signs';
    const result = await run(
      `import sys, urllib.parse
print("first\\nsecond")
print("to stderr", file=sys.stderr)
print("key", params["secrets"]["key"], urllib.parse.quote(params["secrets"]["key"]), urllib.parse.quote_plus(params["secrets"]["key"]))
print("short", params["secrets"]["pin"])
sys.stdout.write("no newline at the end")`,
      { params: { secrets: { key: secret, pin: '1234' }, vars: {} } },
    );
    expect(output(result)).toEqual({});
    expect(result.logs.map(({ level, message }) => [level, message])).toEqual([
      ['info', 'first'],
      ['info', 'second'],
      ['error', 'to stderr'],
      ['info', 'key [secret] [secret] [secret]'],
      ['info', 'short 1234'],
      ['info', 'no newline at the end'],
    ]);
    expect(result.logsTruncated).toBe(false);
    expect(Date.parse(result.logs[0]!.at)).not.toBeNaN();

    // Each line costs its bytes and 64: "hello" fits exactly in 69, a second line does not.
    const exact = await run('print("hello")', { limits: { logBytes: 69 } });
    expect(exact.logs.map((l) => l.message)).toEqual(['hello']);
    expect(exact.logsTruncated).toBe(false);
    const over = await run('print("hello")\nprint("world")', { limits: { logBytes: 69 } });
    expect(over.logs.map((l) => l.message)).toEqual(['hello']);
    expect(over.logsTruncated).toBe(true);

    const flood = await run('for i in range(20000):\n    print("y" * 100)\nresults["done"] = True', { limits: { logBytes: 4096 } });
    expect(output(flood)).toEqual({ done: true });
    expect(flood.logsTruncated).toBe(true);
    expect(flood.logs.reduce((n, l) => n + Buffer.byteLength(l.message) + 64, 0)).toBeLessThanOrEqual(4096);
  });

  it('fails with <Type>: <message> (line N), the traceback as error lines, secrets masked, the message capped', async () => {
    const result = await run('def check(v):\n    raise ValueError("bad value " + v)\n\ncheck(params["secrets"]["token"])', {
      params: { secrets: { token: 'tok-0123456789' }, vars: {} },
    });
    expect(failure(result)).toEqual({ name: 'FunctionError', message: 'ValueError: bad value [secret] (line 2)' });
    const traceback = result.logs.filter((l) => l.level === 'error').map((l) => l.message);
    expect(traceback[0]).toBe('Traceback (most recent call last):');
    expect(traceback).toContain('  File "function.py", line 4, in <module>');
    expect(traceback).toContain('    raise ValueError("bad value " + v)');
    expect(traceback.at(-1)).toBe('ValueError: bad value [secret]');
    expect(traceback.join('\n')).not.toContain('_cfhost');

    expect(failure(await run('x = {}\nx["missing"]'))).toEqual({ name: 'FunctionError', message: "KeyError: 'missing' (line 2)" });
    expect(failure(await run('name = input()'))).toEqual({ name: 'FunctionError', message: 'EOFError: EOF when reading a line (line 1)' });
    expect(failure(await run('import sys\nsys.exit(3)'))).toEqual({ name: 'FunctionError', message: 'SystemExit: 3 (line 2)' });
    const long = failure(await run('raise RuntimeError("z" * 5000)'));
    expect(long.name).toBe('FunctionError');
    expect(long.message.length).toBeLessThanOrEqual(1000);
    expect(long.message.startsWith('RuntimeError: zzz')).toBe(true);
  });

  it('refuses a script that does not compile as FunctionInvalid, and one over 64 KiB', async () => {
    expect(failure(await run('x = 1\nif x == 1\n    y = 2'))).toEqual({
      name: 'FunctionInvalid',
      message: "the function does not compile: SyntaxError: expected ':' (line 2, column 10)",
    });
    expect(failure(await run(`x = "${'a'.repeat(70_000)}"`))).toMatchObject({ name: 'FunctionInvalid', message: 'the script is over 65536 bytes' });
  });

  it('stops a run past timeoutMs and one past memoryBytes, and lets runs inside them finish', async () => {
    expect(output(await run('import time\ntime.sleep(0.2)\nresults["slept"] = True', { limits: { timeoutMs: 3000 } }))).toEqual({ slept: true });
    await engine.warmUp();
    const started = Date.now();
    expect(failure(await run('import time\ntime.sleep(10)', { limits: { timeoutMs: 800 } }))).toEqual({
      name: 'FunctionTimeout',
      message: 'the function ran past its time limit of 800 ms',
    });
    expect(Date.now() - started).toBeLessThan(5000);

    expect(output(await run('b = bytearray(16 * 1024 * 1024)\nresults["n"] = len(b)', { limits: { memoryBytes: 64 * 1024 * 1024 } }))).toEqual({ n: 16 * 1024 * 1024 });
    expect(failure(await run('chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))', { limits: { memoryBytes: 32 * 1024 * 1024, timeoutMs: 20_000 } }))).toEqual({
      name: 'FunctionMemoryExceeded',
      message: 'the function used more than its memory limit of 33554432 bytes',
    });
  });
});

describe('PythonEngine.run at once', () => {
  it('runs several functions at the same time, each in its own child', async () => {
    const results = await Promise.all(
      [1, 2, 3].map((n) => run('import os\nresults["n"] = params["vars"]["n"] * 2\nresults["pid"] = os.getpid()', { params: { secrets: {}, vars: { n } } })),
    );
    expect(results.map((r) => output(r).n)).toEqual([2, 4, 6]);
  });

  it('answers a check sent while a run takes the spare it was sent to', async () => {
    await engine.warmUp();
    const [checked, ran] = await Promise.all([engine.check('x = (1,'), run('results["a"] = 1')]);
    expect(checked).toEqual({ ok: false, line: 1, column: 5, message: "'(' was never closed" });
    expect(output(ran)).toEqual({ a: 1 });
  });
});

describe('requests in a Python function', () => {
  it('sends get/post/put/patch/delete/head with params, json, form data, text, bytes, headers, auth and timeout through the fetch', async () => {
    calls.length = 0;
    answer = async (url, init) => ({
      status: 200,
      statusText: 'OK',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-trace': 'abc' },
      body: JSON.stringify({ url, method: init.method }),
    });
    const result = await run(
      `import requests
r = requests.get("https://api.example.test/a?x=1", params={"q": "a b", "list": [1, 2]}, headers={"X-Key": "k"}, timeout=3)
results["get"] = [r.status_code, r.ok, r.reason, r.json()["method"], r.headers["X-TRACE"], r.headers.get("content-type"), r.url]
requests.post("https://api.example.test/j", json={"a": 1}, timeout=(1, 2))
requests.post("https://api.example.test/f", data={"name": "Ann", "tags": ["x", "y"]})
requests.put("https://api.example.test/t", data="plain text")
requests.patch("https://api.example.test/b", data=b"\\x00\\x01")
from requests.auth import HTTPBasicAuth
requests.delete("https://api.example.test/d", auth=HTTPBasicAuth("user", "pw"))
results["head"] = requests.head("https://api.example.test/h").status_code
results["text"] = requests.request("get", "https://api.example.test/r").text
`,
      { limits: { fetchTimeoutMs: 5000, timeoutMs: 20_000 } },
    );
    expect(output(result)).toEqual({
      get: [200, true, 'OK', 'GET', 'abc', 'application/json; charset=utf-8', 'https://api.example.test/a?x=1&q=a+b&list=1&list=2'],
      head: 200,
      text: JSON.stringify({ url: 'https://api.example.test/r', method: 'GET' }),
    });
    const [get, json, form, text, bytes, del, head] = calls;
    expect(get!.init).toMatchObject({ method: 'GET', headers: { 'X-Key': 'k' }, redirect: 'follow' });
    expect(get!.init.body).toBeUndefined();
    expect(get!.opts.timeoutMs).toBe(3000);
    expect(get!.opts).toMatchObject({ maxResponseBytes: 5 * 1024 * 1024, maxRequestBytes: 5 * 1024 * 1024, allowedOrigins: [], refusedEndpoints: [] });
    expect(json!.opts.timeoutMs).toBe(3000);
    expect(json!.init.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(Buffer.from(json!.init.body as Uint8Array).toString()).toBe('{"a": 1}');
    expect(form!.init.headers).toEqual({ 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(Buffer.from(form!.init.body as Uint8Array).toString()).toBe('name=Ann&tags=x&tags=y');
    expect(text!.init).toMatchObject({ method: 'PUT' });
    expect(Buffer.from(text!.init.body as Uint8Array).toString()).toBe('plain text');
    expect([...Buffer.from(bytes!.init.body as Uint8Array)]).toEqual([0, 1]);
    expect(del!.init).toMatchObject({ method: 'DELETE', headers: { Authorization: `Basic ${Buffer.from('user:pw').toString('base64')}` } });
    expect(head!.init).toMatchObject({ method: 'HEAD', redirect: 'manual' });
    // No timeout= asked: the fetch limit, bounded by the run's remaining time.
    expect(head!.opts.timeoutMs).toBeLessThanOrEqual(5000);
    expect(head!.opts.timeoutMs).toBeGreaterThan(4000);
  });

  it('raises HTTPError from raise_for_status, ConnectionError for a refusal or failure, Timeout for a timeout, and counts the fetches limit', async () => {
    calls.length = 0;
    answer = async (url) => {
      if (url.endsWith('/missing')) return { status: 404, statusText: 'Not Found', body: 'nope' };
      if (url.endsWith('/refused')) throw new OutboundRefused('loopback', url);
      if (url.endsWith('/slow')) throw new OutboundFailed('timeout', `${url} failed: timed out`);
      if (url.endsWith('/down')) throw new OutboundFailed('network', `${url} failed: ECONNRESET`);
      return { status: 200, body: '{}' };
    };
    const result = await run(
      `import requests
from requests.exceptions import HTTPError
out = {}
r = requests.get("https://api.example.test/missing")
try:
    r.raise_for_status()
except HTTPError as e:
    out["http"] = [str(e), e.response.status_code, e.response.text, r.ok]
try:
    r.json()
except ValueError as e:
    out["json"] = [type(e).__name__, isinstance(e, requests.RequestException)]
for name in ["refused", "slow", "down"]:
    try:
        requests.get("https://api.example.test/" + name)
    except requests.Timeout as e:
        out[name] = ["Timeout", str(e)]
    except requests.exceptions.ConnectionError as e:
        out[name] = ["ConnectionError", str(e), isinstance(e, requests.RequestException)]
with requests.Session() as s:
    s.headers.update({"Authorization": "Bearer t"})
    out["session"] = s.get("https://api.example.test/s", headers={"X-Extra": "1"}).status_code
results.update(out)
`,
      { limits: { fetches: 5 } },
    );
    expect(output(result)).toEqual({
      http: ['404 Client Error: Not Found for url: https://api.example.test/missing', 404, 'nope', false],
      json: ['JSONDecodeError', true],
      refused: ['ConnectionError', 'https://api.example.test/refused refused: the host is a loopback address', true],
      slow: ['Timeout', 'https://api.example.test/slow failed: timed out'],
      down: ['ConnectionError', 'https://api.example.test/down failed: ECONNRESET', true],
      session: 200,
    });
    expect(calls.map((c) => c.url.split('/').pop())).toEqual(['missing', 'refused', 'slow', 'down', 's']);
    expect(calls.at(-1)!.init.headers).toEqual({ Authorization: 'Bearer t', 'X-Extra': '1' });

    const limited = await run(
      `import requests
errors = []
for i in range(3):
    try:
        requests.get("https://api.example.test/x%d" % i)
    except requests.ConnectionError as e:
        errors.append(str(e))
results["errors"] = errors`,
      { limits: { fetches: 2 } },
    );
    expect(output(limited)).toEqual({ errors: ['requests: this function may make at most 2 requests a run'] });
  });

  it('is refused by the real guard for http://, the metadata address and loopback by every spelling', async () => {
    const urls = [
      'http://api.example.com/',
      'https://169.254.169.254/latest/meta-data/',
      'https://127.0.0.1/',
      'https://0x7f000001/',
      'https://2130706433/',
      'https://0177.0.0.1/',
      'https://127.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://localhost/',
      'https://LocalHost:9001/',
    ];
    const result = await guarded.run({
      script: `import requests
out = []
for url in params["vars"]["urls"]:
    try:
        requests.get(url, timeout=2)
        out.append("reached " + url)
    except requests.ConnectionError as e:
        out.append(str(e))
results["out"] = out`,
      params: { secrets: {}, vars: { urls } },
      limits: { timeoutMs: 20_000 },
    });
    const out = output(result).out as string[];
    expect(out[0]).toBe('http://api.example.com/ refused: only https:// URLs are allowed');
    expect(out[1]).toBe('https://169.254.169.254/latest/meta-data/ refused: the host is a cloud metadata address');
    for (const message of out.slice(2)) expect(message).toMatch(/refused: the host is a loopback address$/);
    expect(out).toHaveLength(urls.length);
  });
});

describe('requests through the real guard with the local runtime allowances', () => {
  it('reaches an allowed origin over plain HTTP, and is refused one of the runtime own endpoints on it', async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'X-Echo': req.headers['x-key'] ?? '' });
      res.end(JSON.stringify({ method: req.method, path: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const script = `import requests
try:
    r = requests.post(params["vars"]["url"], json={"a": 1}, headers={"X-Key": "k"}, timeout=5)
    results["r"] = [r.status_code, r.json(), r.headers["x-echo"]]
except requests.ConnectionError as e:
    results["r"] = str(e)`;
      const params = { secrets: {}, vars: { url: `${origin}/check?x=1` } };
      const allowed = await guarded.run({ script, params, allowedOrigins: [origin] });
      expect(output(allowed)).toEqual({ r: [201, { method: 'POST', path: '/check?x=1' }, 'k'] });
      const refused = await guarded.run({ script, params, allowedOrigins: [origin], refusedEndpoints: [origin] });
      expect(output(refused)).toEqual({ r: `${origin}/check?x=1 refused: the host is one of the local runtime's own services` });
    } finally {
      server.close();
    }
  });
});

describe('PythonEngine.check', () => {
  it('compiles without running and answers line, column and message', async () => {
    expect(await engine.check('import os\nos.system("touch /tmp/never")\nresults["a"] = 1')).toEqual({ ok: true });
    expect(await engine.check('x = 1\nif x == 1\n    results["a"] = 2')).toEqual({ ok: false, line: 2, column: 10, message: "expected ':'" });
    expect(await engine.check('print("a"\nx=)')).toEqual({ ok: false, line: 1, column: 7, message: 'invalid syntax. Perhaps you forgot a comma?' });
    expect(await engine.check('if True:\nprint(1)')).toEqual({ ok: false, line: 2, column: 1, message: "expected an indented block after 'if' statement on line 1" });
    expect(await engine.check('if True:\n        a = 1\n\tb = 2')).toMatchObject({ ok: false, line: 3, message: expect.stringMatching(/inconsistent use of tabs|unindent/) });
    expect(await engine.check('x = 1\ny = "a\0b"')).toMatchObject({ ok: false, line: 2, message: expect.stringContaining('null bytes') });
    expect(await engine.check('a'.repeat(70_000))).toEqual({ ok: false, line: 1, column: 1, message: 'the script is over 65536 bytes' });
  });
});

describe('PythonEngine.stop', () => {
  it('kills the children and refuses later calls', async () => {
    const local = startPythonEngine({ snapshotDir, spare: 1 });
    await local.warmUp();
    const running = local.run({ script: 'while True:\n    pass', params: {}, limits: { timeoutMs: 20_000 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await local.stop();
    await expect(running).rejects.toThrow('the Python engine was stopped during the run');
    await expect(local.run({ script: 'results["a"] = 1', params: {} })).rejects.toThrow(/stopped/);
    await expect(local.check('x = 1')).rejects.toThrow(/stopped/);
    await expect(local.warmUp()).rejects.toThrow(/stopped/);
  });
});
