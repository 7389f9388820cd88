import { apiHandler } from '../../http/wrapper.js';
import { toPage } from '../../shared/page.js';
import { stores } from '../deps.js';
import { storeView } from './stores.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.listIdentityStores, async ({ tenantId, query }) => {
  const views = (await stores.list(tenantId)).map(storeView);
  return { status: 200, body: toPage(views, query.page, query.size, true) };
});
