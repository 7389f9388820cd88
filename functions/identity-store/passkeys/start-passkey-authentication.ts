import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { startPasskeyAuthentication } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.startPasskeyAuthentication, async ({ tenantId, path, now }) => ({
  status: 201,
  body: await startPasskeyAuthentication(identityStores, { tenantId, storeName: path.storeName, rpId: path.rpId, policyName: path.authPolicyName, user: { userId: path.userId }, now }),
}));
