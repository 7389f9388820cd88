import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { getPendingSession } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.getPasskeySessionByExtId, async ({ tenantId, path, now }) => ({
  status: 200,
  body: await getPendingSession(identityStores, tenantId, path.storeName, { externalId: path.userId }, now),
}));
