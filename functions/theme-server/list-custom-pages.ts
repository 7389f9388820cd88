import { apiHandler } from '../http/wrapper.js';
import { customPagesPage } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.listCustomPages, async ({ tenantId, query }) => ({
  status: 200,
  body: await customPagesPage(customPages.pages, tenantId, query),
}));
