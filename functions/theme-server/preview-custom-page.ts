import { apiHandler, actorOf } from '../http/wrapper.js';
import { previewCustomPage } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.previewCustomPage, async ({ tenantId, auth, body, now }) => ({
  status: 201,
  body: await previewCustomPage(customPages, body, { tenantId, actor: actorOf(auth), now }),
}));
