import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { startPasskeyRegistration } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.startPasskeyRegistrationWithoutUser, async ({ tenantId, path, body, now }) => ({
  status: 201,
  body: await startPasskeyRegistration(identityStores, { tenantId, storeName: path.storeName, rpId: path.rpId, policyName: path.regPolicyName, newUserExternalId: body.externalId, now }),
}));
