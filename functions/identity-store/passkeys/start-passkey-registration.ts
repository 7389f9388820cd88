import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { startPasskeyRegistration } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.startPasskeyRegistration, async ({ tenantId, path, now }) => ({
  status: 201,
  body: await startPasskeyRegistration(identityStores, { tenantId, storeName: path.storeName, rpId: path.rpId, policyName: path.regPolicyName, user: { userId: path.userId }, now }),
}));
