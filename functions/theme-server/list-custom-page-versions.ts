import { apiHandler } from '../http/wrapper.js';
import { customPageVersionsPage } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.listCustomPageVersions, async ({ tenantId, path, query }) => ({
  status: 200,
  body: await customPageVersionsPage(customPages.pages, tenantId, path.customPage, query),
}));
