/**
 * Outbound HTTP for code the service does not trust, shared by tenant cloud functions and webhooks:
 * HTTPS only, to public addresses only, every redirect hop checked again, with a time and a size
 * bound. It knows nothing of the sandbox, so anything that sends a request on a tenant's behalf
 * can reuse it.
 *
 * Why each step (SSRF: a tenant must never reach the service's own network, the cloud metadata
 * endpoint, or the local runtime's loopback services such as DynamoDB Local):
 * - The host is resolved here, every A/AAAA record is checked, and the connection is made to the
 *   checked address (a `lookup` that answers with it), so DNS cannot answer differently between
 *   check and connect (rebinding). SNI and `Host` stay the URL's host name, so TLS still verifies
 *   the certificate of the name the tenant asked for.
 * - Redirects are followed by hand, at most `maxRedirects`, each hop checked like the first: a
 *   public server must not bounce the request to 127.0.0.1.
 * - Plain http:// is refused (a public plain-HTTP hop can be rewritten by anyone on the path);
 *   `allowedOrigins` lifts the scheme and address rules for exact origins only, which the local
 *   runtime uses for its S3 stand-in on loopback.
 * - `refusedEndpoints` refuses the local runtime's own services on this machine (DynamoDB Local,
 *   fauxqs) before any allowance is looked at: by port on every address of this machine, since
 *   127.0.0.2, [::1], [::ffff:127.0.0.1] or a name that resolves to loopback reach the same
 *   listener, so for a caller that passes them no allowance (an exact origin, `allowLoopback`)
 *   can open them.
 * - Refusals say which rule refused, never the address a name resolved to (that would let a
 *   tenant map the service's internal DNS).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';

/** Which rule refused a URL or an address. */
export type RefusalRule =
  | 'invalid-url'
  | 'scheme'
  | 'credentials'
  | 'internal'
  | 'cloud-metadata'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade-nat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'unique-local'
  | 'reserved';

const RULE_TEXT: Record<RefusalRule, string> = {
  'invalid-url': 'it is not a valid absolute URL',
  scheme: 'only https:// URLs are allowed',
  credentials: 'URLs with a user name or password are not allowed',
  internal: "the host is one of the local runtime's own services",
  'cloud-metadata': 'the host is a cloud metadata address',
  loopback: 'the host is a loopback address',
  private: 'the host is a private address (RFC 1918)',
  'link-local': 'the host is a link-local address',
  'carrier-grade-nat': 'the host is a carrier-grade NAT address (100.64.0.0/10)',
  unspecified: 'the host is an unspecified address',
  multicast: 'the host is a multicast address',
  broadcast: 'the host is a broadcast address',
  'unique-local': 'the host is an IPv6 unique local address (fc00::/7)',
  reserved: 'the host is a reserved or special-purpose address',
};

/** The guard refused the request; `rule` says why. Nothing was sent. */
export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';
  constructor(
    readonly rule: RefusalRule,
    url: string,
  ) {
    super(`${shorten(url)} refused: ${RULE_TEXT[rule]}`);
  }
}

export type OutboundFailure =
  | 'invalid-request'
  | 'unresolvable'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'too-many-redirects'
  | 'request-too-large'
  | 'response-too-large';

