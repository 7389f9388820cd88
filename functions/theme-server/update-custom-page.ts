import { apiHandler, actorOf } from '../http/wrapper.js';
import { customPageView, updateCustomPage } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.updateCustomPage, async ({ tenantId, auth, path, body, now }) => ({
  status: 200,
  body: customPageView(await updateCustomPage(customPages, path.customPage, body, { tenantId, actor: actorOf(auth), now })),
}));
