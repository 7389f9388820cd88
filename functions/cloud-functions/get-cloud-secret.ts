import { apiHandler } from '../http/wrapper.js';
import { cloudSecretView, getCloudSecret } from './secrets.js';
import { cloudSecrets } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getCloudSecret, async ({ tenantId, path }) => ({
  status: 200,
  body: cloudSecretView(await getCloudSecret({ secrets: cloudSecrets }, tenantId, path.cloudSecret)),
}));
