import { randomUUID } from 'node:crypto';
import { apiError } from '../errors.js';
import { apiHandler } from '../http/wrapper.js';
import type { FaceLivenessChallenge } from '../faces/model.js';
import { openWaitingStep } from './access.js';
import { faceLiveness, faceLivenessSessions } from './deps.js';
import { StepNotWaitingError } from './steps.js';
import { journeyRoutes as routes } from './journey-routes.js';

/** Sessions a step may start: each is a paid check, and each gives the browser AWS credentials. */
export const MAX_LIVENESS_SESSIONS = 10;

/** How long a session's record is kept: past Rekognition's 3 minutes, so that a late answer is told it expired rather than unknown. */
export const SESSION_RECORD_SECONDS = 15 * 60;

export class LivenessSessionLimitError extends apiError('LIVENESS_SESSION_LIMIT') {}

/**
 * Starts a Rekognition Face Liveness session for the Capture Face Image step the journey waits
 * at (Liveness Check REKOGNITION): counted against the step's limit, created in Rekognition,
 * kept bound to the instance and step, and answered with the browser's credentials for its
 * stream. A throttle or fault of Rekognition or STS is a 503 (the wrapper's): the page starts
 * again, and a session created without credentials given is never answered, so it expires.
 */
export const handler = apiHandler(routes.startFaceLivenessSession, async ({ tenantId, path, query, now }) => {
  const { record, step } = await openWaitingStep(tenantId, { ...path, capability: query.c }, ['CAPTURE_FACE_IMAGE'], now);
  if (step.inputs['Liveness Check'] !== 'REKOGNITION') throw new StepNotWaitingError(`The capture at ${step.activityId} takes no Rekognition Face Liveness check.`);
  const service = faceLiveness();
  // Published only where the deployment has it (functions/faces/liveness-service.ts): a
  // deployment moved since, or misconfigured, says so rather than failing at Rekognition.
  if (!service) throw new StepNotWaitingError('This deployment has no Rekognition Face Liveness.');
  const seconds = Math.floor(now.getTime() / 1000);
  if (!(await faceLivenessSessions.reserve(record.tenantId, record.id, step.activityId, MAX_LIVENESS_SESSIONS, record.expiresAt))) {
    throw new LivenessSessionLimitError(`The capture at ${step.activityId} has started ${MAX_LIVENESS_SESSIONS} Face Liveness checks.`);
  }
  const challenge = step.inputs['Rekognition Challenge'] === 'FaceMovementChallenge' ? 'FaceMovementChallenge' : 'FaceMovementAndLightChallenge';
  const audit = Number(step.inputs['Rekognition Audit Images'] ?? 0);
  const { sessionId } = await service.createSession({
    clientToken: randomUUID(),
    challenge: challenge satisfies FaceLivenessChallenge,
    auditImages: Number.isInteger(audit) && audit >= 0 && audit <= 4 ? audit : 0,
  });
  await faceLivenessSessions.put({
    tenantId: record.tenantId,
    instanceId: record.id,
    activityId: step.activityId,
    sessionId,
    challenge,
    createdAt: now.toISOString(),
    expiresAt: seconds + SESSION_RECORD_SECONDS,
  });
  const credentials = await service.browserCredentials(sessionId);
  return { status: 200, body: { sessionId, region: process.env.AWS_REGION ?? '', challenge, credentials } };
});
