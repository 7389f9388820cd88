import { apiHandler } from '../http/wrapper.js';
import { instances } from '../process-manager/deps.js';
import { getLiveInstance } from '../process-manager/instances/instances.js';
import { cloudFunctionLogs } from './deps.js';
import { cloudFunctionRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.listCloudFunctionLogs, async ({ tenantId, path, now }) => {
  // The instance first: another tenant's id, or one past its retention, is a 404 like any read of it.
  await getLiveInstance(instances, tenantId, path.processInstanceId, now);
  const runs = await cloudFunctionLogs.list(tenantId, path.processInstanceId, now);
  return {
    status: 200,
    body: {
      content: runs.map((r) => ({
        activityId: r.activityId,
        at: r.at,
        functionName: r.functionName,
        functionVersion: r.functionVersion,
        ...(r.ruleExecutionName ? { ruleExecutionName: r.ruleExecutionName } : {}),
        outcome: r.outcome,
        error: r.error,
        durationMs: r.durationMs,
        lines: r.lines,
        truncated: r.truncated,
      })),
    },
  };
});
