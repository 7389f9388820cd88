import { imageRefusal } from '../faces/model.js';
import { THRESHOLDS } from '../faces/quality.js';
import { activityError, type ActivityAccess, type ServiceRun } from './contract.js';
import { afterFailure, countFailure, documentImages, keepCheck, sessionCheck, withDocumentCheck, type DocumentCheck } from './document-step.js';
import { liveFace } from './live-face.js';
import { spec } from './specs/document-face-matcher.js';

/** Reads the document and the live face from S3, compares them, keeps the check and the failed attempts. */
export const aws = { images: ['GetObject'], faces: ['CompareFaces'], table: ['PutItem', 'UpdateItem', 'GetItem'] } as const satisfies ActivityAccess;

/**
 * The portrait on the front of the document (the largest face in the photo) compared with the
 * newest live capture of Face Key, through the face engine (Rekognition on AWS, the embedded
 * model locally). At or above Face Match Threshold passes; between Internal Face Match
 * Threshold and it, passes as REVIEW; below fails an attempt. A threshold of 1 bypasses it.
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { inputs, deps, session, tenantId } = ctx;
  const docKey = inputs['Document Key'];
  const faceKey = inputs['Face Key'];
  const max = inputs['Max Attempts'];
  const engine = deps.faces.name;
  const threshold = inputs['Face Match Threshold'] ?? THRESHOLDS[engine].documentMatch;
  const internal = inputs['Internal Face Match Threshold'];
  const base = { docKey, check: 'faceMatch', checkType: 'DOCUMENT_FACE_MATCH', displayName: spec.displayName };
  if (threshold >= 1) {
    const c: DocumentCheck = { ...base, result: 'BYPASSED', description: 'The match was turned off: its Face Match Threshold is 1.', details: { threshold, engine } };
    await keepCheck(ctx, spec.type, c);
    return withDocumentCheck(session, docKey, 'faceMatch', sessionCheck(c));
  }
  const fail = async (reason: string, description: string, attemptId: string | undefined, figures: Record<string, unknown> = {}) => {
    // A missing capture is no attempt: the step fails, and its route leads back to the capture.
    const failures = attemptId === undefined ? undefined : await countFailure(ctx, attemptId, max);
    const counted = failures === undefined ? {} : { failedAttempts: failures, maxAttempts: max };
    const c: DocumentCheck = { ...base, result: 'FAIL', description, details: { reason, threshold, ...(internal === undefined ? {} : { internalThreshold: internal }), engine, faceKey, ...figures, ...counted } };
    await keepCheck(ctx, spec.type, c);
    const next = failures === undefined ? 'failed' : afterFailure(failures, max, inputs['Exception On Max Attempts Exceeded']);
    if (next === 'failed') throw activityError(spec, 'DocumentFaceMatchFailed', `Document to Face Matching: ${description}`);
    if (next === 'exceeded') throw activityError(spec, 'DocumentFaceMatchAttemptsExceeded', `Document to Face Matching: ${failures} failed attempts, more than Max Attempts (${max}).`);
    return withDocumentCheck(session, docKey, 'faceMatch', sessionCheck(c));
  };

  const [front] = await documentImages(ctx, docKey, 'Uncropped');
  if (!front) return fail('noCapture', 'the Document Key has no capture.', undefined);
  const live = await liveFace(deps, session, tenantId, faceKey);
  if (!live) return fail('noLiveCapture', 'the Face Key has no live capture.', undefined);
  const attemptId = `${front.capture.captureId}/${live.capture.captureId}`;
  let comparison;
  try {
    comparison = await deps.faces.compare({ bytes: front.bytes }, { bytes: live.bytes });
  } catch (err) {
    const refused = imageRefusal(err);
    if (!refused) throw err;
    return fail(refused, `an image was refused by the face engine (${refused}).`, attemptId);
  }
  if ('noFace' in comparison) {
    return fail(comparison.noFace === 'source' ? 'noPortrait' : 'noLiveFace', comparison.noFace === 'source' ? 'no portrait was found on the document.' : 'no face was found in the live capture.', attemptId);
  }
  const { similarity } = comparison;
  if (similarity < threshold && (internal === undefined || similarity < internal)) {
    return fail('noMatch', `similarity ${similarity}, below ${internal ?? threshold}.`, attemptId, { similarity });
  }
  const result = similarity >= threshold ? 'PASS' : 'REVIEW';
  const c: DocumentCheck = {
    ...base,
    result,
    description: result === 'PASS' ? `The faces match: similarity ${similarity}, at or above ${threshold}.` : `Review: similarity ${similarity}, below ${threshold} and at or above ${internal}.`,
    details: { similarity, threshold, ...(internal === undefined ? {} : { internalThreshold: internal }), engine, faceKey, captureId: front.capture.captureId, liveCaptureId: live.capture.captureId },
  };
  await keepCheck(ctx, spec.type, c);
  return withDocumentCheck(session, docKey, 'faceMatch', sessionCheck(c));
};
