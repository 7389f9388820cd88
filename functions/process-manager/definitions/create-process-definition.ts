import { apiHandler, actorOf } from '../../http/wrapper.js';
import { definitionView } from './definitions.js';
import { customDataForms, definitions, stateMachines, themes } from '../deps.js';
import { orchestrator } from '../executions/orchestrator.js';
import { publishBpmnUpload, publishDefinition } from './publish.js';
import { isBpmnUpload } from './definition-schemas.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.createProcessDefinition, async ({ tenantId, auth, body, now }) => {
  const ctx = { tenantId, actor: actorOf(auth), now };
  const d = { definitions, stateMachines, orchestrator, forms: customDataForms, themes };
  const published = async () => {
    if (isBpmnUpload(body)) return publishBpmnUpload(d, body, ctx);
    // The version's own members apart: the definition is validated as the format has it.
    const { themeId, status, ...definition } = body;
    return publishDefinition(d, definition, ctx, { themeId, status });
  };
  const { record, definition } = await published();
  return {
    status: 201,
    body: definitionView(record, { definition }),
    headers: { location: `/api/process-manager/processDefinitions/${record.id}` },
  };
});
