import { apiHandler, actorOf } from '../http/wrapper.js';
import { cloudFunctionView, setCloudFunctionStatus } from './functions.js';
import { cloudFunctions } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.setCloudFunctionStatus, async ({ tenantId, auth, path, now }) => {
  const record = await setCloudFunctionStatus(cloudFunctions, { tenantId, id: path.cloudFunction, status: path.status, actor: actorOf(auth), now });
  return { status: 200, body: cloudFunctionView(record) };
});
