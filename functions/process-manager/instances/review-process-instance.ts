import { actorOf, apiHandler } from '../../http/wrapper.js';
import { orchestrator } from '../executions/orchestrator.js';
import { instances, reviews } from '../deps.js';
import { instanceRead } from './instances.js';
import { reviewInstance } from './review.js';
import { reviewRequest } from './review-schemas.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.reviewProcessInstance, async ({ tenantId, path, body, auth, now }) => {
  const record = await reviewInstance(
    { instances, reviews, resumer: orchestrator },
    { tenantId, processInstanceId: path.processInstanceId, ...reviewRequest(body), actor: actorOf(auth) },
    now,
  );
  return { status: 200, body: instanceRead(record, now) };
});
