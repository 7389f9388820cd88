import { apiHandler } from '../http/wrapper.js';
import { drawChallenge } from '../faces/challenge.js';
import { nonceHash } from '../activities/liveness-challenge-step.js';
import { openWaitingStep } from './access.js';
import { livenessChallenges } from './deps.js';
import { StepNotWaitingError } from './steps.js';
import { journeyRoutes as routes } from './journey-routes.js';

/**
 * Draws an active liveness challenge for the Capture Face Image step the journey waits at, and
 * keeps it (bound to the instance and step, until it expires) for the frames that answer it.
 */
export const handler = apiHandler(routes.startLivenessChallenge, async ({ tenantId, path, query, now }) => {
  const { record, step } = await openWaitingStep(tenantId, { ...path, capability: query.c }, ['CAPTURE_FACE_IMAGE'], now);
  if (step.inputs['Liveness Check'] !== 'ACTIVE') throw new StepNotWaitingError(`The capture at ${step.activityId} takes no liveness challenge.`);
  const plan = drawChallenge(now);
  const { nonce, ...kept } = plan;
  await livenessChallenges.put({
    tenantId: record.tenantId,
    instanceId: record.id,
    activityId: step.activityId,
    nonceHash: nonceHash(nonce),
    plan: kept,
    expiresAt: Math.ceil(Date.parse(plan.expiresAt) / 1000),
  });
  return { status: 200, body: plan };
});
