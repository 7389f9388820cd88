/**
 * The prelude: the code that runs inside the VM before the function's (sandbox.ts evaluates it
 * in each run's fresh QuickJS context, then calls it once with the host functions). It installs
 * the globals the function sees and returns the host's entry points.
 *
 * It runs in QuickJS, not Node: only the language's built-ins exist there (tsconfig.guest.json
 * checks it against those alone), and nothing is imported at run time but this folder's modules,
 * which `npm run build:guest` bundles into one script (prelude.generated.ts). `host` is never
 * stored where the function's code can reach it: each installed global closes over the one host
 * function it needs.
 */
import { installBase64 } from './base64.js';
import { installConsole } from './console.js';
import type { EntryPoints, HostFunctions, PreludeConfig } from './contract.js';
import { installFetch } from './fetch.js';
import { namedError, parse, stringify } from './intrinsics.js';
import { installTimers } from './timers.js';
import { installUrl } from './url.js';
import { installEncoding } from './utf8.js';

export function prelude(host: HostFunctions, config: PreludeConfig): EntryPoints {
  const logCap = config.logCap;
  const hostLog = host.log, hostFetch = host.fetch, hostSleep = host.sleep, hostUrl = host.url;
  installConsole(hostLog, logCap);
  installBase64();
  installEncoding();
  installUrl(hostUrl);
  installTimers(hostSleep);
  installFetch(hostFetch);
  return { pickHandler, invoke, serializeOutput, describeError };
}

function pickHandler(namespace: Record<string, unknown>): ((input: unknown) => unknown) | undefined {
  if (typeof namespace.handler === 'function') return namespace.handler as (input: unknown) => unknown;
  if (typeof namespace.default === 'function') return namespace.default as (input: unknown) => unknown;
  return undefined;
}

async function invoke(handler: (input: unknown) => unknown, inputJson: string): Promise<unknown> {
  return handler(parse(inputJson));
}

function where(key: string): string {
  return key === '' ? 'the returned value' : 'the value at ' + stringify(String(key));
}

function serializeOutput(value: unknown, maxBytes: number): string {
  if (value === undefined) return '{}';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw namedError('FunctionOutputInvalid', 'the handler must return an object of variables (or nothing), not ' + (value === null ? 'null' : Array.isArray(value) ? 'an array' : 'a ' + typeof value));
  }
  const json: string | undefined = stringify(value, function (key: string, v: unknown) {
    if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') {
      throw namedError('FunctionOutputInvalid', where(key) + ' is a ' + typeof v + ', which JSON cannot carry');
    }
    if (typeof v === 'number' && !isFinite(v)) throw namedError('FunctionOutputInvalid', where(key) + ' is ' + String(v) + ', which JSON cannot carry');
    return v;
  });
  if (json === undefined) throw namedError('FunctionOutputInvalid', 'the returned value is not JSON');
  // UTF-8 takes at least one byte per UTF-16 unit: the cheap test first, the exact count after it.
  let bytes = json.length;
  for (let i = 0; bytes <= maxBytes && i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c < 0x80) continue;
    const next = json.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) { bytes += 2; i++; }
    else bytes += c < 0x800 ? 1 : 2;
  }
  if (bytes > maxBytes) throw namedError('FunctionOutputInvalid', 'the variables are over the limit of ' + maxBytes + ' bytes of JSON');
  return json;
}

function describeError(error: unknown): string {
  let name = 'Error', message = '';
  try {
    if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
      const thrown = error as { name?: unknown; message?: unknown };
      if (thrown.name !== undefined) name = String(thrown.name);
      message = thrown.message !== undefined ? String(thrown.message) : String(error);
    } else {
      message = String(error);
    }
  } catch (e) {
    message = '(the thrown value could not be read)';
  }
  return stringify({ name: name.slice(0, 200), message: message.slice(0, 4096) });
}
