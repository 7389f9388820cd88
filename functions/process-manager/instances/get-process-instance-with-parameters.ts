import { apiHandler } from '../../http/wrapper.js';
import { instances } from '../deps.js';
import { getLiveInstance, instanceWithParametersView } from './instances.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.getProcessInstanceWithParameters, async ({ tenantId, path, now }) => {
  return { status: 200, body: instanceWithParametersView(await getLiveInstance(instances, tenantId, path.processInstanceId, now), now) };
});
