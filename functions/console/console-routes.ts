import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';

/** The revalidation header of the service's static pages (the platform's pages take it too). */
export const IfNoneMatch = z.looseObject({
  'if-none-match': z.withMeta(z.optional(z.string()), { description: 'The ETag of a copy the browser holds: answered 304 when it is current.' }),
});

export const notModified = { description: 'Not modified (If-None-Match matched the ETag).' };

/**
 * The console (docs/console.md): a static page, its script and its styles, public like the
 * journey pages' scripts since they hold no tenant data. Everything the console shows it reads in
 * the browser through the public API, with the token of the key its user signed in with.
 * Part of the route table (functions/routes.ts).
 */
export const consoleRoutes = {
  getConsolePage: defineRoute({
    operationId: 'getConsolePage',
    method: 'GET',
    path: '/console',
    handler: 'functions/console/get-console-page.ts',
    auth: 'public',
    summary: 'The console: review queue, instances, definitions and API keys in the browser',
    description:
      "A static page. Its user signs in with an API key, which the page exchanges for a bearer token (POST /api/arthr/apiKeys/issue) and " +
      "forgets; every screen reads and acts through this API with that token's permissions. Open it on the tenant's host: its API calls " +
      'go to the origin it was loaded from.',
    tag: 'Console',
    request: { headers: IfNoneMatch },
    responses: {
      200: { description: 'The console page.', contentType: 'text/html', schema: z.string() },
      304: notModified,
    },
    aws: {},
  }),
  getConsoleScript: defineRoute({
    operationId: 'getConsoleScript',
    method: 'GET',
    path: '/console/console.js',
    handler: 'functions/console/get-console-script.ts',
    auth: 'public',
    summary: "The console's script",
    tag: 'Console',
    request: { headers: IfNoneMatch },
    responses: {
      200: { description: 'The script.', contentType: 'text/javascript', schema: z.string() },
      304: notModified,
    },
    aws: {},
  }),
  getConsoleStyles: defineRoute({
    operationId: 'getConsoleStyles',
    method: 'GET',
    path: '/console/console.css',
    handler: 'functions/console/get-console-styles.ts',
    auth: 'public',
    summary: "The console's style sheet",
    tag: 'Console',
    request: { headers: IfNoneMatch },
    responses: {
      200: { description: 'The style sheet.', contentType: 'text/css', schema: z.string() },
      304: notModified,
    },
    aws: {},
  }),
} satisfies Record<string, RouteDef>;
