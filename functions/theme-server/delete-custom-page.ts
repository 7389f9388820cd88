import { apiHandler, actorOf } from '../http/wrapper.js';
import { deleteCustomPage } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.deleteCustomPage, async ({ tenantId, auth, path, now }) => {
  await deleteCustomPage(customPages, path.customPage, { tenantId, actor: actorOf(auth), now });
  return { status: 204 };
});
