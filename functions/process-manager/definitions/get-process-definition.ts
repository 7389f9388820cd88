import { apiHandler } from '../../http/wrapper.js';
import { definitions } from '../deps.js';
import { definitionRead, getDefinition } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.getProcessDefinition, async ({ tenantId, path }) => {
  const record = await getDefinition(definitions, tenantId, path.processDefinitionId);
  const content = await definitions.getContent(record);
  // An upload's file is stored; a JSON version's is written here, with the BPMN writer loaded at
  // first use (bpmn-moddle's descriptor costs its import time: reads of uploads never load it).
  const bpmn = content.bpmn ?? (await import('./bpmn-file.js')).bpmnFileOf(content);
  return { status: 200, body: definitionRead(record, content, bpmn) };
});
