import { apiHandler } from '../http/wrapper.js';
import { cloudSecretsPage } from './secrets.js';
import { cloudSecrets } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listCloudSecrets, async ({ tenantId, query }) => ({
  status: 200,
  body: await cloudSecretsPage({ secrets: cloudSecrets }, tenantId, query),
}));
