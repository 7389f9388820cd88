import { apiHandler } from '../../http/wrapper.js';
import { jobs, objects } from '../../exports/deps.js';
import { exportView, findExport } from '../../exports/exports.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.getProcessInstancesCsvExport, async ({ tenantId, path, now }) => {
  const record = await findExport({ jobs }, tenantId, path.exportId, { kind: 'INSTANCES_CSV' }, now);
  return { status: 200, body: await exportView({ objects }, record, now) };
});
