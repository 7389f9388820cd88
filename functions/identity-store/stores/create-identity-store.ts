import { apiHandler, actorOf } from '../../http/wrapper.js';
import { stores } from '../deps.js';
import { createStore, newStore, storeView } from './stores.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.createIdentityStore, async ({ tenantId, auth, body, now }) => {
  const record = await createStore(stores, newStore({ tenantId, ...body, actor: actorOf(auth), now }));
  return { status: 201, body: storeView(record) };
});
