import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import { ApiKeyHeaders } from '../http/headers.js';
import { EmptyBody } from '../shared/schemas.js';
import {
  ApiKeyCreateSchema,
  ApiKeyCreatedSchema,
  ApiKeyIdPathSchema,
  ApiKeyListQuerySchema,
  ApiKeyPageSchema,
  ApiKeySchema,
  ApiKeyUpdateSchema,
  TokenIssuedSchema,
} from './schemas.js';

/** API keys and token issue. Part of the route table (functions/routes.ts); handlers import only their own area. */
/** Reads of key material follow the writes' rule on the calling key. */
const READ_RULE = 'The calling key must still be ACTIVE and unexpired (401 otherwise, even with a token it issued earlier), as for changes.';

export const apiKeyRoutes = {
  issueToken: defineRoute({
    operationId: 'issueToken',
    method: 'POST',
    path: '/api/arthr/apiKeys/issue',
    handler: 'functions/api-keys/issue-token.ts',
    auth: 'apiKey',
    summary: 'Exchange an API key for a bearer token',
    description:
      'Send the key in X-API-Key (X-Api-Key and X-ApiKey are accepted too) with body {}. The token is an RS256 JWT ' +
      '(typ at+jwt) carrying the tenant (tid), the key id (sub, client_id) and the key\'s permissions; it is reusable ' +
      'until it expires, after `ttl` seconds (3600 by default, never past the key\'s own expiry).',
    tag: 'API keys',
    request: { body: EmptyBody, headers: ApiKeyHeaders },
    responses: {
      200: { description: 'A bearer token.', schema: TokenIssuedSchema },
      400: badRequest,
      401: error('Unknown, blocked, archived or expired key, or a key not permitted to issue tokens.'),
      429: error('The tenant issued more tokens this second than its token issue limit (`-c tokenRateLimit`); retry after `Retry-After` seconds and reuse tokens until they expire.'),
    },
    aws: { table: ['UpdateItem'], signingKey: 'sign' },
  }),
  listApiKeys: defineRoute({
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/api/arthr/apiKeys',
    handler: 'functions/api-keys/list-api-keys.ts',
    auth: 'bearer',
    permission: 'ArthrServer:listTenantApiKeys',
    summary: 'List the tenant\'s API keys, a page at a time',
    tag: 'API keys',
    description: READ_RULE,
    request: { query: ApiKeyListQuerySchema },
    responses: { 200: { description: 'A page of API keys.', schema: ApiKeyPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['GetItem', 'Query', 'BatchGetItem'] },
  }),
  createApiKey: defineRoute({
    operationId: 'createApiKey',
    method: 'POST',
    path: '/api/arthr/apiKeys',
    handler: 'functions/api-keys/create-api-key.ts',
    auth: 'bearer',
    permission: 'ArthrServer:createTenantApiKey',
    summary: 'Create an API key; its secret is returned in this response only',
    description:
      'A caller can grant only permissions its own token holds (403 PERMISSION_ESCALATION otherwise). A key made by a key that expires (a SESSION key) must expire no later (400). The calling key must still be ACTIVE and unexpired (401 otherwise, even with a token it issued earlier).',
    tag: 'API keys',
    request: { body: ApiKeyCreateSchema },
    responses: {
      201: { description: 'The new key, with its secret.', schema: ApiKeyCreatedSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
    },
    aws: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  }),
  getApiKey: defineRoute({
    operationId: 'getApiKey',
    method: 'GET',
    path: '/api/arthr/apiKeys/{apiKeyId}',
    handler: 'functions/api-keys/get-api-key.ts',
    auth: 'bearer',
    permission: 'ArthrServer:getFromTenant',
    summary: 'Read one API key',
    description: READ_RULE,
    tag: 'API keys',
    request: { path: ApiKeyIdPathSchema },
    responses: {
      200: { description: 'The key (never its secret).', schema: ApiKeySchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such key in this tenant.'),
    },
    aws: { table: ['GetItem'] },
  }),
  updateApiKey: defineRoute({
    operationId: 'updateApiKey',
    method: 'POST',
    path: '/api/arthr/apiKeys/{apiKeyId}',
    handler: 'functions/api-keys/update-api-key.ts',
    auth: 'bearer',
    permission: 'ArthrServer:updateTenantApiKey',
    summary: 'Update an API key',
    description:
      'Fields present replace the stored ones; absent fields are kept; read-only fields are ignored. ' +
      'BLOCKED pauses a key and ACTIVE resumes it; ARCHIVED is final. Only a key whose permissions the caller holds itself ' +
      '(403 PERMISSION_ESCALATION otherwise); a caller whose own key expires cannot set a later expiringDtm (400).',
    tag: 'API keys',
    request: { path: ApiKeyIdPathSchema, body: ApiKeyUpdateSchema },
    responses: {
      200: { description: 'The updated key.', schema: ApiKeySchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such key in this tenant.'),
      409: error('Changed by a concurrent update; read and retry.'),
    },
    aws: { table: ['GetItem', 'PutItem'] },
  }),
  deleteApiKey: defineRoute({
    operationId: 'deleteApiKey',
    method: 'DELETE',
    path: '/api/arthr/apiKeys/{apiKeyId}',
    handler: 'functions/api-keys/delete-api-key.ts',
    auth: 'bearer',
    permission: 'ArthrServer:deleteFromTenant',
    summary: 'Delete an API key (cannot be undone)',
    description:
      'Only a key whose permissions the caller holds itself (403 PERMISSION_ESCALATION otherwise); 409 when the key changed since it was read. Tokens already issued from the key are refused by key management at once and by other routes when they expire (at most the token TTL).',
    tag: 'API keys',
    request: { path: ApiKeyIdPathSchema },
    responses: {
      204: { description: 'Deleted; no body.' },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such key in this tenant.'),
      409: error('The key changed since it was read (CONCURRENT_UPDATE); read it and try again.'),
    },
    aws: { table: ['GetItem', 'DeleteItem', 'UpdateItem'] },
  }),
} satisfies Record<string, RouteDef>;
