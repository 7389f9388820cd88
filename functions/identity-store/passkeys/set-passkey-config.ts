import { apiHandler, actorOf } from '../../http/wrapper.js';
import { stores } from '../deps.js';
import { changeStore, storeView, withPasskeyConfig } from '../stores/stores.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.setPasskeyConfig, async ({ tenantId, auth, path, body, now }) => {
  const next = await changeStore(stores, tenantId, path.storeName, (current) => withPasskeyConfig(current, body, actorOf(auth), now));
  return { status: 201, body: storeView(next) };
});
