import { apiHandler } from '../http/wrapper.js';
import { instances } from './deps.js';
import { ProcessInstanceNotFoundError, instanceWithParametersView } from './instances.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.getProcessInstanceWithParameters, async ({ tenantId, path, now }) => {
  const record = await instances.getLive(tenantId, path.processInstanceId, now);
  if (!record) throw new ProcessInstanceNotFoundError(path.processInstanceId);
  return { status: 200, body: instanceWithParametersView(record) };
});
