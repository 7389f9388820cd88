import { apiHandler, actorOf } from '../http/wrapper.js';
import { customPageView, deleteCustomPageArchive } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.deleteCustomPageArchive, async ({ tenantId, auth, path, now }) => ({
  status: 200,
  body: customPageView(await deleteCustomPageArchive(customPages, path.customPage, { tenantId, actor: actorOf(auth), now })),
}));
