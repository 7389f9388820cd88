import { apiHandler, actorOf } from '../../http/wrapper.js';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { identityStores } from '../deps.js';
import { completePasskeyRegistration } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.completePasskeyRegistration, async ({ tenantId, auth, path, body, now }) => ({
  status: 200,
  body: await completePasskeyRegistration(identityStores, {
    tenantId,
    storeName: path.storeName,
    sessionId: path.sessionId,
    response: body.response as unknown as RegistrationResponseJSON,
    actor: actorOf(auth),
    now,
  }),
}));
