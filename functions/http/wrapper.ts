import { randomUUID } from 'node:crypto';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z4 from 'zod/v4/core';
import { getConfig } from '../config.js';
import * as z from '../shared/zod.js';
import {
  ApiError,
  InvalidApiKeyError,
  InvalidTokenError,
  BodyTooDeepError,
  MalformedJsonError,
  MissingPermissionError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnsupportedMediaTypeError,
  UnauthorizedError,
  ValidationError,
  toErrorResponse,
  type ErrorDetail,
} from '../errors.js';
import { MAX_JSON_DEPTH, protoKeyPath, readJson } from '../shared/json.js';
import { lenient } from '../shared/lenient.js';
import { isTransientError } from '../shared/aws-errors.js';
import { isPermissionName, qualify, type PermissionName } from '../auth/permissions.js';
import { verifyBearer } from '../auth/jwt.js';
import { signerFor } from '../auth/signer.js';
import { authenticateDirectKey } from '../auth/direct-key.js';
import { log, withLogScope, type LogScope } from '../observability/logger.js';
import { tenantRates } from '../auth/deps.js';
import { tenantFromHost } from './tenant.js';
import { enterTenant, inTenantScope } from '../shared/tenant-scope.js';
import { DEFAULT_MAX_BODY_BYTES, isRateLimited, type Responses, type ResultOf, type RouteDef } from './route.js';

type Out<T> = T extends z4.$ZodType ? z4.output<T> : undefined;

export type AuthContext =
  | { kind: 'none' }
  | { kind: 'apiKey'; secret: string }
  /** A verified caller (the actor, `apikey:{apiKeyId}`): by bearer token, or by an API key used directly on a "B or K" route. */
  | { kind: 'bearer' | 'directKey'; apiKeyId: string; actor: string; permissions: ReadonlySet<PermissionName> };

/** Request headers as API Gateway hands them over (names in lower case). */
export type RawHeaders = Record<string, string | undefined>;

export interface RequestContext<P, Q, B, H = RawHeaders> {
  operationId: string;
  requestId: string;
  /** Empty for routes that have no tenant (`public`). */
  tenantId: string;
  /** `https://{tenant}.{region}.{domain}` as the caller reached it (http and a port locally). */
  origin: string;
  /** Request headers, names in lower case; those the route declares (`request.headers`) validated. */
  headers: H;
  auth: AuthContext;
  path: P;
  query: Q;
  body: B;
  /** A `multipart` route's body as sent, for the operation to parse (and to judge its size itself). */
  upload?: { contentType: string; bytes: Buffer };
  now: Date;
}

/**
 * What an operation returns, whatever its route declares (`ResultOf<R>` is the checked form).
 * `raw`: for non-JSON bodies (CSV, zip, HTML), sent as is with this content type.
 */
export type HandlerResult = ResultOf<Responses>;

export type LambdaHandler = ((event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>) & {
  route: RouteDef;
};

/**
 * Pages: their own inline styles, their own scripts from the service's origin (the face
 * capture's; no inline script, no other origin), images they made on the device (the camera
 * preview, a blob: URL), same-origin form posts and requests (a passkey screen asks for its
 * ceremony), and nothing else (no frames: a custom page step's page adds its one frame origin,
 * show-journey.ts). Images may also come over https: a data form's image
 * components name them (the relying party's logo on its own host). Fonts only from the origin:
 * a theme's (docs/themes.md) are on the tenant host. An image can carry nothing
 * out of the page but its request (no script but the service's own runs on form pages, no
 * referrer is sent), and the page makes no <img> of anything but a form's checked `src`.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; font-src 'self'; img-src 'self' data: blob: https:; media-src blob: mediastream:; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** Pages may use the camera (the face capture), on their own origin only; nothing else. */
const PAGE_PERMISSIONS = 'camera=(self), microphone=(), geolocation=(), payment=(), usb=()';

export const SECURITY_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** Repeated query parameters become arrays (API Gateway would have joined them with commas). */
function parseQuery(raw: string | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(raw ?? '')) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function issuesToDetails(where: string, error: z4.$ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    location: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

function validate<T extends z4.$ZodType | undefined>(schema: T, value: unknown, where: string): Out<T> {
  if (!schema) return undefined as Out<T>;
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) {
    throw new ValidationError(`The request ${where} is not valid.`, issuesToDetails(where, parsed.error));
  }
  return parsed.data as Out<T>;
}

function rawBody(event: APIGatewayProxyEventV2): Buffer {
  return event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
}

/**
 * A file upload: only `multipart/form-data` is taken. Its size is the operation's to judge,
 * so that a person who chose too large a file gets the page again with that said.
 */
function readUpload(event: APIGatewayProxyEventV2): { contentType: string; bytes: Buffer } {
  const contentType = event.headers['content-type'] ?? '';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    throw new UnsupportedMediaTypeError(`Send the file as multipart/form-data, not ${type || 'nothing'}.`);
  }
  return { contentType, bytes: rawBody(event) };
}