/** The request was allowed but did not complete; `reason` says how. Messages carry no addresses. */
export class OutboundFailed extends Error {
  override readonly name = 'OutboundFailed';
  constructor(
    readonly reason: OutboundFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface GuardOptions {
  /** Exact origins (scheme://host:port) let through although the scheme or address rules would refuse them. */
  allowedOrigins?: string[];
  /** Every address of a host name; node's resolver (getaddrinfo: DNS and /etc/hosts) when not given. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * Lets through a host all of whose addresses are loopback, over http:// too: the local runtime's
   * webhooks to a receiver on the same machine. Never set on AWS.
   */
  allowLoopback?: boolean;
  /**
   * The local runtime's own services (URLs), refused whatever `allowedOrigins` or `allowLoopback`
   * say: their port on any address of this machine, or on the endpoint's own host. Empty on AWS.
   */
  refusedEndpoints?: string[];
}

export interface OutboundOptions extends GuardOptions {
  /** The whole exchange, redirects and body included. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** Request body bound; none when not given. */
  maxRequestBytes?: number;
  /** Redirects followed before failing (default 5). */
  maxRedirects?: number;
  /** Ends the request early (the caller's own deadline). */
  signal?: AbortSignal;
  /** Certificates (PEM) trusted besides the public roots: a private CA, such as a test server's. */
  ca?: string | Buffer | (string | Buffer)[];
}

export interface OutboundInit {
  method?: string;
  /** Names are case-insensitive; `host`, `connection`, `content-length`, `transfer-encoding` are set here, never by the caller. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** 'manual' returns a 3xx as it is instead of following it. */
  redirect?: 'follow' | 'manual';
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL of the last hop. */
  url: string;
  redirected: boolean;
}

export type GuardedFetch = (url: string, init: OutboundInit, opts: OutboundOptions) => Promise<OutboundResponse>;

export interface CheckedTarget {
  url: URL;
  /** The URL's host without IPv6 brackets: what SNI and Host carry. */
  hostname: string;
  /** The checked address the connection goes to. */
  address: string;
  family: 4 | 6;
  /** True when an exact `allowedOrigins` entry let it through. */
  allowedByOrigin: boolean;
}

const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2:0:0:0:0:0:254']);

const IPV4_RULES: Record<string, RefusalRule> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade-nat',
  private: 'private',
};

const IPV6_RULES: Record<string, RefusalRule> = {
  unspecified: 'unspecified',
  linkLocal: 'link-local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'unique-local',
  // fec0::/10 was IPv6's private range before fc00::/7 replaced it.
  deprecatedSiteLocal: 'private',
};

/** 2000::/3: the only IPv6 block with global unicast addresses today. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * The rule that refuses an address, or undefined when it is a public unicast address.
 *
 * Anything ipaddr.js does not call plain `unicast` is refused (documentation, benchmarking, AS112,
 * 240/4, Teredo, ...): an unknown special range is refused rather than reached. IPv6 forms that
 * carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96,
 * 6to4 2002::/16) are judged by the IPv4 address inside, since that is where they end up.
 */
export function classifyAddress(address: string): RefusalRule | undefined {
  if (!ipaddr.isValid(address)) return 'reserved';
  const parsed = ipaddr.parse(address);
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString())) return 'cloud-metadata';
  if (parsed.kind() === 'ipv4') return classifyIpv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  const bytes = v6.toByteArray();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return classifyIpv4(new ipaddr.IPv4(bytes.slice(12, 16)));
    case 'rfc6052':
      // 64:ff9b::/96 embeds the IPv4 address in its last 32 bits; the local-use 64:ff9b:1::/48
      // places it by a prefix length only the operator knows, so it is refused.
      return isWellKnownNat64(bytes) ? classifyIpv4(new ipaddr.IPv4(bytes.slice(12, 16))) : 'reserved';
    case '6to4':
      return classifyIpv4(new ipaddr.IPv4(bytes.slice(2, 6)));
    case 'unicast':
      return v6.match(GLOBAL_UNICAST_V6) ? undefined : 'reserved';
    default:
      return IPV6_RULES[range] ?? 'reserved';
  }
}

function classifyIpv4(v4: ipaddr.IPv4): RefusalRule | undefined {
  if (METADATA_ADDRESSES.has(v4.toString())) return 'cloud-metadata';
  const range = v4.range();
  if (range === 'unicast') return undefined;
  return IPV4_RULES[range] ?? 'reserved';
}

function isWellKnownNat64(bytes: number[]): boolean {
  return bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes.slice(4, 12).every((b) => b === 0);
}

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/** The port a URL connects to, its scheme's default when it names none. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/**
 * Whether a URL with these addresses goes to one of `endpoints`: the same port, on an address
 * that is this machine (loopback in any form, or the unspecified address, which connects here)
 * or on the endpoint's own host. By port rather than origin, since every loopback spelling and
 * every name that resolves to loopback reach the same listener.
 */
