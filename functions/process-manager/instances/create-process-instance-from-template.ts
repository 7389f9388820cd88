import { apiHandler, actorOf } from '../../http/wrapper.js';
import { createInstance, idempotencyKeyOf } from './create-instance.js';
import { definitions, faceUploadKey, instances, tokens, uploads, themes } from '../deps.js';
import { orchestrator } from '../executions/orchestrator.js';
import { instanceRoutes as routes } from './instance-routes.js';

/** A templated token supplies the journey; the request body supplies this instance's parameters. */
export const handler = apiHandler(routes.createProcessInstanceFromTemplate, async ({ tenantId, auth, body, now, origin, headers }) => {
  const created = await createInstance({ definitions, tokens, instances, orchestrator, uploads, faceUploadKey, themes }, {
    tenantId,
    actor: actorOf(auth),
    origin,
    now,
    processTokenId: body.processTokenId,
    ...(body.parameters ? { extraParameters: body.parameters } : {}),
    idempotencyKey: idempotencyKeyOf(headers),
  });
  return { status: 201, body: created };
});
