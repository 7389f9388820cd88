import { apiHandler } from '../../http/wrapper.js';
import { definitions } from '../deps.js';
import { versionPage } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.listProcessDefinitionVersions, async ({ tenantId, path, query }) => ({
  status: 200,
  body: await versionPage(definitions, tenantId, path.processDefinitionId, query),
}));