function readBody(route: RouteDef, event: APIGatewayProxyEventV2): unknown {
  const raw = rawBody(event);
  const limit = route.request.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (raw.length > limit) {
    throw new (route.request.overLimit ?? PayloadTooLargeError)(`The request body is ${raw.length} bytes; this operation takes at most ${limit}.`);
  }
  if (!route.request.body) return undefined;
  // An absent body reads as `{}`: the spec's "body {}" operations also work with none.
  if (raw.length === 0) return {};
  const type = (event.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (route.request.form) {
    if (type !== 'application/x-www-form-urlencoded') {
      throw new UnsupportedMediaTypeError(`Send the form as application/x-www-form-urlencoded, not ${type || 'nothing'}.`);
    }
    // A field sent twice keeps its last value, as a page's form never sends one twice.
    return refuseProtoKeys(Object.fromEntries(new URLSearchParams(raw.toString('utf8'))));
  }
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    throw new UnsupportedMediaTypeError(`Send the body as application/json, not ${type}.`);
  }
  const read = readJson(raw.toString('utf8'));
  if (read.ok) return read.value;
  const { problem } = read;
  if (problem.kind === 'depth') throw new BodyTooDeepError(`The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`);
  if (problem.kind === 'proto') throw protoKeyRefusal(problem.path);
  throw new MalformedJsonError(`The request body is not valid JSON: ${problem.message}`);
}

/**
 * A JSON body as the family's clients send it (shared/lenient.ts): numbers and booleans as
 * strings, scalars where strings are taken, `null` for absent fields. A top-level `tenantId`
 * (Spring clients put it in bodies) is ignored when it names the host's tenant; naming another
 * is refused, since the host decides the tenant and a client that believes otherwise is wrong.
 */
