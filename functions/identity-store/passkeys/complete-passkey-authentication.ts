import { apiHandler, actorOf } from '../../http/wrapper.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { identityStores } from '../deps.js';
import { completePasskeyAuthentication } from './passkeys.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.completePasskeyAuthentication, async ({ tenantId, auth, path, body, now }) => ({
  status: 200,
  body: await completePasskeyAuthentication(identityStores, {
    tenantId,
    storeName: path.storeName,
    sessionId: body.sessionId,
    response: body.response as unknown as AuthenticationResponseJSON,
    actor: actorOf(auth),
    now,
  }),
}));
