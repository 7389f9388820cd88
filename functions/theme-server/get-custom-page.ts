import { apiHandler } from '../http/wrapper.js';
import { customPageView, getCustomPage } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.getCustomPage, async ({ tenantId, path }) => ({
  status: 200,
  body: customPageView(await getCustomPage(customPages.pages, tenantId, path.customPage)),
}));
