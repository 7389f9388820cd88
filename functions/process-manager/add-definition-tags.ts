import { apiHandler, principalOf } from '../http/wrapper.js';
import { definitions } from './deps.js';
import { DefinitionNotFoundError, tagView, type DefinitionTagRecord } from './definitions.js';
import { definitionRoutes as routes } from './definition-routes.js';

/** Puts tags on a definition version; a tag held by another version of any definition moves here. */
export const handler = apiHandler(routes.addDefinitionTags, async ({ tenantId, auth, path, body, now }) => {
  const definition = await definitions.get(tenantId, path.processDefinitionId);
  if (!definition) throw new DefinitionNotFoundError(path.processDefinitionId);
  const principal = principalOf(auth);
  const tags: DefinitionTagRecord[] = [...new Set(body.tags)].map((name) => ({
    tenantId,
    name,
    processDefinitionId: definition.id,
    processDefinitionName: definition.name,
    processDefinitionVersion: definition.version,
    createdDtm: now.toISOString(),
    createdBy: principal,
  }));
  for (const tag of tags) await definitions.putTag(tag);
  return { status: 201, body: tags.map(tagView) };
});
