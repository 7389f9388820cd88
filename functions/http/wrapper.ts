import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type * as z4 from 'zod/v4/core';
import { getConfig } from '../config.js';
import * as z from '../shared/zod.js';
import {
  ApiError,
  InvalidApiKeyError,
  InvalidTokenError,
  MalformedJsonError,
  MissingPermissionError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  UnauthorizedError,
  ValidationError,
  toErrorResponse,
  type ErrorDetail,
} from '../errors.js';
import { isPermissionName, qualify, type PermissionName } from '../auth/permissions.js';
import { verifyBearer } from '../auth/jwt.js';
import { signerFor } from '../auth/signer.js';
import { authenticateDirectKey } from '../auth/direct-key.js';
import { log } from './log.js';
import { pickLanguage } from '../journey/messages/index.js';
import { renderGone } from '../journey/screens/gone.js';
import { renderTrouble } from '../journey/screens/trouble.js';
import { tenantFromHost } from './tenant.js';
import { DEFAULT_MAX_BODY_BYTES, type RouteDef } from './route.js';

type Out<T> = T extends z4.$ZodType ? z4.output<T> : undefined;

export type AuthContext =
  | { kind: 'none' }
  | { kind: 'apiKey'; secret: string }
  /** A verified caller: by bearer token, or by an API key used directly on a "B or K" route. */
  | { kind: 'bearer' | 'directKey'; apiKeyId: string; principal: string; permissions: ReadonlySet<PermissionName> };

export interface RequestContext<P, Q, B> {
  operationId: string;
  requestId: string;
  /** Empty for routes that have no tenant (`public`). */
  tenantId: string;
  /** `https://{tenant}.{region}.{domain}` as the caller reached it (http and a port locally). */
  origin: string;
  /** Request headers, names in lower case (for operation-level headers such as Idempotency-Key). */
  headers: Record<string, string | undefined>;
  auth: AuthContext;
  path: P;
  query: Q;
  body: B;
  /** A `multipart` route's body as sent, for the operation to parse (and to judge its size itself). */
  upload?: { contentType: string; bytes: Buffer };
  now: Date;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** For non-JSON bodies (CSV, zip, HTML): sent as is with this content type. */
  raw?: { contentType: string; body: string | Buffer };
}

export type LambdaHandler = ((event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>) & {
  route: RouteDef;
};

/**
 * Pages: their own inline styles, their own scripts from the service's origin (the face
 * capture's; no inline script, no other origin), images they made on the device (the camera
 * preview, a blob: URL), same-origin form posts and requests (a passkey screen asks for its
 * ceremony), and nothing else (no frames).
 */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data: blob:; media-src blob: mediastream:; " +
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
    throw new PayloadTooLargeError(`The request body is ${raw.length} bytes; this operation takes at most ${limit}.`);
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
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  }
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    throw new UnsupportedMediaTypeError(`Send the body as application/json, not ${type}.`);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new MalformedJsonError(`The request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** The page a person sees when a journey request fails: no detail beyond "this link does not work". */
function errorPage(status: number, event: APIGatewayProxyEventV2): string {
  const lang = pickLanguage(new URLSearchParams(event.rawQueryString ?? '').get('lang') ?? undefined);
  return status >= 500 ? renderTrouble(lang) : renderGone(lang);
}

/** API Gateway sets X-Forwarded-Proto; the local gateway serves plain http. */
function originOf(event: APIGatewayProxyEventV2): string {
  const proto = event.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${event.headers.host ?? event.requestContext?.domainName ?? 'localhost'}`;
}

/** Who acted, for createdBy fields: `apikey:{id}` for verified callers. */
export function principalOf(auth: AuthContext): string {
  return auth.kind === 'bearer' || auth.kind === 'directKey' ? auth.principal : 'anonymous';
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
  return { kind: 'bearer', apiKeyId: claims.sub, principal: `apikey:${claims.sub}`, permissions };
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

/**
 * The one wrapper every API handler uses: tenant from the host, body size and JSON parsing,
 * zod validation of path, query and body, authentication, the operation, error mapping,
 * security headers and one access log line per request.
 */
export function apiHandler<P extends z4.$ZodType | undefined, Q extends z4.$ZodType | undefined, B extends z4.$ZodType | undefined>(
  route: RouteDef<P, Q, B>,
  operation: (ctx: RequestContext<Out<P>, Out<Q>, Out<B>>) => Promise<HandlerResult>,
): LambdaHandler {
  const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const started = performance.now();
    const requestId = event.requestContext?.requestId ?? randomUUID();
    let tenantId = '';
    let result: HandlerResult;
    let errorCode: string | undefined;
    try {
      const config = getConfig();
      if (route.auth !== 'public') {
        tenantId = tenantFromHost(event.requestContext?.domainName ?? event.headers.host, config);
      }
      let auth: AuthContext = { kind: 'none' };
      if (route.auth === 'bearer') auth = bearerAuth(route, event, tenantId);
      if (route.auth === 'bearerOrApiKey') auth = await bearerOrKeyAuth(route, event, tenantId, new Date());
      if (route.auth === 'apiKey') {
        const secret = apiKeyHeader(event.headers);
        if (!secret) throw new InvalidApiKeyError('Send the API key in the X-API-Key header.');
        auth = { kind: 'apiKey', secret };
      }
      const upload = route.request.multipart ? readUpload(event) : undefined;
      const body = upload ? undefined : readBody(route, event);
      const ctx: RequestContext<Out<P>, Out<Q>, Out<B>> = {
        operationId: route.operationId,
        requestId,
        tenantId,
        origin: originOf(event),
        headers: event.headers,
        auth,
        path: validate(route.request.path as P, event.pathParameters ?? {}, 'path'),
        query: validate(route.request.query as Q, parseQuery(event.rawQueryString), 'query'),
        body: validate(route.request.body as B, body, 'body'),
        ...(upload ? { upload } : {}),
        now: new Date(),
      };
      result = await operation(ctx);
    } catch (err) {
      const mapped = toErrorResponse(err);
      errorCode = mapped.body.code;
      if (!(err instanceof ApiError) || !err.expose) {
        // Unexpected: the stack goes to the log, the client gets a bare 500.
        log().error('unhandled error', { operationId: route.operationId, requestId, error: err as Error });
      }
      result = route.html
        ? { status: mapped.statusCode, headers: mapped.headers, raw: { contentType: 'text/html; charset=utf-8', body: errorPage(mapped.statusCode, event) } }
        : { status: mapped.statusCode, body: mapped.body, headers: mapped.headers };
    }

    log().info('request', {
      operationId: route.operationId,
      route: `${route.method} ${route.path}`,
      requestId,
      tenantId: tenantId || undefined,
      status: result.status,
      errorCode,
      durationMs: Math.round(performance.now() - started),
    });

    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'x-request-id': requestId };
    for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = v;
    if (result.raw) {
      if (result.raw.contentType.startsWith('text/html')) {
        headers['content-security-policy'] = PAGE_CSP;
        headers['permissions-policy'] = PAGE_PERMISSIONS;
      }
      const isText = typeof result.raw.body === 'string';
      return {
        statusCode: result.status,
        headers: { ...headers, 'content-type': result.raw.contentType },
        body: isText ? (result.raw.body as string) : (result.raw.body as Buffer).toString('base64'),
        isBase64Encoded: !isText,
      };
    }
    if (result.body === undefined) return { statusCode: result.status, headers };
    return {
      statusCode: result.status,
      headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(result.body),
    };
  };
  return Object.assign(handler, { route: route as unknown as RouteDef });
}
