import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import { IfNoneMatch, notModified } from '../console/console-routes.js';

/** Public documents: discovery, keys, the API description, the home page and the API reference. Part of the route table (functions/routes.ts); handlers import only their own area. */
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
  getHomePage: defineRoute({
    operationId: 'getHomePage',
    method: 'GET',
    path: '/',
    handler: 'functions/platform/get-home-page.ts',
    auth: 'public',
    summary: 'The home page: what this service is, where its console and API reference are, a first call',
    description: 'A static page for people (no script), on any host of the service: docs/api-reference.md.',
    tag: 'Platform',
    request: { headers: IfNoneMatch },
    responses: {
      200: { description: 'The home page.', contentType: 'text/html', schema: z.string() },
      304: notModified,
    },
    aws: {},
  }),
  getApiReference: defineRoute({
    operationId: 'getApiReference',
    method: 'GET',
    path: '/docs',
    handler: 'functions/platform/get-api-reference.ts',
    auth: 'public',
    summary: 'The API reference: this document rendered as one HTML page',
    description:
      'Every operation by tag with its auth, permission, parameters, body, answers and example; the webhooks; the schemas. ' +
      'Rendered on the server from the document `GET /openapi.json` serves, once per cold start; no script.',
    tag: 'Platform',
    request: { headers: IfNoneMatch },
    responses: {
      200: { description: 'The API reference page.', contentType: 'text/html', schema: z.string() },
      304: notModified,
    },
    aws: {},
  }),
} satisfies Record<string, RouteDef>;
