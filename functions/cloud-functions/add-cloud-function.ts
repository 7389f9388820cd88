import { apiHandler, actorOf } from '../http/wrapper.js';
import { addCloudFunction, checkedBy, cloudFunctionView } from './functions.js';
import { cloudFunctions, runner } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.addCloudFunction, async ({ tenantId, auth, body, now }) => {
  const record = await addCloudFunction(cloudFunctions, body, { tenantId, actor: actorOf(auth), now, checkPython: checkedBy(runner) });
  return { status: 201, body: cloudFunctionView(record), headers: { location: `/api/process-manager/cloudFunctions/${record.id}` } };
});
