import { apiHandler, actorOf } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { deregisterPasscode } from './passcodes.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.deregisterPasscodeByExtId, async ({ tenantId, auth, path, now }) => ({
  status: 200,
  body: await deregisterPasscode(identityStores, { tenantId, storeName: path.storeName, user: { externalId: path.userId }, policyName: path.policyName, actor: actorOf(auth), now }),
}));
