/**
 * `URLSearchParams` (application/x-www-form-urlencoded of the URL standard, written here) and
 * `URL` (parsed by the host's WHATWG parser: strings in, the JSON of the parts out).
 */
import type { HostFunctions, UrlPart, UrlParts } from './contract.js';
import { defineProperty, install, ObjectKeys, parse } from './intrinsics.js';
import { decodeUtf8, encodeUtf8 } from './utf8.js';

type Pair = [string, string];

function toUSV(value: unknown): string {
  return String(value).replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
function formEncode(s: string): string {
  return encodeURIComponent(toUSV(s)).replace(/%20/g, '+').replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}
function percentDecode(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) { bytes.push(parseInt(s.slice(i + 1, i + 3), 16)); i += 2; }
    else for (const b of encodeUtf8(ch === '+' ? ' ' : ch)) bytes.push(b);
  }
  return decodeUtf8(bytes, false);
}

interface ParamsState {
  list: Pair[];
  /** Set when the params are a URL's `searchParams`: the URL's query follows every change. */
  onChange: ((query: string) => void) | null;
}
const paramsState = new WeakMap<URLSearchParams, ParamsState>();
function paramsOf(params: URLSearchParams): ParamsState {
  const state = paramsState.get(params);
  if (!state) throw new TypeError('not a URLSearchParams');
  return state;
}
function parseQuery(query: string): Pair[] {
  const list: Pair[] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    list.push(eq < 0 ? [percentDecode(piece), ''] : [percentDecode(piece.slice(0, eq)), percentDecode(piece.slice(eq + 1))]);
  }
  return list;
}
function changed(params: URLSearchParams): void {
  const state = paramsOf(params);
  if (state.onChange) state.onChange(params.toString());
}

export class URLSearchParams {
  constructor(init?: unknown) {
    const list: Pair[] = [];
    paramsState.set(this, { list, onChange: null });
    if (init === undefined || init === null) return;
    if (typeof init === 'object' || typeof init === 'function') {
      if (typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function') {
        for (const pair of init as Iterable<Iterable<unknown>>) {
          const p = [...pair];
          if (p.length !== 2) throw new TypeError('URLSearchParams: each pair must be [name, value]');
          list.push([toUSV(p[0]), toUSV(p[1])]);
        }
      } else {
        for (const key of ObjectKeys(init)) list.push([toUSV(key), toUSV((init as Record<string, unknown>)[key])]);
      }
      return;
    }
    const query = String(init);
    list.push(...parseQuery(query.startsWith('?') ? query.slice(1) : query));
  }
  get size(): number { return paramsOf(this).list.length; }
  append(name: unknown, value: unknown): void { paramsOf(this).list.push([toUSV(name), toUSV(value)]); changed(this); }
  delete(name: unknown, value?: unknown): void {
    const state = paramsOf(this), n = toUSV(name), v = value === undefined ? undefined : toUSV(value);
    state.list = state.list.filter(([k, x]) => !(k === n && (v === undefined || x === v)));
    changed(this);
  }
  get(name: unknown): string | null { const n = toUSV(name); const hit = paramsOf(this).list.find(([k]) => k === n); return hit ? hit[1] : null; }
  getAll(name: unknown): string[] { const n = toUSV(name); return paramsOf(this).list.filter(([k]) => k === n).map(([, v]) => v); }
  has(name: unknown, value?: unknown): boolean { const n = toUSV(name), v = value === undefined ? undefined : toUSV(value); return paramsOf(this).list.some(([k, x]) => k === n && (v === undefined || x === v)); }
  set(name: unknown, value: unknown): void {
    const state = paramsOf(this), n = toUSV(name), v = toUSV(value);
    const at = state.list.findIndex(([k]) => k === n);
    if (at < 0) state.list.push([n, v]);
    else state.list = state.list.filter(([k], i) => k !== n || i === at).map((pair): Pair => (pair[0] === n ? [n, v] : pair));
    changed(this);
  }
  sort(): void {
    const state = paramsOf(this);
    state.list = state.list.map((pair, i): [Pair, number] => [pair, i]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map(([pair]) => pair);
    changed(this);
  }
  forEach(callback: (value: string, key: string, params: URLSearchParams) => void, thisArg?: unknown): void { for (const [k, v] of paramsOf(this).list.slice()) callback.call(thisArg, v, k, this); }
  *entries(): Generator<Pair> { for (const [k, v] of paramsOf(this).list.slice()) yield [k, v]; }
  *keys(): Generator<string> { for (const [k] of paramsOf(this).list.slice()) yield k; }
  *values(): Generator<string> { for (const [, v] of paramsOf(this).list.slice()) yield v; }
  [Symbol.iterator](): Generator<Pair> { return this.entries(); }
  toString(): string { return paramsOf(this).list.map(([k, v]) => formEncode(k) + '=' + formEncode(v)).join('&'); }
}

let hostUrl: HostFunctions['url'];

interface UrlState {
  parts: UrlParts;
  params: URLSearchParams | null;
}
const urlState = new WeakMap<URL, UrlState>();
function parseUrl(input: string, base?: string, key?: string, value?: string): UrlParts | undefined {
  const json = hostUrl(input, base, key, value);
  if (json === undefined) return undefined;
  return parse(json) as UrlParts;
}
function urlOf(url: URL): UrlState {
  const state = urlState.get(url);
  if (!state) throw new TypeError('not a URL');
  return state;
}

/** Its parts are accessors on the prototype (defined below), each read from and written through the host's parser. */
export class URL {
  declare href: string;
  declare readonly origin: string;
  declare protocol: string;
  declare username: string;
  declare password: string;
  declare host: string;
  declare hostname: string;
  declare port: string;
  declare pathname: string;
  declare search: string;
  declare hash: string;
  constructor(url: unknown, base?: unknown) {
    const parts = parseUrl(String(url), base === undefined ? undefined : String(base));
    if (!parts) throw new TypeError('Invalid URL: ' + String(url).slice(0, 200));
    urlState.set(this, { parts, params: null });
  }
  static canParse(url: unknown, base?: unknown): boolean { return parseUrl(String(url), base === undefined ? undefined : String(base)) !== undefined; }
  get searchParams(): URLSearchParams {
    const state = urlOf(this);
    if (!state.params) {
      state.params = new URLSearchParams(state.parts.search);
      paramsOf(state.params).onChange = (query) => {
        const parts = parseUrl(state.parts.href, undefined, 'search', query);
        if (parts) state.parts = parts;
      };
    }
    return state.params;
  }
  toString(): string { return urlOf(this).parts.href; }
  toJSON(): string { return urlOf(this).parts.href; }
}
for (const part of ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as UrlPart[]) {
  defineProperty(URL.prototype, part, {
    configurable: true,
    enumerable: true,
    get(this: URL) { return urlOf(this).parts[part]; },
    set: part === 'origin' ? undefined : function (this: URL, value: unknown) {
      const state = urlOf(this);
      const parts = parseUrl(state.parts.href, undefined, part, String(value));
      if (!parts) { if (part === 'href') throw new TypeError('Invalid URL'); return; }
      state.parts = parts;
      if (state.params && (part === 'href' || part === 'search')) paramsOf(state.params).list = parseQuery(parts.search.slice(1));
    },
  });
}

export function installUrl(url: HostFunctions['url']): void {
  hostUrl = url;
  install('URLSearchParams', URLSearchParams);
  install('URL', URL);
}
