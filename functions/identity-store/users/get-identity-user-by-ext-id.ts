import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { findUser, userView } from './users.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.getIdentityUserByExtId, async ({ tenantId, path }) => {
  const { user } = await findUser(identityStores, tenantId, path.storeName, { externalId: path.userId });
  return { status: 200, body: userView(user) };
});
