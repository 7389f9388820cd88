import { apiHandler, actorOf } from '../http/wrapper.js';
import { startCustomPageUpload } from './custom-pages.js';
import { customPages } from './deps.js';
import { customPageRoutes as routes } from './custom-page-routes.js';

export const handler = apiHandler(routes.startCustomPageUpload, async ({ tenantId, auth, now }) => ({
  status: 201,
  body: await startCustomPageUpload(customPages, { tenantId, actor: actorOf(auth), now }),
}));
