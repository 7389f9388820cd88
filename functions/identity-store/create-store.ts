import { apiHandler, principalOf } from '../http/wrapper.js';
import { identityStoreStore } from '../store/identity-store.js';
import { IdentityStoreExistsError, newStore, storeView } from './stores.js';
import { identityStoreRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.createIdentityStore, async ({ tenantId, auth, body, now }) => {
  const record = newStore({ tenantId, ...body, principal: principalOf(auth), now });
  if (!(await identityStoreStore.create(record))) throw new IdentityStoreExistsError(`An identity store named ${body.name} exists.`);
  return { status: 201, body: storeView(record) };
});
