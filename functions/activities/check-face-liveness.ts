import type { CheckRecord } from '../process-manager/model.js';
import { attemptsLeftCause, latestCapture } from '../journey/live-capture.js';
import { own } from '../shared/own.js';
import { activityError, type ActivityAccess, type ServiceRun } from './contract.js';
import { faceCheckRecord, withFaceCheck } from './live-face.js';
import { afterFailure, countFailure } from './document-step.js';
import { keepStepData } from './service-user-data.js';
import { spec } from './specs/check-face-liveness.js';

/** Counts failed attempts beside the instance and keeps the check there. */
export const aws = { table: ['PutItem', 'UpdateItem', 'GetItem'] } as const satisfies ActivityAccess;

/**
 * The newest live capture's liveness score, as its capture step measured it, against Threshold:
 * a pass (or, for a challenge's near miss the capture sent to review, REVIEW) goes on; a score
 * under it counts a failed attempt (one per capture) and raises Failed Face Liveness, then
 * Exceed Failed Liveness Count beyond Max Attempts.
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { inputs, session } = ctx;
  const faceKey = inputs['Face Key'];
  const threshold = inputs.Threshold;
  const max = inputs['Max Attempts'];
  const capture = latestCapture(session, faceKey);
  const captured = capture ? (own((session._checks ?? {}) as Record<string, unknown>, faceKey) as { result?: unknown; liveness?: unknown; method?: unknown } | undefined) : undefined;
  const score = typeof captured?.liveness === 'number' ? captured.liveness : undefined;
  const method = captured?.method === 'ACTIVE' || captured?.method === 'REKOGNITION' ? captured.method : 'PASSIVE';
  const measured = { ACTIVE: 'the active challenge', REKOGNITION: "Rekognition Face Liveness's confidence", PASSIVE: 'the passive score' }[method];
  const vendor = { ...(inputs.Pipeline ? { pipeline: inputs.Pipeline } : {}), ...(inputs['URL Template'] ? { urlTemplate: inputs['URL Template'] } : {}) };
  const live = score !== undefined && score >= threshold;
  const result = live ? (captured?.result === 'REVIEW' ? 'REVIEW' : 'PASS') : 'FAIL';
  const failures = live ? 0 : await countFailure(ctx, capture?.captureId ?? 'none', max);
  const next = live ? undefined : afterFailure(failures, max, inputs['Exception On Max Attempts Exceeded'] === true);
  const description = score === undefined
    ? 'The Face Key has no live capture with a liveness score.'
    : live
      ? `Live: ${measured} ${score}, at or above ${threshold}.`
      : `Not live: ${measured} ${score}, under ${threshold} (failed attempts ${failures}, Max Attempts ${max}).`;
  const details = { faceKey, method, score: score ?? null, threshold, ...(capture ? { captureId: capture.captureId } : {}), ...(live ? {} : { failedAttempts: failures, maxAttempts: max }), ...vendor };
  const check = faceCheckRecord(ctx, { faceKey, check: 'liveness', checkType: 'FACE_LIVENESS', displayName: spec.displayName, result, description, details });
  await keepStepData(ctx, { activityType: spec.type, dataKey: `${faceKey}.liveness`, values: { faceKey, result, score: score ?? null, threshold }, check });
  if (next === 'failed') throw activityError(spec, 'FaceLivenessFailed', `Face Liveness: ${description} ${attemptsLeftCause(Math.max(0, max + 1 - failures))}`);
  if (next === 'exceeded') throw activityError(spec, 'FaceLivenessAttemptsExceeded', `Face Liveness: ${failures} failed attempts, more than Max Attempts (${max}).`);
  const checked = withFaceCheck(session, faceKey, 'liveness', { result, checkType: 'FACE_LIVENESS', displayName: spec.displayName, ...details });
  return { ...checked, vars: { ...(checked.vars ?? {}), faceLivenessFailed: !live } };
};
