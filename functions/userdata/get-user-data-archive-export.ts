import { apiHandler } from '../http/wrapper.js';
import { jobs, objects } from '../exports/deps.js';
import { exportView, findExport } from '../exports/exports.js';
import { userDataRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getUserDataArchiveExport, async ({ tenantId, path, now }) => {
  const record = await findExport({ jobs }, tenantId, path.exportId, { kind: 'USER_DATA_ARCHIVE', processDefnId: path.processDefnId, processInstanceId: path.processInstanceId }, now);
  return { status: 200, body: await exportView({ objects }, record, now) };
});
