import { apiHandler } from '../http/wrapper.js';
import { deleteCloudSecret } from './secrets.js';
import { cloudSecrets } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.deleteCloudSecret, async ({ tenantId, path }) => {
  await deleteCloudSecret({ secrets: cloudSecrets }, tenantId, path.cloudSecret);
  return { status: 204 };
});
