import { apiHandler } from '../http/wrapper.js';
import { customPageView, getCustomPageByNameVersion } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.getCustomPageVersion, async ({ tenantId, path }) => ({
  status: 200,
  body: customPageView(await getCustomPageByNameVersion(customPages.pages, tenantId, path.customPage, path.version)),
}));
