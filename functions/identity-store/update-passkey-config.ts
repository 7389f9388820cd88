import { apiHandler, principalOf } from '../http/wrapper.js';
import { ConcurrentUpdateError } from '../errors.js';
import { identityStoreStore } from '../store/identity-store.js';
import { IdentityStoreNotFoundError, storeView, withPasskeyConfig } from './stores.js';
import { identityStoreRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.updatePasskeyConfig, async ({ tenantId, auth, path, body, now }) => {
  const current = await identityStoreStore.get(tenantId, path.storeName);
  if (!current) throw new IdentityStoreNotFoundError(path.storeName);
  const next = withPasskeyConfig(current, { rpId: path.rpId, ...body }, principalOf(auth), now);
  if (!(await identityStoreStore.replace(next, current.version))) throw new ConcurrentUpdateError();
  return { status: 200, body: storeView(next) };
});
