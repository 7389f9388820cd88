import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { JSONWebKeySet } from 'jose';
import {
  MethodNotAllowedError,
  MalformedRequestError,
  PayloadTooLargeError,
  RequestHeadersTooLargeError,
  RouteNotFoundError,
  toErrorResponse,
  type ApiError,
} from '../../functions/errors.js';
import type { RouteDef } from '../../functions/http/route.js';
import { SECURITY_HEADERS, type LambdaHandler } from '../../functions/http/wrapper.js';
import { log } from '../../functions/http/log.js';
import { authorizeJwt } from './authorizer.js';
import { createRouter } from './router.js';
import { isPagesHost } from './pages-host.js';
import { asOperation } from './aws-usage.js';
import type { RequestRecord } from './text-log.js';

/** API Gateway refuses payloads over 10 MB before any function runs; so does this adapter. */
export const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

/**
 * The HTTP API's limit on the request line and header values together (10,240 bytes), past which
 * it answers before routing. Node reads up to NODE_MAX_HEADER_SIZE, so that a request between
 * the two gets API Gateway's answer with the error body; past it, `clientError` answers.
 */
export const GATEWAY_MAX_REQUEST_LINE_AND_HEADERS = 10_240;
const NODE_MAX_HEADER_SIZE = 64 * 1024;

/** The request line and header values, counted as API Gateway counts them against its limit. */
function requestLineAndHeaderBytes(req: IncomingMessage): number {
  let bytes = Buffer.byteLength(`${req.method} ${req.url} HTTP/${req.httpVersion}`);
  for (let i = 1; i < req.rawHeaders.length; i += 2) bytes += Buffer.byteLength(req.rawHeaders[i]!);
  return bytes;
}

/**
 * A request Node's parser refuses (headers past its own limit, a malformed request line): the
 * answer a client can read, with the error body, rather than Node's bare status or a reset.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const refusal =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new RequestHeadersTooLargeError(`The request line and header values are over ${GATEWAY_MAX_REQUEST_LINE_AND_HEADERS} bytes.`)
      : new MalformedRequestError();
  // The gateway's answer as for any refusal (gatewayError), written by hand: there is no request to answer.
  const result = gatewayError(refusal, randomUUID());
  const body = String(result.body);
  const headers = Object.entries({ ...result.headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode!]}\r\n${headers}\r\n${body}`);
}

/**
 * Lambda's synchronous invocation payload limit, for the request (the event API Gateway builds,
 * a binary body base64-encoded in it) and for the response alike: 6 MB as Lambda counts it,
 * 6,291,556 bytes (the number in its RequestEntityTooLarge and ResponseSizeTooLarge errors).
 * A body under the gateway's 10 MB can still make an event over it.
 */
export const LAMBDA_MAX_PAYLOAD = 6_291_556;

/**
 * What Lambda refuses before the function runs: an event over its payload limit. API Gateway
 * then answers 413; so does this adapter, before calling the handler.
 */
export function checkInvokeRequest(event: APIGatewayProxyEventV2, route?: Pick<RouteDef, 'request'>): void {
  const bytes = Buffer.byteLength(JSON.stringify(event), 'utf8');
  if (bytes > LAMBDA_MAX_PAYLOAD) {
    throw new (route?.request.overLimit ?? PayloadTooLargeError)(
      `The request makes a Lambda event of ${bytes} bytes; Lambda takes at most ${LAMBDA_MAX_PAYLOAD} (a binary body counts base64-encoded).`,
    );
  }
}

/**
 * What Lambda refuses after the function ran: a response over its payload limit
 * (Function.ResponseSizeTooLarge), which API Gateway answers as a 500 without the function's
 * body. The local gateway does the same, so a handler that would fail on AWS fails here too.
 */
export class ResponseSizeTooLargeError extends Error {
  override readonly name = 'ResponseSizeTooLarge';
}

export function checkInvokeResponse(result: APIGatewayProxyStructuredResultV2): void {
  const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  if (bytes > LAMBDA_MAX_PAYLOAD) {
    throw new ResponseSizeTooLargeError(`Response payload size (${bytes} bytes) exceeded maximum allowed payload size (${LAMBDA_MAX_PAYLOAD} bytes).`);
  }
}

