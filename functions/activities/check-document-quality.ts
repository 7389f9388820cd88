import { judgeQuality, QUALITY_ENGINE, expectedShape } from '../documents/checks.js';
import type { DocumentType } from '../documents/model.js';
import { activityError, type ActivityAccess, type ServiceRun } from './contract.js';
import { documentImages, documentSession, keepCheck, sessionCheck, withDocumentCheck, type DocumentCheck } from './document-step.js';
import { spec } from './specs/check-document-quality.js';

/** Reads the captures from S3 and keeps the check beside the instance. */
export const aws = { images: ['GetObject'], table: ['PutItem'] } as const satisfies ActivityAccess;

/**
 * Each captured side judged by its figures (functions/documents/checks.ts): the document found
 * in the photo, its resolution, sharpness, glare and brightness. Every figure and the threshold
 * it was judged by go into the check; a side that falls short fails the step with the problems
 * in the order to fix them.
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const docKey = ctx.inputs['Document Key'];
  const crop = ctx.inputs['Crop Image'];
  const base = { docKey, check: 'quality', checkType: 'DOCUMENT_QUALITY', displayName: spec.displayName };
  const images = await documentImages(ctx, docKey, 'Uncropped');
  if (images.length === 0) {
    const c: DocumentCheck = { ...base, result: 'FAIL', description: 'The Document Key has no capture to judge.', details: { reason: 'noCapture', engine: QUALITY_ENGINE } };
    await keepCheck(ctx, spec.type, c);
    throw activityError(spec, 'DocumentQualityFailed', 'Document Quality Assessment: the Document Key has no capture.');
  }
  const shape = expectedShape(documentSession(ctx.session, docKey).documentType as DocumentType | undefined);
  const sides = images.map((image) => ({ side: image.side, captureId: image.capture.captureId, ...judgeQuality(image.photo, shape, crop) }));
  const problems = sides.flatMap((s) => s.problems.map((p) => `${s.side}: ${p}`));
  const c: DocumentCheck = {
    ...base,
    result: problems.length === 0 ? 'PASS' : 'FAIL',
    description: problems.length === 0 ? 'Every captured side is usable.' : `To fix: ${problems.join(', ')}.`,
    details: { engine: QUALITY_ENGINE, cropImage: crop, sides, problems },
  };
  await keepCheck(ctx, spec.type, c);
  if (problems.length > 0) throw activityError(spec, 'DocumentQualityFailed', `Document Quality Assessment: ${problems.join(', ')}.`);
  return withDocumentCheck(ctx.session, docKey, 'quality', sessionCheck(c));
};
