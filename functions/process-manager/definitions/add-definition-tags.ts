import { apiHandler, actorOf } from '../../http/wrapper.js';
import { definitions } from '../deps.js';
import { addDefinitionTags, tagView } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

/** Puts tags on a definition version; a tag held by another version of any definition moves here. */
export const handler = apiHandler(routes.addDefinitionTags, async ({ tenantId, auth, path, body, now }) => {
  const tags = await addDefinitionTags(definitions, { tenantId, definitionId: path.processDefinitionId, tags: body.tags, actor: actorOf(auth), now });
  return { status: 201, body: tags.map(tagView) };
});
