import { apiHandler } from '../http/wrapper.js';
import { cloudFunctionView, getCloudFunction } from './functions.js';
import { cloudFunctions } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getCloudFunction, async ({ tenantId, path }) => ({
  status: 200,
  body: cloudFunctionView(await getCloudFunction(cloudFunctions, tenantId, path.cloudFunction)),
}));
