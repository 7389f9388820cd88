import { apiHandler } from '../http/wrapper.js';
import { processInstanceStore } from '../store/process-instances.js';
import { ProcessInstanceNotFoundError, isExpired } from '../process-manager/instances.js';
import { userDataRoutes as routes } from './routes.js';

/** An instance of another tenant, of another definition than the path names, or expired: 404. */
export const handler = apiHandler(routes.getUserData, async ({ tenantId, path, now }) => {
  const record = await processInstanceStore.get(tenantId, path.processInstanceId);
  if (!record || isExpired(record, now) || record.processDefnId !== path.processDefnId) {
    throw new ProcessInstanceNotFoundError(path.processInstanceId);
  }
  const steps = (await processInstanceStore.listUserData(tenantId, record.id)).sort((a, b) => a.submittedAt.localeCompare(b.submittedAt));
  const forms: Record<string, Record<string, unknown>> = {};
  for (const s of steps) if (s.activityType === 'DATA_FORM') forms[s.dataKey] = s.values;
  return {
    status: 200,
    body: {
      processInstanceId: record.id,
      processDefnId: record.processDefnId,
      processDefnName: record.processDefnName,
      processDefnVersion: record.processDefnVersion,
      status: record.status,
      forms,
      steps,
    },
  };
});
