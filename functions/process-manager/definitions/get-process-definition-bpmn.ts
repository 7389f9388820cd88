import { apiHandler } from '../../http/wrapper.js';
import { definitions } from '../deps.js';
import { getDefinition } from './definitions.js';
import { bpmnFileOf } from './bpmn-file.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.getProcessDefinitionBpmn, async ({ tenantId, path }) => {
  const record = await getDefinition(definitions, tenantId, path.processDefinitionId);
  return {
    status: 200,
    headers: { 'content-disposition': `attachment; filename="${record.name}-v${record.version}.bpmn"` },
    raw: { contentType: 'application/xml', body: bpmnFileOf(await definitions.getContent(record)) },
  };
});
