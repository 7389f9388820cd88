import { apiHandler, actorOf } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { addUser, userView } from './users.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.addIdentityUser, async ({ tenantId, auth, path, body, now }) => {
  const user = await addUser(identityStores, { tenantId, storeName: path.storeName, externalId: body.externalId, actor: actorOf(auth), now });
  return { status: 201, body: userView(user) };
});