export interface LocalServerOptions {
  routes: RouteDef[];
  /** Repository root, for resolving each route's handler entry. */
  root: string;
  host: string;
  port: number;
  jwks: () => Promise<JSONWebKeySet>;
  issuer: string;
  audience: string;
  /** Told of every request once it is answered (the terminal's request lines: lib/local/text-log.ts). */
  requestLog?: (r: RequestRecord) => void;
  /** Serves requests whose Host is the pages origin's (lib/local/pages-host.ts): custom page bundles, not the API. */
  pagesHost?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/** Imports every route's handler and checks it is the one built for that route. */
async function loadHandlers(routes: RouteDef[], root: string): Promise<Map<RouteDef, LambdaHandler>> {
  const handlers = new Map<RouteDef, LambdaHandler>();
  for (const route of routes) {
    const mod = (await import(pathToFileURL(resolve(root, route.handler)).href)) as { handler?: LambdaHandler };
    if (typeof mod.handler !== 'function' || mod.handler.route.operationId !== route.operationId) {
      throw new Error(`${route.handler} does not export the handler of ${route.operationId}`);
    }
    handlers.set(route, mod.handler);
  }
  return handlers;
}

/**
 * The body, up to the HTTP API's limit. Over it the client still gets its 413 with the error
 * body, not a reset connection: a declared Content-Length over the limit is refused before any
 * byte is read, and a longer chunked body stops being kept but is drained (for at most 10 s,
 * then the connection is closed) so the answer can be read.
 */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer> {
  // The 413 goes out at once, and the rest of the body is read and dropped (for at most 10 s), so a
  // client still writing its body gets the answer rather than a broken pipe; past that, the socket goes.
  const tooLarge = () => {
    const timer = setTimeout(() => req.destroy(), 10_000);
    timer.unref();
    req.on('end', () => clearTimeout(timer));
    req.resume();
    return new PayloadTooLargeError(`The request body is over ${GATEWAY_MAX_BODY} bytes.`);
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > GATEWAY_MAX_BODY) return Promise.reject(tooLarge());
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > GATEWAY_MAX_BODY) {
        req.off('data', onData);
        chunks.length = 0;
        fail(tooLarge());
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => ok(Buffer.concat(chunks)));
    req.on('error', fail);
  });
}

function isText(contentType: string | undefined): boolean {
  const t = (contentType ?? '').toLowerCase();
  return !t || t.startsWith('text/') || t.includes('json') || t.includes('xml') || t.includes('x-www-form-urlencoded');
}

/** Builds the API Gateway HTTP API (payload 2.0) event a Lambda would receive. */
function toEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  route: RouteDef,
  pathParameters: Record<string, string>,
  requestId: string,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && k !== 'cookie') headers[k] = Array.isArray(v) ? v.join(',') : v;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
  // API Gateway's domainName is the host alone; a Host that is not one name and at most one port
  // stays whole, so the tenant check refuses it rather than reading `a:1:2` as `a:1`.
  const hostHeader = req.headers.host ?? 'localhost';
  const domainName = /^[^:]+(?::\d{1,5})?$/.test(hostHeader) ? hostHeader.replace(/:\d+$/, '') : hostHeader;
  const text = isText(req.headers['content-type']);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(pathParameters).length ? { pathParameters } : {}),
    ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0]!,
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: `${route.method} ${route.path}`,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  if (result.body) res.end(Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'));
  else res.end();
}

