import { apiHandler } from '../http/wrapper.js';
import { identityStoreStore } from '../store/identity-store.js';
import { IdentityStoreNotFoundError, storeView } from './stores.js';
import { identityStoreRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getIdentityStore, async ({ tenantId, path }) => {
  const record = await identityStoreStore.get(tenantId, path.storeName);
  if (!record) throw new IdentityStoreNotFoundError(path.storeName);
  return { status: 200, body: storeView(record) };
});
