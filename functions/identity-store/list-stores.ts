import { apiHandler } from '../http/wrapper.js';
import { toPage } from '../shared/page.js';
import { identityStores } from './deps.js';
import { storeView } from './stores.js';
import { identityStoreRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listIdentityStores, async ({ tenantId, query }) => {
  const stores = (await identityStores.stores.list(tenantId)).map(storeView);
  return { status: 200, body: toPage(stores, query.page, query.size, true) };
});
