import { defineRoute, type RouteDef } from '../../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../../http/responses.js';
import { ApiKeyHeaders } from '../../http/headers.js';
import {
  ProcessTokenCreateSchema,
  ProcessTokenIdPathSchema,
  ProcessTokenListQuerySchema,
  ProcessTokenPageSchema,
  ProcessTokenSchema,
} from './token-schemas.js';

/** Process tokens. Part of the route table (functions/routes.ts); handlers import only their own area. */
export const tokenRoutes = {
  createProcessToken: defineRoute({
    operationId: 'createProcessToken',
    method: 'POST',
    path: '/api/process-manager/processTokens',
    handler: 'functions/process-manager/tokens/create-process-token.ts',
    auth: 'bearerOrApiKey',
    permission: 'ProcessManager:addProcessToken',
    summary: 'Create a process token bound to one definition (name + version, or a tag)',
    description:
      'Bearer token or X-API-Key. maxProcessDuration is deprecated: accepted, ignored, and answered with a Deprecation ' +
      'header and a warning in the body.',
    tag: 'Process tokens',
    request: { body: ProcessTokenCreateSchema, headers: ApiKeyHeaders },
    responses: {
      201: { description: 'The token, with its start link.', schema: ProcessTokenSchema },
      400: badRequest,
      401: error('Missing or invalid bearer token or API key.'),
      403: forbidden,
      409: error('A token of this name exists.'),
    },
    aws: { table: ['GetItem', 'PutItem'], signingKey: 'publicKey' },
  }),
  listProcessTokens: defineRoute({
    operationId: 'listProcessTokens',
    method: 'GET',
    path: '/api/process-manager/processTokens',
    handler: 'functions/process-manager/tokens/list-process-tokens.ts',
    auth: 'bearerOrApiKey',
    permission: 'ProcessManager:getProcessTokens',
    summary: "List the tenant's process tokens, a page at a time",
    description:
      'Bearer token or X-API-Key. Oldest first unless sorted otherwise; by creation time a page reads only its own tokens, and ' +
      '`nextCursor` continues after it (docs/lists.md).',
    tag: 'Process tokens',
    request: { query: ProcessTokenListQuerySchema, headers: ApiKeyHeaders },
    responses: { 200: { description: 'A page of tokens.', schema: ProcessTokenPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['GetItem', 'Query', 'BatchGetItem'], signingKey: 'publicKey' },
  }),
  getProcessToken: defineRoute({
    operationId: 'getProcessToken',
    method: 'GET',
    path: '/api/process-manager/processTokens/{processTokenId}',
    handler: 'functions/process-manager/tokens/get-process-token.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessTokens',
    summary: 'Read one process token, with its use counter',
    tag: 'Process tokens',
    request: { path: ProcessTokenIdPathSchema },
    responses: {
      200: { description: 'The token.', schema: ProcessTokenSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such token in this tenant.'),
    },
    aws: { table: ['GetItem'] },
  }),
} satisfies Record<string, RouteDef>;
