import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { getPasskeyAudit } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.getPasskeyRegistrationAudit, async ({ tenantId, path }) => ({
  status: 200,
  body: await getPasskeyAudit(identityStores, tenantId, path.storeName, { userId: path.userId }, path.passkeyId),
}));
