import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { getPasskeyAudit } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.getPasskeyRegistrationAuditByExtId, async ({ tenantId, path }) => ({
  status: 200,
  body: await getPasskeyAudit(identityStores, tenantId, path.storeName, { externalId: path.userId }, path.passkeyId),
}));
