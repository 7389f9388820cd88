/**
 * The one error taxonomy. Every wire error is a subclass named after it, with a fixed HTTP
 * status and a stable `code`. Only errors marked `expose` reach the client with their message;
 * anything else becomes a bare 500 so internals never leak.
 */
export interface ErrorDetail {
  /** Where the problem is: `body.name`, `query.size`, `header.x-api-key`, ... */
  location: string;
  message: string;
}

export interface ErrorBody {
  code: string;
  message: string;
  details?: ErrorDetail[];
}

export abstract class ApiError extends Error {
  abstract readonly statusCode: number;
  abstract readonly code: string;
  readonly expose: boolean = true;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers, e.g. `WWW-Authenticate` or `Allow`. */
  readonly headers: Record<string, string> = {};

  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }

  toBody(): ErrorBody {
    return this.details?.length
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

export class ValidationError extends ApiError {
  readonly statusCode = 400;
  readonly code = 'VALIDATION_FAILED';
}

export class MalformedJsonError extends ApiError {
  readonly statusCode = 400;
  readonly code = 'MALFORMED_JSON';
}

/** The spec keeps bad input at 400, so an oversized body is a 400 too (not 413). */
export class PayloadTooLargeError extends ApiError {
  readonly statusCode = 400;
  readonly code = 'PAYLOAD_TOO_LARGE';
}

export class UnsupportedMediaTypeError extends ApiError {
  readonly statusCode = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

export class InvalidHostError extends ApiError {
  readonly statusCode = 400;
  readonly code = 'INVALID_HOST';
}

export class UnauthorizedError extends ApiError {
  readonly statusCode = 401;
  readonly code: string = 'UNAUTHORIZED';
  constructor(message = 'Authentication is required.', details?: ErrorDetail[]) {
    super(message, details);
    this.headers['WWW-Authenticate'] = 'Bearer';
  }
}

export class InvalidTokenError extends UnauthorizedError {
  override readonly code = 'INVALID_TOKEN';
  constructor(message = 'The bearer token is missing, malformed, expired or not valid here.') {
    super(message);
    this.headers['WWW-Authenticate'] = 'Bearer error="invalid_token"';
  }
}

/** One message for unknown, mistyped and deleted keys: a caller learns nothing about which. */
export class InvalidApiKeyError extends UnauthorizedError {
  override readonly code = 'INVALID_API_KEY';
  constructor(message = 'The API key is missing or not valid for this tenant.') {
    super(message);
    this.headers['WWW-Authenticate'] = 'ApiKey';
  }
}

export class ApiKeyBlockedError extends UnauthorizedError {
  override readonly code = 'API_KEY_BLOCKED';
  constructor() {
    super('The API key is blocked.');
  }
}

export class ApiKeyArchivedError extends UnauthorizedError {
  override readonly code = 'API_KEY_ARCHIVED';
  constructor() {
    super('The API key is archived.');
  }
}

export class ApiKeyExpiredError extends UnauthorizedError {
  override readonly code = 'API_KEY_EXPIRED';
  constructor() {
    super('The API key has expired.');
  }
}

export class ApiKeyOperationNotPermittedError extends UnauthorizedError {
  override readonly code = 'API_KEY_OPERATION_NOT_PERMITTED';
  constructor(operation: string) {
    super(`The API key is not permitted to call ${operation} directly.`);
  }
}

export class ForbiddenError extends ApiError {
  readonly statusCode = 403;
  readonly code: string = 'FORBIDDEN';
}

export class MissingPermissionError extends ForbiddenError {
  override readonly code = 'MISSING_PERMISSION';
  constructor(permission: string) {
    super(`The token does not carry the permission ${permission}.`);
  }
}

export class PermissionEscalationError extends ForbiddenError {
  override readonly code = 'PERMISSION_ESCALATION';
  constructor(permissions: string[]) {
    super(`A key cannot be given permissions its creator does not hold: ${permissions.join(', ')}.`);
  }
}

export class NotFoundError extends ApiError {
  readonly statusCode = 404;
  readonly code: string = 'NOT_FOUND';
}

export class ApiKeyNotFoundError extends NotFoundError {
  override readonly code = 'API_KEY_NOT_FOUND';
  constructor(id: string) {
    super(`API key ${id} was not found.`);
  }
}

export class RouteNotFoundError extends NotFoundError {
  override readonly code = 'ROUTE_NOT_FOUND';
}

export class MethodNotAllowedError extends ApiError {
  readonly statusCode = 405;
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(allowed: string[]) {
    super(`Method not allowed here; use ${allowed.join(', ')}.`);
    this.headers['Allow'] = allowed.join(', ');
  }
}

export class ConflictError extends ApiError {
  readonly statusCode = 409;
  readonly code: string = 'CONFLICT';
}

export class ConcurrentUpdateError extends ConflictError {
  override readonly code = 'CONCURRENT_UPDATE';
  constructor() {
    super('The resource was changed by another request; read it again and retry.');
  }
}

export class InvalidTransitionError extends ApiError {
  readonly statusCode = 400;
  readonly code = 'INVALID_STATUS_TRANSITION';
}

export class InternalError extends ApiError {
  readonly statusCode = 500;
  readonly code = 'INTERNAL_ERROR';
  override readonly expose = false;
}

const INTERNAL_BODY: ErrorBody = { code: 'INTERNAL_ERROR', message: 'An internal error occurred.' };

/** The one mapper: exposed API errors keep their body, anything else becomes a bare 500. */
export function toErrorResponse(err: unknown): {
  statusCode: number;
  body: ErrorBody;
  headers: Record<string, string>;
} {
  if (err instanceof ApiError && err.expose) {
    return { statusCode: err.statusCode, body: err.toBody(), headers: err.headers };
  }
  return { statusCode: 500, body: INTERNAL_BODY, headers: {} };
}
