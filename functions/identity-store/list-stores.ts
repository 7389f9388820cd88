import { apiHandler } from '../http/wrapper.js';
import { toPage } from '../shared/page.js';
import { identityStoreStore } from '../store/identity-store.js';
import { storeView } from './stores.js';
import { identityStoreRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listIdentityStores, async ({ tenantId, query }) => {
  const stores = (await identityStoreStore.list(tenantId)).map(storeView);
  return { status: 200, body: toPage(stores, query.page, query.size, true) };
});
