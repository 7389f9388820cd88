import type { RouteDef } from './http/route.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { definitionRoutes } from './process-manager/definitions/definition-routes.js';
import { customDataFormRoutes } from './process-manager/forms/custom-data-form-routes.js';
import { customPageRoutes } from './theme-server/custom-page-routes.js';
import { watchlistRoutes } from './faces/watchlist-routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { tokenRoutes } from './process-manager/tokens/token-routes.js';
import { instanceRoutes } from './process-manager/instances/instance-routes.js';
import { instanceEventRoutes } from './process-manager/instances/instance-event-routes.js';
import { platformRoutes } from './platform/routes.js';
import { journeyRoutes } from './journey/journey-routes.js';
import { switchDeviceRoutes } from './journey/switch-routes.js';
import { userDataRoutes } from './userdata/routes.js';
import { identityStoreRoutes } from './identity-store/routes.js';
import { cloudFunctionRoutes } from './cloud-functions/routes.js';
import { consoleRoutes } from './console/console-routes.js';
import { themeRoutes } from './theme-server/theme-routes.js';

/**
 * THE route table: every route with its method, path, handler file, auth kind, permission, zod
 * schemas and AWS access. The CDK stack, the local server, the OpenAPI document and the tests
 * all read it here; nothing else lists routes.
 *
 * Each area defines its entries in its own module so that a handler bundles only its area's
 * schemas (every schema built at import costs cold-start time); this file puts them together.
 */
export const routes = {
  ...apiKeyRoutes,
  ...definitionRoutes,
  ...customDataFormRoutes,
  ...customPageRoutes,
  ...watchlistRoutes,
  ...webhookRoutes,
  ...tokenRoutes,
  ...instanceRoutes,
  ...instanceEventRoutes,
  ...journeyRoutes,
  ...switchDeviceRoutes,
  ...userDataRoutes,
  ...identityStoreRoutes,
  ...cloudFunctionRoutes,
  ...consoleRoutes,
  ...themeRoutes,
  ...platformRoutes,
} satisfies Record<string, RouteDef>;

export type OperationId = keyof typeof routes;

export const routeList: RouteDef[] = Object.values(routes) as RouteDef[];
