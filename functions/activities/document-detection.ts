/**
 * The run of an authenticity detection (Screen Replay, Black and White Copy, and the checks no
 * engine here judges): the score of each captured side against the step's threshold, the
 * detected flag in the step's output variable, the check with its score, threshold and engine,
 * and the family's Failed / Exceeded errors. A threshold of -1 records the check BYPASSED; a
 * check no engine judges (which publishing allowed only with Accept Not Assessed) is recorded
 * NOT_ASSESSED, never passed in silence.
 */
import { DETECTORS, DETECTION_ENGINE, type DetectionCheck } from '../documents/checks.js';
import { ActivityError, withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { afterFailure, attemptOf, countFailure, documentImages, keepCheck, sessionCheck, withDocumentCheck, withNotAssessed, type DocumentCheck } from './document-step.js';
import type { ActivitySpec } from './spec.js';

/** Reads the captures from S3 and keeps the check and the failed attempts beside the instance. */
export const DETECTION_AWS = { images: ['GetObject'], table: ['PutItem', 'UpdateItem', 'GetItem'] } as const satisfies ActivityAccess;
/** A check no engine here judges reads no image: it keeps its NOT_ASSESSED (or BYPASSED) check only. */
export const NOT_ASSESSED_AWS = { table: ['PutItem'] } as const satisfies ActivityAccess;

const CHECK_TYPES: Record<DetectionCheck, string> = {
  screenReplay: 'DOCUMENT_SCREEN_REPLAY',
  blackAndWhiteCopy: 'DOCUMENT_BLACK_AND_WHITE_COPY',
  colorCopy: 'DOCUMENT_COLOR_COPY',
  paperCopy: 'DOCUMENT_PAPER_COPY',
  portraitSubstitution: 'DOCUMENT_PORTRAIT_SUBSTITUTION',
  photoSubstitution: 'DOCUMENT_PHOTO_SUBSTITUTION',
};

export function detectionRun<S extends ActivitySpec>(spec: S, check: DetectionCheck): ServiceRun<S> {
  const [failed, exceeded] = spec.errorEvents;
  return async (ctx) => {
    const inputs = ctx.inputs as Record<string, unknown>;
    const docKey = inputs['Document Key'] as string;
    const threshold = inputs['Detection Threshold'] as number;
    const output = inputs['Result Output Variable Name'] as string;
    const max = inputs['Max Attempts'] as number;
    const vendor = {
      ...(typeof inputs['Service ID'] === 'string' ? { serviceId: inputs['Service ID'] } : {}),
      ...(typeof inputs.Pipeline === 'string' ? { pipeline: inputs.Pipeline } : {}),
    };
    const base = { docKey, check, checkType: CHECK_TYPES[check], displayName: spec.displayName };
    const record = async (c: DocumentCheck, values: Record<string, unknown> = {}) => keepCheck(ctx, spec.type, c, values);

    if (threshold === -1) {
      const c: DocumentCheck = { ...base, result: 'BYPASSED', description: 'The check was turned off: its Detection Threshold is -1.', details: { threshold, ...vendor } };
      await record(c);
      return withDocumentCheck(ctx.session, docKey, check, sessionCheck(c));
    }
    const detector = DETECTORS[check];
    if (!detector) {
      // Publishing allowed it only with Accept Not Assessed (statemachines/validate.ts).
      const c: DocumentCheck = {
        ...base,
        result: 'NOT_ASSESSED',
        description: 'No document engine of this service judges this check; the definition accepted it as not assessed.',
        details: { threshold, engine: null, ...vendor },
      };
      await record(c);
      return withNotAssessed(ctx.session, docKey, check, sessionCheck(c));
    }

    const profile = inputs['Image Profile'] === 'Uncropped' ? 'Uncropped' : 'Cropped';
    const images = await documentImages(ctx, docKey, profile);
    if (images.length === 0) {
      const c: DocumentCheck = { ...base, result: 'FAIL', description: 'The Document Key has no capture to check.', details: { reason: 'noCapture', threshold, engine: DETECTION_ENGINE } };
      await record(c);
      throw new ActivityError(failed!.aslError, `${spec.displayName}: the Document Key has no capture.`);
    }
    const sides = images.map((image) => ({ side: image.side, captureId: image.capture.captureId, ...detector(profile === 'Cropped' ? image.document : image.photo) }));
    const score = Math.max(...sides.map((s) => s.score));
    const detected = score >= threshold;
    const details = { score, threshold, engine: DETECTION_ENGINE, imageProfile: profile, sides, ...vendor };
    const passed: DocumentCheck = { ...base, result: detected ? 'FAIL' : 'PASS', description: detected ? `Detected: score ${score}, at or above ${threshold}.` : `Not detected: score ${score}, below ${threshold}.`, details };
    const session = withVar(withDocumentCheck(ctx.session, docKey, check, sessionCheck(passed)), output, detected);
    if (!detected) {
      await record(passed);
      return session;
    }
    const failures = await countFailure(ctx, attemptOf(images), max);
    const c = { ...passed, details: { ...details, failedAttempts: failures, maxAttempts: max } };
    await record(c);
    const next = afterFailure(failures, max, inputs['Exception On Max Attempts Exceeded'] === true);
    if (next === 'failed') throw new ActivityError(failed!.aslError, `${spec.displayName}: detected (failed attempts: ${failures}; Max Attempts: ${max}).`);
    if (next === 'exceeded') throw new ActivityError(exceeded!.aslError, `${spec.displayName}: ${failures} failed attempts, more than Max Attempts (${max}).`);
    return withVar(withDocumentCheck(ctx.session, docKey, check, sessionCheck(c)), output, detected);
  };
}
