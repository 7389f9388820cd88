import { apiHandler } from '../../http/wrapper.js';
import { definitions } from '../deps.js';
import { definitionPage } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.listProcessDefinitions, async ({ tenantId, query }) => ({
  status: 200,
  body: await definitionPage(definitions, tenantId, query),
}));
