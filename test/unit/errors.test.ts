import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConflictError,
  ERRORS,
  ERROR_DOCS,
  ForbiddenError,
  InternalError,
  InvalidApiKeyError,
  InvalidTokenError,
  MethodNotAllowedError,
  NotFoundError,
  OPERATOR_ONLY_CODES,
  UnauthorizedError,
  ValidationError,
  apiError,
  detailsWithin,
  httpErrorCodes,
  toErrorResponse,
  type ErrorCode,
} from '../../functions/errors.js';
import { IdentityStoreNotFoundError } from '../../functions/identity-store/stores/stores.js';
import { StepNotWaitingError } from '../../functions/journey/steps.js';
import { ProcessTokenUnusableError } from '../../functions/process-manager/instances/instances.js';
import { buildOpenApiDocument } from '../../functions/platform/openapi-document.js';
import { routeList } from '../../functions/routes.js';
import { ERROR_DOCS_FILE, withErrorTable } from '../../lib/error-docs.js';

const codes = Object.keys(ERRORS) as ErrorCode[];
const FAMILIES = { 401: UnauthorizedError, 403: ForbiddenError, 404: NotFoundError, 409: ConflictError } as const;

describe('the error catalogue', () => {
  it('derives for every code a class of its status family, with its status, default message and headers', () => {
    for (const code of codes) {
      const spec = ERRORS[code];
      const err = new (apiError(code))();
      expect(err, code).toBeInstanceOf(ApiError);
      const family = FAMILIES[spec.status as keyof typeof FAMILIES];
      if (family) expect(err, code).toBeInstanceOf(family);
      expect(err).toMatchObject({ code, statusCode: spec.status, message: spec.message });
      expect(err.headers).toEqual('headers' in spec ? spec.headers : {});
      if (spec.status === 401) expect(err.headers['WWW-Authenticate'], code).toBeDefined();
    }
  });

  it('documents every code, and only those', () => {
    expect(Object.keys(ERROR_DOCS)).toEqual(codes);
    for (const code of codes) expect(ERROR_DOCS[code].length, code).toBeGreaterThan(0);
  });

  it('keeps the classes other code relies on where they were', () => {
    expect(new IdentityStoreNotFoundError('s')).toBeInstanceOf(NotFoundError);
    expect(new IdentityStoreNotFoundError('s').message).toBe('Identity store s was not found.');
    expect(new StepNotWaitingError('m')).toMatchObject({ code: 'STEP_NOT_WAITING', statusCode: 409, name: 'StepNotWaitingError' });
    expect(new ProcessTokenUnusableError('PROCESS_TOKEN_EXPIRED', 'm')).toMatchObject({ code: 'PROCESS_TOKEN_EXPIRED', statusCode: 409 });
    expect(new InvalidTokenError().headers).toEqual({ 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    expect(new InvalidApiKeyError()).toBeInstanceOf(UnauthorizedError);
    expect(new InvalidApiKeyError().headers).toEqual({ 'WWW-Authenticate': 'ApiKey' });
    expect(new MethodNotAllowedError(['GET', 'POST']).headers).toEqual({ Allow: 'GET, POST' });
  });

  it('keeps a cause for the log and never sends it', () => {
    const low = new Error('connection reset by 10.0.0.7');
    const exposed = new ValidationError('The request is not valid.', undefined, { cause: low });
    expect(exposed.cause).toBe(low);
    expect(JSON.stringify(toErrorResponse(exposed))).not.toContain('10.0.0.7');
    const hidden = new InternalError('database password is hunter2', undefined, { cause: low });
    expect(hidden.expose).toBe(false);
    expect(toErrorResponse(hidden)).toEqual({ statusCode: 500, body: { code: 'INTERNAL_ERROR', message: 'An internal error occurred.' }, headers: {} });
  });
});

describe('the details of an error body', () => {
  it('lists every detail, past any count: a thousand problems are a thousand details', () => {
    const details = Array.from({ length: 1000 }, (_, i) => ({ location: `bpmn.Task_${i}`, message: `bpmn:ServiceTask "Task_${i}": no such bean` }));
    const body = toErrorResponse(new ValidationError('The request is not valid.', details)).body;
    expect(body.details).toHaveLength(1000);
    expect(body.details).toEqual(details);
  });

  it('stops within its byte budget, the last detail counting those left out', () => {
    const big = 'x'.repeat(300);
    const details = Array.from({ length: 10 }, (_, i) => ({ location: `bpmn.T${i}`, message: big }));
    const one = Buffer.byteLength(JSON.stringify(details[0])) + 1;
    const listed = detailsWithin(details, 2 + one * 4);
    expect(listed).toHaveLength(5);
    expect(listed.slice(0, 4)).toEqual(details.slice(0, 4));
    expect(listed[4]).toEqual({ location: 'bpmn.T4', message: expect.stringMatching(/^6 more problems from here on, not listed/) });
    expect(detailsWithin(details, 2 + one * 10)).toEqual(details);
  });
});

describe('the generated docs', () => {
  it('docs/errors.md has the error table of the catalogue (npm run docs:errors rewrites it)', () => {
    const page = readFileSync(join(resolve(import.meta.dirname, '../..'), ERROR_DOCS_FILE), 'utf8');
    expect(withErrorTable(page), `${ERROR_DOCS_FILE} error table is stale: run npm run docs:errors`).toBe(page);
    for (const code of codes) expect(page, code).toContain(`\`${code}\``);
  });

  it('the OpenAPI Error schema lists exactly the HTTP codes of the catalogue', () => {
    const doc = buildOpenApiDocument(routeList) as { components: { schemas: Record<string, { properties: { code: { enum: string[] } } }> } };
    expect(doc.components.schemas.Error!.properties.code.enum).toEqual(httpErrorCodes());
    expect(httpErrorCodes()).toEqual(codes.filter((c) => !(OPERATOR_ONLY_CODES as readonly string[]).includes(c)));
  });
});
