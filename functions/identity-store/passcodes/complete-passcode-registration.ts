import { apiHandler, actorOf } from '../../http/wrapper.js';
import { identityStores } from '../deps.js';
import { completePasscodeRegistration } from './passcodes.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.completePasscodeRegistration, async ({ tenantId, auth, path, body, now }) => ({
  status: 200,
  body: await completePasscodeRegistration(identityStores, {
    tenantId,
    storeName: path.storeName,
    sessionId: path.sessionId,
    verifier: body.srpRegistrationData.verifier,
    historyVerifiers: body.srpRegistrationData.historyVerifiers,
    actor: actorOf(auth),
    now,
  }),
}));
