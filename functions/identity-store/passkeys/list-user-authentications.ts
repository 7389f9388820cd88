import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { listUserAuthentications } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.listUserAuthentications, async ({ tenantId, path, query }) => ({
  status: 200,
  body: await listUserAuthentications(identityStores, tenantId, path.storeName, { userId: path.userId }, query),
}));
