import { apiHandler } from '../http/wrapper.js';
import { serveStatic, staticFile, type StaticFile } from '../console/static-file.js';
import { PAGES_CSP, PAGES_PERMISSIONS } from './page-frame.js';
import { platformRoutes as routes } from './routes.js';
import { servedDocument } from './served-document.js';

let page: Promise<StaticFile> | undefined;

/**
 * The API reference (docs/api-reference.md): the served OpenAPI document rendered as one page,
 * once per cold start (the renderer loads with the first request, as the document does), then
 * answered from memory with its ETag, 304 to a browser that holds it.
 */
export const handler = apiHandler(routes.getApiReference, async ({ headers }) => {
  page ??= Promise.all([servedDocument(), import('./api-reference.js')]).then(([doc, { renderApiReference }]) =>
    staticFile(renderApiReference(doc), 'text/html; charset=utf-8', { 'content-security-policy': PAGES_CSP, 'permissions-policy': PAGES_PERMISSIONS }),
  );
  // A failed render is not kept: the next request tries again rather than failing until a cold start.
  return serveStatic(await page.catch((err: unknown) => ((page = undefined), Promise.reject(err))), headers);
});
