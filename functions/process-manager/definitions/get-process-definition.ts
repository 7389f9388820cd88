import { apiHandler } from '../../http/wrapper.js';
import { definitions } from '../deps.js';
import { definitionView, getDefinition } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.getProcessDefinition, async ({ tenantId, path }) => {
  const record = await getDefinition(definitions, tenantId, path.processDefinitionId);
  return { status: 200, body: definitionView(record, await definitions.getContent(record)) };
});
