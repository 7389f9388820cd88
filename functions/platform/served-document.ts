type Json = Record<string, unknown>;

let document: Promise<Json> | undefined;

/**
 * The OpenAPI document this deployment serves (`GET /openapi.json`, and what `GET /docs`
 * renders), built once per cold start. It is built from every route's schemas, so the route
 * table and the generator load with the first request for it rather than at import: a cold
 * start that serves anything else never pays for them.
 */
export function servedDocument(): Promise<Json> {
  document ??= Promise.all([import('../routes.js'), import('./openapi-document.js')]).then(([{ routeList }, { buildOpenApiDocument }]) =>
    buildOpenApiDocument(routeList),
  );
  return document;
}
