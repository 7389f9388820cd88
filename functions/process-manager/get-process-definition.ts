import { apiHandler } from '../http/wrapper.js';
import { definitions } from './deps.js';
import { DefinitionNotFoundError, definitionView } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.getProcessDefinition, async ({ tenantId, path }) => {
  const record = await definitions.get(tenantId, path.processDefinitionId);
  if (!record) throw new DefinitionNotFoundError(path.processDefinitionId);
  return { status: 200, body: definitionView(record) };
});
