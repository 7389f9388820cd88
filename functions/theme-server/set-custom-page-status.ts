import { apiHandler, actorOf } from '../http/wrapper.js';
import { customPageView, setCustomPageStatus } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.setCustomPageStatus, async ({ tenantId, auth, path, now }) => {
  const record = await setCustomPageStatus(customPages.pages, { tenantId, id: path.customPage, status: path.status, actor: actorOf(auth), now });
  return { status: 200, body: customPageView(record) };
});