function isRefusedEndpoint(url: URL, addresses: ResolvedAddress[], endpoints: string[] | undefined): boolean {
  for (const entry of endpoints ?? []) {
    let endpoint: URL;
    try {
      endpoint = new URL(entry);
    } catch {
      continue;
    }
    if (portOf(endpoint) !== portOf(url)) continue;
    const host = endpoint.hostname.startsWith('[') ? endpoint.hostname.slice(1, -1) : endpoint.hostname;
    for (const { address } of addresses) {
      const rule = classifyAddress(address);
      if (rule === 'loopback' || rule === 'unspecified' || address === host) return true;
    }
  }
  return false;
}

function originsOf(list: string[] | undefined): Set<string> {
  const origins = new Set<string>();
  for (const entry of list ?? []) {
    try {
      origins.add(new URL(entry).origin);
    } catch {
      // Not a URL: it can match nothing.
    }
  }
  return origins;
}

/**
 * Checks one URL and resolves its host: the target to connect to, or OutboundRefused. Every
 * address the name resolves to must pass, not just the one used: otherwise a name with one public
 * and one private record would pass or fail by the order of the answer.
 */
export async function checkOutboundUrl(input: string | URL, opts: GuardOptions = {}): Promise<CheckedTarget> {
  const text = String(input);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundRefused('invalid-url', text);
  }
  let allowedByOrigin = originsOf(opts.allowedOrigins).has(url.origin);
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  if (!web || (url.protocol === 'http:' && !allowedByOrigin && !opts.allowLoopback)) throw new OutboundRefused('scheme', url.href);
  if (url.username !== '' || url.password !== '') throw new OutboundRefused('credentials', url.href);

  // The WHATWG parser has already turned 2130706433, 0x7f.1 and 127.1 into 127.0.0.1.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal !== 0) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolve)(hostname);
    } catch (err) {
      throw new OutboundFailed('unresolvable', `${shorten(url.href)} failed: the host name does not resolve`, { cause: err });
    }
    if (addresses.length === 0) {
      throw new OutboundFailed('unresolvable', `${shorten(url.href)} failed: the host name does not resolve`);
    }
  }
  // Before any allowance: the runtime's own services stay closed whatever lets loopback through.
  if (isRefusedEndpoint(url, addresses, opts.refusedEndpoints)) throw new OutboundRefused('internal', url.href);
  if (!allowedByOrigin && opts.allowLoopback && addresses.every(({ address }) => classifyAddress(address) === 'loopback')) allowedByOrigin = true;
  // Plain http:// only where an exact origin, or loopback where allowed, let it through.
  if (url.protocol === 'http:' && !allowedByOrigin) throw new OutboundRefused('scheme', url.href);
  if (!allowedByOrigin) {
    for (const { address } of addresses) {
      const rule = classifyAddress(address);
      if (rule) throw new OutboundRefused(rule, url.href);
    }
  }
  const first = addresses[0]!;
  return { url, hostname, address: first.address, family: first.family, allowedByOrigin };
}

/** Set by this module on every hop; a caller's value would desynchronise framing or the target. */
const CONTROLLED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade']);
/** Dropped when a redirect leaves the origin, as fetch does: credentials belong to the first origin. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * fetch for untrusted callers, through the guard: every hop is checked with checkOutboundUrl and
 * connected to the address that was checked. Throws OutboundRefused (a rule refused a hop) or
 * OutboundFailed (invalid request, DNS, network, timeout, too many redirects, a body over a bound).
 */
