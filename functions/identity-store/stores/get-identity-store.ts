import { apiHandler } from '../../http/wrapper.js';
import { stores } from '../deps.js';
import { getStore, storeView } from './stores.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.getIdentityStore, async ({ tenantId, path }) => {
  return { status: 200, body: storeView(await getStore(stores, tenantId, path.storeName)) };
});
