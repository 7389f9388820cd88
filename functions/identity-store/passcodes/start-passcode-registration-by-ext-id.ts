import { apiHandler } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { startPasscodeRegistration } from './passcodes.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.startPasscodeRegistrationByExtId, async ({ tenantId, path, now }) => ({
  status: 201,
  body: await startPasscodeRegistration(identityStores, { tenantId, storeName: path.storeName, user: { externalId: path.userId }, policyName: path.policyName, now }),
}));
