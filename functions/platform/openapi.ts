import { apiHandler } from '../http/wrapper.js';
import { routeList } from '../routes.js';
import { platformRoutes as routes } from './routes.js';
import { buildOpenApiDocument } from './openapi-document.js';

let document: Record<string, unknown> | undefined;

export const handler = apiHandler(routes.openapi, async () => {
  document ??= buildOpenApiDocument(routeList);
  return { status: 200, headers: { 'cache-control': 'public, max-age=300' }, body: document };
});
