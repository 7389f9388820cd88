import { apiHandler } from '../http/wrapper.js';
import { definitionStore } from '../store/process-definitions.js';
import { DefinitionNotFoundError, definitionView } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.getProcessDefinition, async ({ tenantId, path }) => {
  const record = await definitionStore.get(tenantId, path.processDefinitionId);
  if (!record) throw new DefinitionNotFoundError(path.processDefinitionId);
  return { status: 200, body: definitionView(record) };
});
