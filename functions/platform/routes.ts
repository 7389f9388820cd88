import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';

/** Public documents: discovery, keys, the API description. Part of the route table (functions/routes.ts); handlers import only their own area. */
export const platformRoutes = {
  openidConfiguration: defineRoute({
    operationId: 'openidConfiguration',
    method: 'GET',
    path: '/.well-known/openid-configuration',
    handler: 'functions/platform/openid-configuration.ts',
    auth: 'public',
    summary: 'Token issuer discovery document (read by the API Gateway JWT authorizer)',
    tag: 'Platform',
    request: {},
    responses: { 200: { description: 'Issuer metadata with jwks_uri.', schema: z.record(z.string(), z.unknown()) } },
    aws: {},
  }),
  jwks: defineRoute({
    operationId: 'jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    handler: 'functions/platform/jwks.ts',
    auth: 'public',
    summary: 'Public keys that verify bearer tokens',
    tag: 'Platform',
    request: {},
    responses: { 200: { description: 'A JSON Web Key Set.', schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) } },
    aws: { signingKey: 'publicKey' },
  }),
  openapi: defineRoute({
    operationId: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/platform/openapi.ts',
    auth: 'public',
    summary: 'This document',
    tag: 'Platform',
    request: {},
    responses: { 200: { description: 'OpenAPI 3.1 document.', schema: z.record(z.string(), z.unknown()) } },
    aws: {},
  }),
} satisfies Record<string, RouteDef>;
