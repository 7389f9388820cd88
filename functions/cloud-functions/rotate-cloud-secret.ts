import { apiHandler, actorOf } from '../http/wrapper.js';
import { cloudSecretView, rotateCloudSecret } from './secrets.js';
import { cloudSecrets, secretSealer } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.rotateCloudSecret, async ({ tenantId, auth, path, body, now }) => {
  const record = await rotateCloudSecret({ secrets: cloudSecrets, sealer: secretSealer }, { ...body, name: path.cloudSecret }, { tenantId, actor: actorOf(auth), now });
  return { status: 200, body: cloudSecretView(record) };
});
