import { getConfig } from '../config.js';
import { apiHandler } from '../http/wrapper.js';
import { signerFor } from '../auth/signer.js';
import { platformRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.jwks, async () => {
  const jwk = await signerFor(getConfig().SIGNING_KEY).publicJwk();
  return { status: 200, headers: { 'cache-control': 'public, max-age=300' }, body: { keys: [jwk] } };
});