export const guardedFetch: GuardedFetch = async (url, init, opts) => {
  const maxRedirects = opts.maxRedirects ?? 5;
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;

  let method = (init.method ?? 'GET').toUpperCase();
  if (!TOKEN.test(method) || method === 'CONNECT' || method === 'TRACE' || method === 'TRACK') {
    throw new OutboundFailed('invalid-request', `the method ${JSON.stringify(shorten(init.method ?? ''))} is not allowed`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw new OutboundFailed('invalid-request', `the header name ${JSON.stringify(shorten(name))} is not valid`);
    if (/[\r\n\0]/.test(value)) throw new OutboundFailed('invalid-request', `the header ${lower} has a line break or NUL in its value`);
    if (!CONTROLLED_HEADERS.has(lower)) headers[lower] = value;
  }
  let body = init.body === undefined ? undefined : typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : Buffer.from(init.body);
  if (body !== undefined && opts.maxRequestBytes !== undefined && body.length > opts.maxRequestBytes) {
    throw new OutboundFailed('request-too-large', `the request body is over ${opts.maxRequestBytes} bytes`);
  }
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) {
    throw new OutboundFailed('invalid-request', `a ${method} request cannot have a body`);
  }

  let current = url;
  let redirected = false;
  for (let hop = 0; ; hop++) {
    throwIfAborted(signal, timeout, current);
    const target = await checkOutboundUrl(current, opts);
    const response = await exchange(target, method, headers, body, signal, timeout, opts);
    const location = response.headers.location;
    if (init.redirect !== 'manual' && [301, 302, 303, 307, 308].includes(response.status) && location !== undefined) {
      if (hop >= maxRedirects) {
        throw new OutboundFailed('too-many-redirects', `${shorten(url)} failed: more than ${maxRedirects} redirects`);
      }
      let next: URL;
      try {
        next = new URL(location, target.url);
      } catch {
        throw new OutboundFailed('network', `${shorten(target.url.href)} redirected to an invalid URL`);
      }
      // As fetch: 303 turns anything but HEAD into GET, 301 and 302 turn POST into GET; the body goes.
      if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== target.url.origin) for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
      current = next.href;
      redirected = true;
      continue;
    }
    return { ...response, url: target.url.href, redirected };
  }
};

function throwIfAborted(signal: AbortSignal, timeout: AbortSignal, url: string): void {
  if (!signal.aborted) return;
  if (timeout.aborted) throw new OutboundFailed('timeout', `${shorten(url)} failed: timed out`);
  throw new OutboundFailed('aborted', `${shorten(url)} failed: the request was cancelled`);
}

/** One request to one checked target; redirects are the caller's business. */
function exchange(
  target: CheckedTarget,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
  timeout: AbortSignal,
  opts: OutboundOptions,
): Promise<Omit<OutboundResponse, 'url' | 'redirected'>> {
  const { url } = target;
  const secure = url.protocol === 'https:';
  // The connection goes to the checked address whatever the resolver would say now. Node asks
  // with `all: true` when it races address families (autoSelectFamily), so both forms answer.
  const pinned = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
  const extraCa = opts.ca === undefined ? undefined : Array.isArray(opts.ca) ? opts.ca : [opts.ca];
  const requestOptions: https.RequestOptions = {
    protocol: url.protocol,
    hostname: target.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method,
    headers: { ...headers, host: url.host, ...(body !== undefined ? { 'content-length': String(body.length) } : {}) },
    lookup: pinned,
    // A fresh connection per request: no socket pooled for one pinned address serves another call.
    agent: false,
    signal,
    ...(secure && isIP(target.hostname) === 0 ? { servername: target.hostname } : {}),
    ...(secure && extraCa ? { ca: [...rootCertificates, ...extraCa] } : {}),
  };

  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => {
      if (err instanceof OutboundFailed) return reject(err);
      if (timeout.aborted) return reject(new OutboundFailed('timeout', `${shorten(url.href)} failed: timed out`, { cause: err }));
      if (signal.aborted) return reject(new OutboundFailed('aborted', `${shorten(url.href)} failed: the request was cancelled`, { cause: err }));
      const code = (err as { code?: unknown })?.code;
      reject(new OutboundFailed('network', `${shorten(url.href)} failed: ${typeof code === 'string' ? code : 'network error'}`, { cause: err }));
    };
    const request = (secure ? https : http).request(requestOptions, (response) => {
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxResponseBytes) {
        response.destroy();
        return fail(tooLarge(url, opts.maxResponseBytes));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxResponseBytes) {
          response.destroy();
          fail(tooLarge(url, opts.maxResponseBytes));
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers: flat,
          body: Buffer.concat(chunks, size),
        });
      });
    });
    request.on('error', fail);
    request.end(body);
  });
}

function tooLarge(url: URL, limit: number): OutboundFailed {
  return new OutboundFailed('response-too-large', `${shorten(url.href)} failed: the response body is over ${limit} bytes`);
}

/** URLs go into messages a tenant reads and logs keep: long ones are cut. */
function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
