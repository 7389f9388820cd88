import { apiHandler } from '../../http/wrapper.js';
import { instances } from '../deps.js';
import { getLiveInstance, instanceRead } from './instances.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.getProcessInstance, async ({ tenantId, path, now }) => {
  return { status: 200, body: instanceRead(await getLiveInstance(instances, tenantId, path.processInstanceId, now), now) };
});
