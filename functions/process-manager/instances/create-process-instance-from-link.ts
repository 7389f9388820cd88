import { apiHandler, actorOf } from '../../http/wrapper.js';
import { createInstance, idempotencyKeyOf } from './create-instance.js';
import { definitions, faceUploadKey, instances, tokens, uploads } from '../deps.js';
import { orchestrator } from '../executions/orchestrator.js';
import { instanceRoutes as routes } from './instance-routes.js';

/**
 * The family's hosted-UI link, `{uiUrl}?pt=<token id>` with `uiUrl` this host's `/web/trustweb`:
 * exactly what `startProcessAddress` (create-process-instance.ts) does, by GET.
 */
export const handler = apiHandler(routes.createProcessInstanceFromLink, async ({ tenantId, auth, query, now, origin, headers }) => {
  const created = await createInstance({ definitions, tokens, instances, orchestrator, uploads, faceUploadKey }, {
    tenantId,
    actor: actorOf(auth),
    origin,
    now,
    processTokenId: query.pt,
    idempotencyKey: idempotencyKeyOf(headers),
  });
  return { status: 201, body: created };
});
