import { apiHandler, actorOf } from '../../http/wrapper.js';
import { definitions, stateMachines } from '../deps.js';
import { orchestrator } from '../executions/orchestrator.js';
import { definitionSummary, setDefinitionStatus } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.setProcessDefinitionStatus, async ({ tenantId, path, auth, now }) => {
  const record = await setDefinitionStatus({ definitions, stateMachines, orchestrator }, {
    tenantId,
    definitionId: path.processDefinitionId,
    status: path.status,
    actor: actorOf(auth),
    now,
  });
  return { status: 200, body: definitionSummary(record) };
});
