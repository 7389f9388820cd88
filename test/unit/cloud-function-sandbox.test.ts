import { rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../support/self-signed.js';
import type { RunLimits, RunRequest, RunResult } from '../../functions/cloud-functions/contract.js';
import { guardedFetch } from '../../functions/shared/outbound.js';
import { runFunction, type GuardedFetch } from '../../functions/cloud-functions/sandbox.js';
import { failure, output } from '../support/run-result.js';

function request(source: string, extra: Partial<RunRequest> & { limits?: Partial<RunLimits> } = {}): RunRequest {
  return { modules: { 'index.js': source }, entry: 'index.js', input: { variables: {}, secrets: {} }, ...extra };
}

async function run(source: string, extra: Partial<RunRequest> = {}, deps: { fetch?: GuardedFetch } = {}): Promise<RunResult> {
  return runFunction(request(source, extra), deps);
}


describe('runFunction', () => {
  it('calls the handler with variables and secrets and returns its variables, across the function\'s own modules', async () => {
    const result = await runFunction({
      modules: {
        'index.js': `
          import { greet } from './lib/greet.js';
          import shout from '/lib/shout.js';
          export async function handler({ variables, secrets }) {
            return { greeting: shout(greet(variables.firstName)), keyLength: secrets.apiKey.length, nested: { list: [1, 'two', null] } };
          }`,
        'lib/greet.js': `import { PREFIX } from '../consts.js'; export const greet = (name) => PREFIX + name;`,
        'lib/shout.js': `export default (s) => s.toUpperCase();`,
        'consts.js': `export const PREFIX = 'hello ';`,
      },
      entry: 'index.js',
      input: { variables: { firstName: 'Ann' }, secrets: { apiKey: 'k-123' } },
    });
    expect(output(result)).toEqual({ greeting: 'HELLO ANN', keyLength: 5, nested: { list: [1, 'two', null] } });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('calls a default export, and a handler that returns nothing sets no variables', async () => {
    expect(output(await run(`export default function ({ variables }) { return { n: variables.n + 1 } }`, { input: { variables: { n: 1 }, secrets: {} } }))).toEqual({ n: 2 });
    expect(output(await run(`export async function handler() {}`))).toEqual({});
  });

  it('captures console lines with their levels, objects as JSON, and redacts the run\'s secrets', async () => {
    const result = await run(
      `export function handler({ secrets }) {
        console.log('plain', 1, true, null, undefined);
        console.info({ a: [1, 2] });
        console.warn('careful');
        console.error(new TypeError('bad'));
        console.debug('token is ' + secrets.token);
        return {};
      }`,
      { input: { variables: {}, secrets: { token: 'tok-0123456789' } } },
    );
    expect(result.logs.map((l) => [l.level, l.message.split('\n')[0]])).toEqual([
      ['info', 'plain 1 true null undefined'],
      ['info', '{"a":[1,2]}'],
      ['warn', 'careful'],
      ['error', 'TypeError: bad'],
      ['debug', 'token is [secret]'],
    ]);
    expect(new Date(result.logs[0]!.at).toISOString()).toBe(result.logs[0]!.at);
    expect(result.logsTruncated).toBe(false);
  });

  it('masks a secret also URL-encoded, as a query string shows it', async () => {
    const result = await run(
      `export function handler({ secrets }) { console.log('url ' + encodeURIComponent(secrets.token)); throw new Error('refused ?k=' + encodeURIComponent(secrets.token)); }`,
      { input: { variables: {}, secrets: { token: 'tok en/0123456789' } } },
    );
    expect(result.logs[0]!.message).toBe('url [secret]');
    expect(result).toMatchObject({ ok: false, error: { message: 'refused ?k=[secret]' } });
  });

  it('gives atob/btoa, TextEncoder/TextDecoder, URL/URLSearchParams, setTimeout and queueMicrotask', async () => {
    const result = await run(`export async function handler() {
      const bytes = new TextEncoder().encode('héllo 😀');
      const params = new URLSearchParams({ q: 'a b&c', n: '1' });
      params.append('n', '2');
      const url = new URL('../api?x=1#frag', 'https://example.com/v1/items/');
      url.searchParams.set('y', 'é');
      const order = [];
      setTimeout(() => order.push('timeout'), 5);
      queueMicrotask(() => order.push('microtask'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      return {
        b64: btoa('hi\\u00ff'), unb64: atob(' aGn/ '),
        bytes: Array.from(bytes), text: new TextDecoder().decode(bytes), invalid: new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0x62])),
        query: params.toString(), all: params.getAll('n'), parsed: new URLSearchParams('?a=1&a=2&b=%20+x').getAll('a').concat(new URLSearchParams('b=%20+x').get('b')),
        href: url.href, host: url.host, path: url.pathname, canParse: URL.canParse('nope'), order,
      };
    }`);
    expect(output(result)).toEqual({
      b64: 'aGn/',
      unb64: 'hi\u00ff',
      bytes: [...Buffer.from('héllo 😀')],
      text: 'héllo 😀',
      invalid: 'a\uFFFDb',
      query: 'q=a+b%26c&n=1&n=2',
      all: ['1', '2'],
      parsed: ['1', '2', '  x'],
      href: 'https://example.com/v1/api?x=1&y=%C3%A9#frag',
      host: 'example.com',
      path: '/v1/api',
      canParse: false,
      order: ['microtask', 'timeout'],
    });
  });

  it('reports a throw or a rejection as FunctionError with its message', async () => {
    expect(failure(await run(`export function handler() { throw new TypeError('no such customer') }`))).toEqual({ name: 'FunctionError', message: 'no such customer' });
    expect(failure(await run(`export async function handler() { await null; throw new Error('later') }`))).toEqual({ name: 'FunctionError', message: 'later' });
    expect(failure(await run(`export function handler() { throw 'a string' }`))).toEqual({ name: 'FunctionError', message: 'a string' });
    expect(failure(await run(`export function handler() { throw new Error('x'.repeat(10000)) }`)).message.length).toBeLessThanOrEqual(4096);
  });

  describe('FunctionInvalid', () => {
    it.each([
      ['a syntax error', { 'index.js': 'export function handler( {' }, /does not parse/],
      ['a syntax error in an imported module', { 'index.js': "import './b.js'; export function handler() {}", 'b.js': 'let = ;' }, /does not parse/],
      ['no handler', { 'index.js': 'export const x = 1' }, /exports no handler/],
      ['a handler that is not a function', { 'index.js': 'export const handler = 42' }, /exports no handler/],
      ['an entry not among the modules', { 'main.js': 'export function handler() {}' }, /entry module "index.js" is not one/],
      ['an import of a module not among them', { 'index.js': "import x from './missing.js'; export function handler() {}" }, /"\.\/missing\.js" \(imported by index\.js\) is not one/],
      ['an import above the root', { 'lib/a.js': 'export default 1', 'index.js': "import a from '../index.js'; export function handler() {}" }, /"\.\.\/index\.js"/],
      ['a static import of fs', { 'index.js': "import fs from 'fs'; export function handler() {}" }, /"fs"/],
      ['a static import of node:child_process', { 'index.js': "import cp from 'node:child_process'; export function handler() {}" }, /"node:child_process"/],
    ])('for %s', async (_what, modules, message) => {
      const error = failure(await runFunction({ modules, entry: 'index.js', input: { variables: {}, secrets: {} } }));
      expect(error.name).toBe('FunctionInvalid');
      expect(error.message).toMatch(message);
    });
  });

  describe('FunctionOutputInvalid', () => {
    it.each([
      ['a string', `return 'x'`, /not a string/],
      ['an array', `return [1]`, /not an array/],
      ['null', `return null`, /not null/],
      ['a function value', `return { f() {} }`, /"f" is a function/],
      ['NaN', `return { n: NaN }`, /"n" is NaN/],
      ['a BigInt', `return { n: 1n }`, /"n" is a bigint/],
      ['a cycle', `const o = {}; o.o = o; return o`, /circular|cycle/i],
    ])('for %s', async (_what, body, message) => {
      const error = failure(await run(`export function handler() { ${body} }`));
      expect(error.name).toBe('FunctionOutputInvalid');
      expect(error.message).toMatch(message);
    });

    it('holds the output to outputBytes of UTF-8 JSON, exactly', async () => {
      // {"s":"…"} is 8 bytes of JSON around the string; é is two bytes in UTF-8.
      const fits = await run(`export function handler() { return { s: 'é'.repeat(46) } }`, { limits: { outputBytes: 100 } });
      expect(output(fits).s).toHaveLength(46);
      const over = await run(`export function handler() { return { s: 'é'.repeat(47) } }`, { limits: { outputBytes: 100 } });
      expect(failure(over)).toEqual({ name: 'FunctionOutputInvalid', message: 'the variables are over the limit of 100 bytes of JSON' });
      const huge = await run(`export function handler() { return { s: 'x'.repeat(1 << 20) } }`);
      expect(failure(huge).name).toBe('FunctionOutputInvalid');
    });
  });

  describe('isolation', () => {
    it('shows no process, require, environment, Node module or host object to the function', async () => {
      process.env.SANDBOX_TEST_CANARY = 'canary-7d1f';
      const result = await run(`export async function handler() {
        const tryIt = (f) => { try { return String(f()) } catch (e) { return 'threw ' + e.name } };
        const imported = async (name) => { try { await import(name); return 'imported' } catch (e) { return 'refused' } };
        const globalNames = Object.getOwnPropertyNames(globalThis).sort();
        return {
          process: typeof process, require: typeof require, module: typeof module, Buffer: typeof Buffer, WebAssembly: typeof WebAssembly,
          viaFunction: tryIt(() => Function('return typeof process')()),
          viaConstructor: tryIt(() => (function () {}).constructor.constructor('return typeof process')()),
          viaFetch: await fetch.constructor('return typeof process + typeof require')(),
          viaGlobalThis: tryIt(() => globalThis.constructor.constructor('return this')() === globalThis),
          fs: await imported('fs'), childProcess: await imported('node:child_process'), std: await imported('std'), os: await imported('os'),
          globals: globalNames,
          canary: JSON.stringify(globalNames.map((n) => { try { return String(globalThis[n]) } catch { return '' } })).includes('canary-7d1f'),
        };
      }`);
      delete process.env.SANDBOX_TEST_CANARY;
      const seen = output(result);
      expect(seen).toMatchObject({
        process: 'undefined', require: 'undefined', module: 'undefined', Buffer: 'undefined', WebAssembly: 'undefined',
        viaFunction: 'undefined', viaConstructor: 'undefined', viaFetch: 'undefinedundefined', viaGlobalThis: 'true',
        fs: 'refused', childProcess: 'refused', std: 'refused', os: 'refused', canary: false,
      });
      // QuickJS's built-ins and what the prelude installs, exactly: nothing of the host's.
      const builtIns =
        'AggregateError Array ArrayBuffer BigInt BigInt64Array BigUint64Array Boolean DataView Date Error EvalError FinalizationRegistry ' +
        'Float16Array Float32Array Float64Array Function Infinity Int16Array Int32Array Int8Array InternalError Iterator JSON Map Math NaN ' +
        'Number Object Promise Proxy RangeError ReferenceError Reflect RegExp Set SharedArrayBuffer String Symbol SyntaxError TypeError ' +
        'URIError Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet decodeURI decodeURIComponent encodeURI ' +
        'encodeURIComponent escape eval globalThis isFinite isNaN parseFloat parseInt undefined unescape';
      const installed = 'TextDecoder TextEncoder URL URLSearchParams atob btoa clearTimeout console fetch queueMicrotask setTimeout';
      expect(seen.globals).toEqual(`${builtIns} ${installed}`.split(' ').sort());
    });

    it('keeps prototype changes inside: the host\'s Object.prototype and JSON stay untouched', async () => {
      const result = await run(`export function handler() {
        Object.prototype.polluted = 'yes';
        Array.prototype.push = () => 'hijacked';
        JSON.parse = () => ({ hijacked: true });
        return { inside: ({}).polluted };
      }`);
      expect(output(result)).toEqual({ inside: 'yes' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect([1].push(2)).toBe(2);
      expect(JSON.parse('{"a":1}')).toEqual({ a: 1 });
    });

    it('runs two functions at once without either seeing the other\'s globals or secrets', async () => {
      const source = `
        let seenByModule = [];
        export async function handler({ variables, secrets }) {
          const before = globalThis.shared;
          globalThis.shared = secrets.mine;
          seenByModule.push(secrets.mine);
          await new Promise((resolve) => setTimeout(resolve, 50));
          return { before: before ?? null, after: globalThis.shared, seenByModule, me: variables.me };
        }`;
      const [a, b] = await Promise.all([
        run(source, { input: { variables: { me: 'a' }, secrets: { mine: 'secret-of-a' } } }),
        run(source, { input: { variables: { me: 'b' }, secrets: { mine: 'secret-of-b' } } }),
      ]);
      expect(output(a)).toEqual({ before: null, after: 'secret-of-a', seenByModule: ['secret-of-a'], me: 'a' });
      expect(output(b)).toEqual({ before: null, after: 'secret-of-b', seenByModule: ['secret-of-b'], me: 'b' });
    });
  });

  describe('limits', () => {
    it('ends an infinite loop with FunctionTimeout, which a catch cannot swallow, and the next run works', async () => {
      const started = performance.now();
      const looped = await run(`export function handler() { try { while (true) {} } catch (e) { return { caught: true } } }`, { limits: { timeoutMs: 300 } });
      expect(failure(looped)).toEqual({ name: 'FunctionTimeout', message: 'the function ran past its time limit of 300 ms' });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(output(await run(`export function handler() { return { fine: true } }`))).toEqual({ fine: true });
    });

    it('ends a loop at the top level of a module, and a loop of microtasks, with FunctionTimeout', async () => {
      expect(failure(await run(`while (true) {} export function handler() {}`, { limits: { timeoutMs: 200 } })).name).toBe('FunctionTimeout');
      const spin = `export async function handler() { const spin = () => Promise.resolve().then(spin, spin); spin(); await new Promise(() => {}) }`;
      expect(failure(await run(spin, { limits: { timeoutMs: 200 } })).name).toBe('FunctionTimeout');
    });

    it('ends a wait that can never settle with FunctionTimeout at once, and a timer past the limit at the limit', async () => {
      const started = performance.now();
      const never = await run(`export function handler() { return new Promise(() => {}) }`, { limits: { timeoutMs: 5000 } });
      expect(failure(never).name).toBe('FunctionTimeout');
      expect(performance.now() - started).toBeLessThan(1000);
      const sleepy = await run(`export async function handler() { await new Promise((r) => setTimeout(r, 60000)); return {} }`, { limits: { timeoutMs: 300 } });
      expect(failure(sleepy).name).toBe('FunctionTimeout');
      expect(sleepy.durationMs).toBeGreaterThanOrEqual(300);
      expect(sleepy.durationMs).toBeLessThan(1500);
    });

    it.each([
      ['many small objects', 'const a = []; while (true) a.push({ n: a.length, s: "y" + a.length })'],
      ['large buffers', 'const a = []; while (true) a.push(new Uint8Array(1 << 20))'],
      ['growing strings', 'const a = []; for (let i = 0; ; i++) a.push("x".repeat(1 << 20) + i)'],
      ['one allocation over the limit', 'return { n: new Uint8Array(64 << 20).length }'],
    ])('ends a memory bomb of %s with FunctionMemoryExceeded', async (_what, body) => {
      const result = await run(`export function handler() { ${body} }`, { limits: { memoryBytes: 32 * 1024 * 1024 } });
      expect(failure(result)).toEqual({ name: 'FunctionMemoryExceeded', message: 'the function used more than its memory limit of 33554432 bytes' });
    });

    it('lets a function use memory up to its limit', async () => {
      const result = await run(`export function handler() { const a = []; for (let i = 0; i < 16; i++) a.push(new Uint8Array(1 << 20).fill(i)); return { sum: a.reduce((s, b) => s + b[0], 0) } }`, {
        limits: { memoryBytes: 32 * 1024 * 1024 },
      });
      expect(output(result)).toEqual({ sum: 120 });
    });

    it('reports deep recursion as an error, catchable by the function, and survives the host stack running out', async () => {
      const uncaught = await run(`export function handler() { const f = (n) => f(n + 1) + 1; return { v: f(0) } }`);
      expect(failure(uncaught)).toEqual({ name: 'FunctionError', message: 'stack overflow' });
      const caught = await run(`export function handler() { let depth = 0; const f = () => { depth++; f() }; try { f() } catch (e) { return { message: e.message, deep: depth > 500 } } }`);
      expect(output(caught)).toEqual({ message: 'stack overflow', deep: true });
      // JSON.parse recurses in C without QuickJS's stack check: V8's own stack runs out first.
      const nested = await run(`export function handler() { return { v: JSON.parse('['.repeat(200000)) } }`);
      expect(failure(nested)).toEqual({ name: 'FunctionError', message: 'stack overflow (maximum call stack size exceeded)' });
      expect(output(await run(`export function handler() { return { after: 'fine' } }`))).toEqual({ after: 'fine' });
    });

    it('cuts logs at logBytes and says so', async () => {
      const result = await run(`export function handler() { for (let i = 0; i < 10000; i++) console.log('line ' + i + ' ' + 'é'.repeat(20)); return { done: true } }`, {
        limits: { logBytes: 1000 },
      });
      expect(output(result)).toEqual({ done: true });
      expect(result.logsTruncated).toBe(true);
      // Each line costs 64 bytes besides its text, so a flood of lines is bounded however short they are.
      const bytes = result.logs.reduce((n, l) => n + Buffer.byteLength(l.message) + 64, 0);
      expect(bytes).toBeLessThanOrEqual(1000);
      expect(bytes).toBeGreaterThan(900);
      expect(result.logs[0]!.message).toBe(`line 0 ${'é'.repeat(20)}`);
      expect(result.logs.at(-1)!.message).not.toContain('\uFFFD');
    });

    it('cuts one huge log line too', async () => {
      const result = await run(`export function handler() { console.log('x'.repeat(10 << 20)); return {} }`, { limits: { logBytes: 4096 } });
      expect(result.logsTruncated).toBe(true);
      expect(result.logs).toHaveLength(1);
      expect(result.logs[0]!.message).toBe('x'.repeat(4096 - 64));
    });

    it('bounds a flood of empty lines by their count, not only their text', async () => {
      const result = await run(`export function handler() { for (let i = 0; i < 100000; i++) console.log(); return {} }`, { limits: { logBytes: 64 * 1024 } });
      expect(result.logsTruncated).toBe(true);
      expect(result.logs).toHaveLength(1024);
    });
  });

  describe('output it cannot carry on', () => {
    it('refuses variables nested deeper than 64 levels, and takes 64', async () => {
      const deep = await run(`export function handler() { let v = 1; for (let i = 0; i < 5000; i++) v = [v]; return { v } }`);
      expect(deep).toMatchObject({ ok: false, error: { name: 'FunctionOutputInvalid' } });
      const ok = await run(`export function handler() { let v = 1; for (let i = 0; i < 63; i++) v = [v]; return { v } }`);
      expect(ok.ok).toBe(true);
    });

    it('refuses a key named __proto__', async () => {
      const res = await run(`export function handler() { return JSON.parse('{"a":{"__proto__":{"x":1}}}') }`);
      expect(res).toMatchObject({ ok: false, error: { name: 'FunctionOutputInvalid' } });
    });
  });

  describe('fetch', () => {
    let plain: http.Server;
    let hits = 0;
    let origin: string;
    let dir: string;
    let cert: string;
    let tls: https.Server;
    let tlsOrigin: string;

    beforeAll(async () => {
      plain = http.createServer((req, res) => {
        hits++;
        if (req.url === '/big') return res.end(Buffer.alloc(4096, 120));
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () =>
          res.writeHead(201, { 'content-type': 'application/json', 'x-echo-method': req.method }).end(
            JSON.stringify({ method: req.method, url: req.url, auth: req.headers.authorization ?? null, type: req.headers['content-type'] ?? null, body: Buffer.concat(chunks).toString('base64') }),
          ),
        );
      });
      await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
      origin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;

      let key: Buffer;
      ({ dir, key, cert } = selfSignedCert('DNS:localhost', 'sandbox-test-'));
      tls = https.createServer({ key, cert }, (_req, res) => {
        res.writeHead(302, { location: `${origin.replace('http:', 'https:')}/secret` }).end();
      });
      await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
      tlsOrigin = `https://localhost:${(tls.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
      await new Promise((r) => plain.close(r));
      rmSync(dir, { recursive: true, force: true });
    });

    const attempt = (url: string) => `export async function handler() {
      try { await fetch(${JSON.stringify(url)}); return { reached: true } }
      catch (e) { return { name: e.name, code: e.code, message: e.message } }
    }`;

    it('refuses the metadata endpoint and the service\'s loopback ports, which are never reached', async () => {
      expect(output(await run(attempt('http://169.254.169.254/latest/meta-data/')))).toMatchObject({ name: 'OutboundRefused', code: 'scheme' });
      expect(output(await run(attempt('https://169.254.169.254/latest/meta-data/')))).toMatchObject({ name: 'OutboundRefused', code: 'cloud-metadata' });
      expect(output(await run(attempt(`${origin}/`)))).toMatchObject({ name: 'OutboundRefused', code: 'scheme' });
      expect(output(await run(attempt(origin.replace('http:', 'https:'))))).toMatchObject({ name: 'OutboundRefused', code: 'loopback' });
      expect(output(await run(attempt('https://localhost/')))).toMatchObject({ name: 'OutboundRefused', code: 'loopback' });
      expect(output(await run(attempt('http://example.com/')))).toMatchObject({ name: 'OutboundRefused', code: 'scheme', message: 'http://example.com/ refused: only https:// URLs are allowed' });
      expect(hits).toBe(0);
    });

    it('refuses a redirect from an https server to a loopback address', async () => {
      // The first hop is let through (it is on loopback too); the redirect's hop is not.
      const withCa: GuardedFetch = (url, init, opts) => guardedFetch(url, init, { ...opts, ca: cert });
      const result = await run(attempt(`${tlsOrigin}/start`), { allowedOrigins: [tlsOrigin] }, { fetch: withCa });
      expect(output(result)).toMatchObject({ name: 'OutboundRefused', code: 'loopback' });
      expect(hits).toBe(0);
    });

    it('reaches an allowed origin with method, headers and a byte body, and reads the response every way', async () => {
      const result = await run(
        `export async function handler() {
          const res = await fetch(${JSON.stringify(`${origin}/echo?q=1`)}, { method: 'PUT', headers: [['Authorization', 'Bearer t'], ['Content-Type', 'application/octet-stream']], body: new Uint8Array([0, 1, 255]) });
          const clone = await fetch(${JSON.stringify(`${origin}/form`)}, { method: 'POST', body: new URLSearchParams({ a: '1' }) });
          const bytes = new Uint8Array(await clone.arrayBuffer());
          const json = await res.json();
          let again; try { await res.text() } catch (e) { again = e.message }
          return { status: res.status, ok: res.ok, type: res.headers['content-type'], viaGet: res.headers.get('X-Echo-Method'), has: res.headers.has('nope'), json, formLength: bytes.length, again, headerNames: Object.keys(res.headers).includes('get') };
        }`,
        { allowedOrigins: [origin] },
      );
      const seen = output(result);
      expect(seen).toMatchObject({ status: 201, ok: true, type: 'application/json', viaGet: 'PUT', has: false, again: 'the response body was already read', headerNames: false });
      expect(seen.json).toEqual({ method: 'PUT', url: '/echo?q=1', auth: 'Bearer t', type: 'application/octet-stream', body: Buffer.from([0, 1, 255]).toString('base64') });
      expect(seen.formLength).toBeGreaterThan(0);
      expect(hits).toBe(2);
      hits = 0;
    });

    it('fails the fetches past the run\'s allowance', async () => {
      const result = await run(
        `export async function handler() {
          const outcomes = [];
          for (let i = 0; i < 3; i++) { try { await fetch(${JSON.stringify(`${origin}/n`)}); outcomes.push('ok') } catch (e) { outcomes.push(e.code) } }
          return { outcomes };
        }`,
        { allowedOrigins: [origin], limits: { fetches: 2 } },
      );
      expect(output(result)).toEqual({ outcomes: ['ok', 'ok', 'too-many-fetches'] });
      expect(hits).toBe(2);
      hits = 0;
    });

    it('fails a response over responseBytes and a body over requestBytes', async () => {
      const big = await run(attempt(`${origin}/big`), { allowedOrigins: [origin], limits: { responseBytes: 4095 } });
      expect(output(big)).toMatchObject({ name: 'OutboundFailed', code: 'response-too-large' });
      const body = await run(
        `export async function handler() { try { await fetch(${JSON.stringify(`${origin}/up`)}, { method: 'POST', body: 'x'.repeat(101) }) } catch (e) { return { code: e.code } } }`,
        { allowedOrigins: [origin], limits: { requestBytes: 100 } },
      );
      expect(output(body)).toEqual({ code: 'request-too-large' });
      hits = 0;
    });
  });
});
