import { apiHandler, actorOf } from '../http/wrapper.js';
import { addCustomPage, customPageView } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.addCustomPage, async ({ tenantId, auth, body, now }) => {
  const record = await addCustomPage(customPages, body, { tenantId, actor: actorOf(auth), now });
  return { status: 201, body: customPageView(record), headers: { location: `/api/theme-server/customPages/${record.id}` } };
});
