import { apiHandler, actorOf } from '../../http/wrapper.js';
import { stores } from '../deps.js';
import { changeStore, storeView, updatedStore } from './stores.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.updateIdentityStore, async ({ tenantId, auth, path, body, now }) => {
  const next = await changeStore(stores, tenantId, path.storeName, (current) => updatedStore(current, body, actorOf(auth), now));
  return { status: 200, body: storeView(next) };
});
