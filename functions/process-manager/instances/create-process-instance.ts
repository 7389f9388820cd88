import { apiHandler, actorOf, type RequestContext } from '../../http/wrapper.js';
import { createInstance, idempotencyKeyOf } from './create-instance.js';
import { definitions, faceUploadKey, instances, tokens, uploads, themes } from '../deps.js';
import { orchestrator } from '../executions/orchestrator.js';
import { instanceRoutes as routes } from './instance-routes.js';

/** An instance of the process token `pt`'s journey: `startProcessAddress`, and the family's hosted-UI link, by the same rules. */
export async function startFromToken({ tenantId, auth, query, now, origin, headers }: RequestContext<unknown, { pt: string }, unknown, { 'idempotency-key'?: string }>) {
  const created = await createInstance({ definitions, tokens, instances, orchestrator, uploads, faceUploadKey, themes }, {
    tenantId,
    actor: actorOf(auth),
    origin,
    now,
    processTokenId: query.pt,
    idempotencyKey: idempotencyKeyOf(headers),
  });
  return { status: 201 as const, body: created };
}

export const handler = apiHandler(routes.createProcessInstance, startFromToken);
