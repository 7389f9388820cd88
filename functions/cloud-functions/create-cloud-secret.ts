import { apiHandler, actorOf } from '../http/wrapper.js';
import { cloudSecretView, createCloudSecret } from './secrets.js';
import { cloudSecrets, secretSealer } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.createCloudSecret, async ({ tenantId, auth, body, now }) => {
  const record = await createCloudSecret({ secrets: cloudSecrets, sealer: secretSealer }, body, { tenantId, actor: actorOf(auth), now });
  return { status: 201, body: cloudSecretView(record), headers: { location: `/api/process-manager/cloudSecrets/${encodeURIComponent(record.name)}` } };
});
