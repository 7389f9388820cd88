import { apiHandler } from '../http/wrapper.js';
import { platformRoutes as routes } from './routes.js';

let document: Promise<Record<string, unknown>> | undefined;

/**
 * The document is built from every route's schemas, so the route table and the generator load
 * with the first request for it rather than at import: a cold start that serves anything else
 * never pays for them.
 */
export const handler = apiHandler(routes.openapi, async () => {
  document ??= Promise.all([import('../routes.js'), import('./openapi-document.js')]).then(([{ routeList }, { buildOpenApiDocument }]) =>
    buildOpenApiDocument(routeList),
  );
  return { status: 200, headers: { 'cache-control': 'public, max-age=300' }, body: await document };
});
