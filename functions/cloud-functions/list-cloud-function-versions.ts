import { apiHandler } from '../http/wrapper.js';
import { cloudFunctionVersionsPage } from './functions.js';
import { cloudFunctions } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listCloudFunctionVersions, async ({ tenantId, path, query }) => ({
  status: 200,
  body: await cloudFunctionVersionsPage(cloudFunctions, tenantId, path.cloudFunction, query),
}));