/** The `code` of an error answer's JSON body, for the request line. */
function errorCodeOf(result: APIGatewayProxyStructuredResultV2): string | undefined {
  if ((result.statusCode ?? 200) < 400 || !String(result.headers?.['content-type'] ?? '').includes('json') || typeof result.body !== 'string') return undefined;
  try {
    const code = (JSON.parse(result.body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

function gatewayError(err: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  const mapped = toErrorResponse(err);
  const headers: Record<string, string> = { ...SECURITY_HEADERS, 'x-request-id': requestId };
  for (const [k, v] of Object.entries(mapped.headers)) headers[k.toLowerCase()] = v;
  headers['content-type'] = 'application/json; charset=utf-8';
  return { statusCode: mapped.statusCode, headers, body: JSON.stringify(mapped.body) };
}

/**
 * The thin local stand-in for API Gateway: route matching, the JWT authorizer on bearer routes,
 * and one handler call per request, within the payload limits of the HTTP API (10 MB body) and
 * of Lambda (6 MB event and response). Everything that decides anything is in `functions/`.
 */
export async function startHttpServer(opts: LocalServerOptions): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const handlers = await loadHandlers(opts.routes, opts.root);
  const match = createRouter(opts.routes);

  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_SIZE }, async (req, res) => {
    const requestId = randomUUID();
    const started = performance.now();
    let errorCode: string | undefined;
    if (opts.requestLog) {
      const tell = opts.requestLog;
      res.once('finish', () => tell({ method: req.method ?? 'GET', url: req.url ?? '/', status: res.statusCode, ...(errorCode && { errorCode }), durationMs: performance.now() - started }));
    }
    if (opts.pagesHost && isPagesHost(req.headers.host)) {
      await opts.pagesHost(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
      return;
    }
    try {
      const size = requestLineAndHeaderBytes(req);
      if (size > GATEWAY_MAX_REQUEST_LINE_AND_HEADERS) {
        throw new RequestHeadersTooLargeError(`The request line and header values are ${size} bytes; the gateway takes at most ${GATEWAY_MAX_REQUEST_LINE_AND_HEADERS}.`);
      }
      // A dot segment (`.`, `..`, or either percent-encoded) names no resource of any route: a
      // WHATWG URL would resolve it away and route `/cloudSecrets/.` to the list of secrets.
      if (hasDotSegment(req.url ?? '/')) throw new RouteNotFoundError(`No route for ${req.method} ${(req.url ?? '/').split('?')[0]}: it has a dot segment.`);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const found = match(req.method ?? 'GET', url.pathname);
      if (found.kind === 'none') throw new RouteNotFoundError(`No route for ${req.method} ${url.pathname}.`);
      if (found.kind === 'method') throw new MethodNotAllowedError(found.allowed);
      const body = await readBody(req, res);
      const event = toEvent(req, url, body, found.route, found.pathParameters, requestId);
      if (found.route.auth === 'bearer') {
        event.requestContext = Object.assign(event.requestContext, {
          authorizer: await authorizeJwt(found.route, req.headers.authorization, {
            jwks: await opts.jwks(),
            issuer: opts.issuer,
            audience: opts.audience,
            tenantHint: event.requestContext.domainPrefix,
          }),
        });
      }
      checkInvokeRequest(event, found.route);
      const result = await asOperation(found.route.operationId, () => handlers.get(found.route)!(event));
      checkInvokeResponse(result);
      if (opts.requestLog) errorCode = errorCodeOf(result);
      send(res, result);
    } catch (err) {
      const result = gatewayError(err, requestId);
      errorCode = errorCodeOf(result);
      if (result.statusCode === 500) log().error('gateway error', { requestId, error: err as Error });
      else log().info('gateway refusal', { requestId, status: result.statusCode, errorCode: (err as ApiError).code });
      if (!res.headersSent) send(res, result);
      else res.destroy();
    }
  });
  server.on('clientError', answerClientError);
  // An idle kept-alive connection is closed after 65 s, far longer than clients keep one idle
  // before reusing it (Node's agent: the server's hint less 1 s; the test client: 2 s). The server
  // times idle connections by its own event loop: after a long synchronous stretch (decoding a
  // photo on a loaded machine) an expired timer fires before the request waiting on that very
  // connection is read, and the client gets "socket hang up". With 5 s (Node's default) that
  // happened under load; Node wants the header timeout above it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port, opts.host, () => ok());
  });
  const port = (server.address() as { port: number }).port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

/**
 * Listens on `port` without answering, so nothing else on this machine is given it, until
 * `release`; fails at once (EADDRINUSE) when it is taken already.
 */
export function holdPort(host: string, port: number): Promise<{ release: () => Promise<void> }> {
  return new Promise((ok, fail) => {
    // A caller polling for readiness meanwhile is turned away at once (and tries again), never left hanging.
    const holder = createNetServer((socket) => socket.destroy());
    // Never what keeps the process alive: a start that fails before the release still exits.
    holder.unref();
    holder.once('error', fail);
    holder.listen(port, host, () => ok({ release: () => new Promise<void>((done) => holder.close(() => done())) }));
  });
}

/** Whether a request target's path has a `.` or `..` segment, plain or percent-encoded (`%2e`). */
export function hasDotSegment(target: string): boolean {
  const path = target.split('?')[0]!.split('#')[0]!;
  return path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}