function readLeniently(route: RouteDef, body: unknown, tenantId: string): unknown {
  if (!route.request.body || route.request.form || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { tenantId: named, ...rest } = body as Record<string, unknown>;
  if (Object.hasOwn(body, 'tenantId') && named !== null && String(named) !== tenantId) {
    throw new ValidationError('The body names another tenant than the host\'s.', [
      { location: 'body.tenantId', message: `names tenant ${JSON.stringify(named).slice(0, 80)}, not this host's tenant ${tenantId}` },
    ]);
  }
  return lenient(route.request.body, rest);
}

/** A body with a key named `__proto__` anywhere is refused at that key (shared/json.ts says why). */
function refuseProtoKeys<T>(body: T): T {
  const at = protoKeyPath(body);
  if (at !== undefined) throw protoKeyRefusal(at);
  return body;
}

function protoKeyRefusal(path: string[]): ValidationError {
  return new ValidationError('The request body has a key named __proto__, which cannot be stored; use another name.', [
    { location: ['body', ...path].join('.'), message: 'a key named __proto__ cannot be stored' },
  ]);
}

/** API Gateway sets X-Forwarded-Proto; the local gateway serves plain http. */
function originOf(event: APIGatewayProxyEventV2): string {
  const proto = event.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${event.headers.host ?? event.requestContext?.domainName ?? 'localhost'}`;
}

/** Who acted, as createdBy fields and events (`actor`) name it: `apikey:{id}` for verified callers. */
export function actorOf(auth: AuthContext): string {
  return auth.kind === 'bearer' || auth.kind === 'directKey' ? auth.actor : 'anonymous';
}

/** The API key header, under any of the names the spec lists (API Gateway lowercases them). */
export function apiKeyHeader(headers: APIGatewayProxyEventV2['headers']): string | undefined {
  return headers['x-api-key'] ?? headers['x-apikey'] ?? undefined;
}

/**
 * Claims as the JWT authorizer hands them over. On AWS the signature, issuer, audience, expiry
 * and route scope were checked before the Lambda ran; here the tenant and permission are checked
 * against the host, which the authorizer cannot do.
 */
function bearerAuth(route: RouteDef, event: APIGatewayProxyEventV2, tenantId: string): AuthContext {
  const jwt = (event.requestContext as { authorizer?: { jwt?: { claims?: Record<string, unknown> } } }).authorizer?.jwt;
  return claimsAuth(route, jwt?.claims, tenantId);
}

function claimsAuth(route: RouteDef, claims: Record<string, unknown> | undefined, tenantId: string): AuthContext {
  if (!claims || typeof claims.sub !== 'string' || typeof claims.tid !== 'string' || typeof claims.scope !== 'string') {
    throw new InvalidTokenError();
  }
  if (claims.tid !== tenantId) {
    throw new InvalidTokenError('The bearer token was issued for another tenant.');
  }
  const permissions = new Set(claims.scope.split(' ').filter(isPermissionName));
  if (route.permission && !permissions.has(route.permission)) {
    throw new MissingPermissionError(qualify(tenantId, route.permission));
  }
  return { kind: 'bearer', apiKeyId: claims.sub, actor: `apikey:${claims.sub}`, permissions };
}

/**
 * "B or K" routes have no gateway authorizer, so a bearer token is verified here, exactly as
 * strictly as the authorizer would; an API key is checked against its stored hash, status,
 * expiry, permitted operations and permissions.
 */
async function bearerOrKeyAuth(route: RouteDef, event: APIGatewayProxyEventV2, tenantId: string, now: Date): Promise<AuthContext> {
  const authorization = event.headers.authorization;
  if (authorization !== undefined) {
    const config = getConfig();
    const claims = await verifyBearer(authorization, {
      jwks: { keys: [await signerFor(config.SIGNING_KEY).publicJwk()] },
      issuer: config.TOKEN_ISSUER,
      audience: config.TOKEN_AUDIENCE,
    });
    return claimsAuth(route, claims as Record<string, unknown>, tenantId);
  }
  const secret = apiKeyHeader(event.headers);
  if (!secret) throw new UnauthorizedError('Send a bearer token (Authorization: Bearer) or an API key (X-API-Key).');
  return authenticateDirectKey(tenantId, secret, route.operationId, route.permission!, now);
}


/** The HTML page a person sees when a page request fails; the journey area supplies it (pageHandler). */
/** An `html` route's page for a failure: its status, the request, and what failed (what the page may say about it). */
export type ErrorPage = (status: number, event: APIGatewayProxyEventV2, err: unknown) => string;

export interface HandlerOptions {
  /** Required on `html` routes: their errors are answered with this page, not a JSON body. */
  errorPage?: ErrorPage;
}

/** What one request carries from step to step (middy's per-request `internal`). */
interface Flow {
  event: APIGatewayProxyEventV2;
  started: number;
  requestId: string;
  correlationId: string;
  coldStart: boolean;
  tenantId: string;
  auth: AuthContext;
  /** The step running: named in the log when it fails unexpectedly. */
  step: string;
  errorCode?: string;
}

type Step = Request<unknown, unknown, Error, Context>;
/** The operation is handed only its RequestContext (middy passes the event); its flow is found by it. */
const flows = new WeakMap<object, Flow>();
const flowOf = (request: Step) => request.internal as unknown as Flow;

/**
 * A step of the chain: records its name on the request before it runs, so that an unexpected
 * failure is logged with the step it happened in (the stack names the function too).
 */
function named<F extends (request: Step) => unknown>(fn: F): F {
  const run = (request: Step) => {
    // While an error is being answered, the step that threw stays the one named.
    if (!request.error) flowOf(request).step = fn.name;
    return fn(request);
  };
  return Object.defineProperty(run, 'name', { value: fn.name }) as unknown as F;
}

/** The scope every log record of this request carries (request id, correlation id, tenant, operation). */
function scopeOf(flow: Flow, route: RouteDef): LogScope {
  return {
    requestId: flow.requestId,
    correlationId: flow.correlationId,
    tenantId: flow.tenantId || undefined,
    operationId: route.operationId,
    cold_start: flow.coldStart,
  };
}

// --- The steps, in the order a request meets them -------------------------------------------

/** Access log: times the request and writes one line when it is answered, whatever happened. */
function accessLog(route: RouteDef, state: { cold: boolean }): MiddlewareObj {
  return {
    before: named(function startRequest(request: Step) {
      const event = request.event as APIGatewayProxyEventV2;
      const requestId = event.requestContext?.requestId ?? randomUUID();
      const flow = flowOf(request);
      Object.assign(flow, {
        event,
        started: performance.now(),
        requestId,
        // A caller's own id for the work this request belongs to; only a short token-like value is kept.
        correlationId: /^[\w.:-]{1,128}$/.test(event.headers?.['x-correlation-id'] ?? '') ? event.headers['x-correlation-id']! : requestId,
        coldStart: state.cold,
        tenantId: '',
        auth: { kind: 'none' },
      } satisfies Omit<Flow, 'step'>);
      state.cold = false;
    }),
    after: named(function writeAccessLog(request: Step) {
      const flow = flowOf(request);
      const response = request.response as APIGatewayProxyStructuredResultV2;
      log().info('request', {
        ...scopeOf(flow, route),
        route: `${route.method} ${route.path}`,
        status: response.statusCode,
        errorCode: flow.errorCode,
        durationMs: Math.round(performance.now() - flow.started),
      });
    }),
    get onError() {
      return this.after;
    },
  };
}

/**
 * Security headers on every answer (pages get their own CSP and camera permission), and the
 * handler's result turned into the API Gateway (payload 2.0) response.
 */
const securityHeaders: MiddlewareObj = {
  after: named(function secureResponse(request: Step) {
    const flow = flowOf(request);
    const result = request.response as HandlerResult;
    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'x-request-id': flow.requestId };
    for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = v;
    let response: APIGatewayProxyStructuredResultV2;
    if (result.raw) {
      // A page that brings its own policy (the console's, stricter) keeps it; the others get the journey pages'.
      const own = result.headers ? Object.keys(result.headers).map((k) => k.toLowerCase()) : [];
      if (result.raw.contentType.startsWith('text/html')) {
        if (!own.includes('content-security-policy')) headers['content-security-policy'] = PAGE_CSP;
        if (!own.includes('permissions-policy')) headers['permissions-policy'] = PAGE_PERMISSIONS;
      }
      const isText = typeof result.raw.body === 'string';
      response = {
        statusCode: result.status,
        headers: { ...headers, 'content-type': result.raw.contentType },
        body: isText ? (result.raw.body as string) : (result.raw.body as Buffer).toString('base64'),
        isBase64Encoded: !isText,
      };
    } else if (result.body === undefined) {
      response = { statusCode: result.status, headers };
    } else {
      response = { statusCode: result.status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(result.body) };
    }
    request.response = response;
  }),
  get onError() {
    return this.after;
  },
};

/** The answer for a failure: the error's own status and body, or a bare 500 for anything unexpected. */
function errorResult(route: RouteDef, err: unknown, flow: Flow, errorPage: ErrorPage | undefined): HandlerResult {
  const mapped = toErrorResponse(err);
  flow.errorCode = mapped.body.code;
  return route.html && errorPage
    ? { status: mapped.statusCode, headers: mapped.headers, raw: { contentType: 'text/html; charset=utf-8', body: errorPage(mapped.statusCode, flow.event, err) } }
    : { status: mapped.statusCode, body: mapped.body, headers: mapped.headers };
}

/** Error mapping: an API error keeps its status and body; anything else is logged with its step and answered 500 with no detail. */
function errorMapping(route: RouteDef, errorPage: ErrorPage | undefined): MiddlewareObj {
  return {
    onError: named(function mapError(request: Step) {
      const flow = flowOf(request);
      // A throttle or timeout of an AWS call (after the SDK's own retries) is no fault of the
      // request: 503 with Retry-After, which any client retries, rather than a bare 500.
      const err =
        !(request.error instanceof ApiError) && isTransientError(request.error)
          ? new ServiceUnavailableError('An AWS service this operation needs throttled it or did not answer in time; send the same request again.', undefined, { cause: request.error })
          : request.error;
      if (!(err instanceof ApiError) || !err.expose) {
        log().error('unhandled error', { ...scopeOf(flow, route), step: flow.step, error: err as Error });
      }
      request.response = errorResult(route, err, flow, errorPage);
    }),
  };
}

/** Tenant: from the host (`{tenant}.{region}.{domain}`); none on public routes. */
function tenant(route: RouteDef): MiddlewareObj {
  return {
    before: named(function resolveTenant(request: Step) {
      const flow = flowOf(request);
      if (route.auth === 'public') return;
      const { event } = flow;
      flow.tenantId = tenantFromHost(event.requestContext?.domainName ?? event.headers.host, getConfig(), {
        scheme: event.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http',
        host: event.headers.host,
        path: event.rawPath,
      });
      // From here on, storage calls AWS as this tenant (functions/store/client.ts).
      enterTenant(flow.tenantId);
    }),
  };
}

/** Authentication, by the route's kind: claims the gateway checked, a token or key checked here, or the key handed to the operation. */
function auth(route: RouteDef): MiddlewareObj {
  return {
    before: named(async function authenticate(request: Step) {
      const flow = flowOf(request);
      const { event, tenantId } = flow;
      if (route.auth === 'bearer') flow.auth = bearerAuth(route, event, tenantId);
      if (route.auth === 'bearerOrApiKey') flow.auth = await bearerOrKeyAuth(route, event, tenantId, new Date());
      if (route.auth === 'apiKey') {
        const secret = apiKeyHeader(event.headers);
        if (!secret) throw new InvalidApiKeyError('Send the API key in the X-API-Key header.');
        flow.auth = { kind: 'apiKey', secret };
      }
    }),
  };
}

/**
 * The tenant's rate limit (TENANT_RATE_LIMIT requests a second), counted once the request is
 * known to be the tenant's (route.ts `isRateLimited`) and before its body is even parsed. The
 * stage's throttle is shared by every tenant; this is each tenant's own share of it, so one
 * tenant's burst answers that tenant 429 and leaves the others their capacity. If the count
 * itself fails (the table throttling), the request goes on: the limit protects capacity and must
 * not become an outage of its own.
 */
function rateLimit(route: RouteDef): MiddlewareObj {
  return {
    before: named(async function limitTenantRate(request: Step) {
      const limit = getConfig().TENANT_RATE_LIMIT;
      if (limit === undefined || !isRateLimited(route)) return;
      const { tenantId } = flowOf(request);
      let within: boolean;
      try {
        within = await tenantRates.take(tenantId, new Date(), limit);
      } catch (err) {
        log().warn('tenant rate not counted', { error: err as Error });
        return;
      }
      if (!within) throw new TooManyRequestsError(`This tenant made more than ${limit} requests this second; retry after a second.`);
    }),
  };
}

/**
 * Request parsing and validation: body size, JSON or form parsing, and the route's zod schemas
 * for path, query, body and headers. The event becomes the operation's typed RequestContext.
 */
function requestValidation(route: RouteDef): MiddlewareObj {
  return {
    before: named(function parseRequest(request: Step) {
      const flow = flowOf(request);
      const { event } = flow;
      const upload = route.request.multipart ? readUpload(event) : undefined;
      const body = upload ? undefined : readBody(route, event);
      const ctx: RequestContext<unknown, unknown, unknown, unknown> = {
        operationId: route.operationId,
        requestId: flow.requestId,
        tenantId: flow.tenantId,
        origin: originOf(event),
        headers: route.request.headers ? validate(route.request.headers, event.headers ?? {}, 'header') : event.headers,
        auth: flow.auth,
        path: validate(route.request.path, event.pathParameters ?? {}, 'path'),
        query: validate(route.request.query, parseQuery(event.rawQueryString), 'query'),
        body: validate(route.request.body, readLeniently(route, body, flow.tenantId), 'body'),
        ...(upload ? { upload } : {}),
        now: new Date(),
      };
      flows.set(ctx, flow);
      request.event = ctx;
    }),
  };
}

/**
 * Response validation (VALIDATE_RESPONSES=1, as the integration suite runs the service): the
 * status must be one the route declares and a JSON body must match that response's schema, so
 * that the OpenAPI document generated from the same declarations is what the service does. A
 * mismatch is logged with the operation and zod's issues and answered 500.
 */
function responseValidation(route: RouteDef, errorPage: ErrorPage | undefined): MiddlewareObj {
  return {
    after: named(function checkResponse(request: Step) {
      if (process.env.VALIDATE_RESPONSES !== '1') return;
      const flow = flowOf(request);
      const result = request.response as HandlerResult;
      const problem = responseProblem(route, result);
      if (!problem) return;
      log().error('response does not match its declaration', { ...scopeOf(flow, route), status: result.status, problem });
      request.response = errorResult(route, new Error(problem), flow, errorPage);
    }),
    get onError() {
      return this.after;
    },
  };
}

/** Why `result` is not a response `route` declares, or undefined when it is one. */
export function responseProblem(route: RouteDef, result: HandlerResult): string | undefined {
  // Any operation may fail unexpectedly; that answer is the wrapper's, the same everywhere.
  if (result.status === 500) return undefined;
  const declared = route.responses[result.status];
  if (!declared) return `status ${result.status} is not declared (declared: ${Object.keys(route.responses).join(', ')})`;
  if (result.raw) {
    if (!declared.contentType) return `a ${result.raw.contentType} body where the declaration says ${declared.schema ? 'JSON' : 'no body'}`;
    // `*/*`: a route that serves stored files of several types (a theme's fonts and images).
    if (declared.contentType !== '*/*' && !result.raw.contentType.startsWith(declared.contentType)) return `a ${result.raw.contentType} body where the declaration says ${declared.contentType}`;
    return undefined;
  }
  if (result.body === undefined) return declared.schema ? 'no body where the declaration has one' : undefined;
  if (!declared.schema || declared.contentType) return `a JSON body where the declaration says ${declared.contentType ?? 'no body'}`;
  // As the client will read it: dates as strings, undefined fields gone.
  const parsed = z.safeParse(declared.schema, JSON.parse(JSON.stringify(result.body)));
  if (parsed.success) return undefined;
  return parsed.error.issues.map((i) => `${['body', ...i.path.map(String)].join('.')}: ${i.message}`).join('; ');
}

