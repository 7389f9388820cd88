import { apiHandler } from '../../http/wrapper.js';
import { definitions } from '../deps.js';
import { tagView } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

export const handler = apiHandler(routes.listDefinitionTags, async ({ tenantId }) => {
  const tags = await definitions.listTags(tenantId);
  return { status: 200, body: tags.sort((a, b) => a.name.localeCompare(b.name)).map(tagView) };
});
