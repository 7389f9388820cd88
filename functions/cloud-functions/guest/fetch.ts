/**
 * `fetch`: the request is checked and sent by the host (its SSRF guard and limits); the response
 * comes back whole (meta as JSON, the body as an ArrayBuffer) and is read here.
 */
import type { FetchRequest, FetchResponseMeta, HostFunctions } from './contract.js';
import { defineProperty, install, isView, ObjectKeys, parse, stringify } from './intrinsics.js';
import { URL, URLSearchParams } from './url.js';
import { decodeUtf8 } from './utf8.js';

/** The part of fetch's `init` that is read. */
interface FetchInit {
  method?: unknown;
  headers?: unknown;
  body?: unknown;
  redirect?: unknown;
}

/** The response's headers: lower-case names to values, with `get` and `has` (not enumerable). */
type ResponseHeaders = Record<string, string> & { get(name: unknown): string | null; has(name: unknown): boolean };

function headersOf(init: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined || init === null) return out;
  const pairs = typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
    ? [...(init as Iterable<Iterable<unknown>>)].map((p) => [...p])
    : ObjectKeys(init).map((k) => [k, (init as Record<string, unknown>)[k]]);
  for (const pair of pairs) {
    if (pair.length !== 2) throw new TypeError('fetch: each header must be [name, value]');
    const name = String(pair[0]).toLowerCase();
    out[name] = name in out ? out[name] + ', ' + String(pair[1]) : String(pair[1]);
  }
  return out;
}

function bodyOf(body: unknown, headers: Record<string, string>): string | ArrayBufferLike | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return body.slice(0);
  if (isView(body)) return body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength);
  if (body instanceof URLSearchParams) {
    if (!('content-type' in headers)) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    return body.toString();
  }
  throw new TypeError('fetch: the body must be a string, a typed array, an ArrayBuffer or URLSearchParams');
}

const responseBody = new WeakMap<Response, { bytes: ArrayBuffer; used: boolean }>();
function takeBody(response: Response): ArrayBuffer {
  const state = responseBody.get(response)!;
  if (state.used) throw new TypeError('the response body was already read');
  state.used = true;
  return state.bytes;
}

class Response {
  declare readonly status: number;
  declare readonly statusText: string;
  declare readonly ok: boolean;
  declare readonly url: string;
  declare readonly redirected: boolean;
  declare readonly headers: ResponseHeaders;
  constructor(meta: FetchResponseMeta, bytes: ArrayBuffer) {
    this.status = meta.status;
    this.statusText = meta.statusText;
    this.ok = meta.status >= 200 && meta.status < 300;
    this.url = meta.url;
    this.redirected = meta.redirected;
    const headers = meta.headers as ResponseHeaders;
    defineProperty(headers, 'get', { value: (name: unknown) => { const v = headers[String(name).toLowerCase()]; return typeof v === 'string' ? v : null; } });
    defineProperty(headers, 'has', { value: (name: unknown) => typeof headers[String(name).toLowerCase()] === 'string' });
    this.headers = headers;
    responseBody.set(this, { bytes, used: false });
  }
  get bodyUsed(): boolean { return responseBody.get(this)!.used; }
  async arrayBuffer(): Promise<ArrayBuffer> { return takeBody(this); }
  async bytes(): Promise<Uint8Array> { return new Uint8Array(takeBody(this)); }
  async text(): Promise<string> { return decodeUtf8(new Uint8Array(takeBody(this)), false); }
  async json(): Promise<unknown> { return parse(await this.text()); }
}

export function installFetch(hostFetch: HostFunctions['fetch']): void {
  install('fetch', async function fetch(input: unknown, init: unknown = {}): Promise<Response> {
    const url = input instanceof URL ? input.href : String(input);
    const options: FetchInit = init === null || typeof init !== 'object' ? {} : init;
    const headers = headersOf(options.headers);
    const body = bodyOf(options.body, headers);
    const request: FetchRequest = {
      url,
      method: options.method === undefined ? 'GET' : String(options.method),
      headers,
      redirect: options.redirect === 'manual' ? 'manual' : 'follow',
    };
    const raw = await hostFetch(stringify(request), body);
    return new Response(parse(raw.meta) as FetchResponseMeta, raw.body);
  });
}