/**
 * The one wrapper every API handler uses: a chain of named steps on @middy/core (each a named
 * function, so a stack trace and the error log name the step that failed):
 *
 *   startRequest → resolveTenant → authenticate → limitTenantRate → parseRequest → the operation
 *     → checkResponse → secureResponse → writeAccessLog        (mapError first when a step throws)
 *
 * The operation's result is checked against the route's declared responses at compile time
 * (`ResultOf`) and, under test, at run time (checkResponse).
 */
export function apiHandler<
  P extends z4.$ZodType | undefined,
  Q extends z4.$ZodType | undefined,
  B extends z4.$ZodType | undefined,
  H extends z4.$ZodType | undefined,
  R extends Responses,
  // `const`: keeps `status: 200` a literal, to be checked against the declared statuses (a
  // contextual type built from R alone lets TypeScript widen it to number).
  const T extends ResultOf<R>,
>(
  route: RouteDef<P, Q, B, H, R>,
  operation: (ctx: RequestContext<Out<P>, Out<Q>, Out<B>, H extends z4.$ZodType ? Out<H> & RawHeaders : RawHeaders>) => Promise<T>,
  options: HandlerOptions = {},
): LambdaHandler {
  const def = route as unknown as RouteDef;
  if (def.html && !options.errorPage) throw new Error(`${def.operationId} answers with pages: give it an error page (journey/page-handler.ts)`);
  const state = { cold: true };
  const chain = middy(async function runOperation(ctx: object) {
    const flow = flows.get(ctx)!;
    flow.step = 'runOperation';
    // Records the operation writes (and the code it awaits) carry the request's scope.
    return withLogScope(scopeOf(flow, def), () => operation(ctx as never));
  });
  // middy runs `before`s in this order and `after`s / `onError`s in the reverse one.
  chain
    .use(accessLog(def, state))
    .use(securityHeaders)
    .use(responseValidation(def, options.errorPage))
    .use(errorMapping(def, options.errorPage))
    .use(tenant(def))
    .use(auth(def))
    .use(rateLimit(def))
    .use(requestValidation(def));
  // Each request in a tenant scope of its own, named by resolveTenant.
  const handler = (event: APIGatewayProxyEventV2, context?: Context) =>
    inTenantScope(() => chain(event, context ?? ({} as Context)) as Promise<APIGatewayProxyStructuredResultV2>);
  return Object.assign(handler, { route: def });
}
