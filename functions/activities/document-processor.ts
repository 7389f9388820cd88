import { familyFields } from '../documents/fields.js';
import type { DocumentReading } from '../documents/model.js';
import { activityError, withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { afterFailure, attemptOf, countFailure, documentImages, keepCheck, sessionCheck, withDocumentCheck, type DocumentCheck } from './document-step.js';
import { spec } from './specs/document-processor.js';

/** Reads the captures from S3, keeps the check and the failed attempts beside the instance; Textract where the deployment chooses it. */
export const aws = { images: ['GetObject'], table: ['PutItem', 'UpdateItem', 'GetItem'], documents: ['AnalyzeID'] } as const satisfies ActivityAccess;

/**
 * Reads each captured side with the deployment's document engine and keeps the first MRZ found
 * (a valid one before one whose check digits fail): its fields, by the family's names, in
 * `_idDocs.{Document Key}.fields`, and the reading's check. No MRZ, or one whose check digits do
 * not match, is a failed attempt (Scenario DocType asks for the type alone: any MRZ read will do).
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { inputs, deps } = ctx;
  const docKey = inputs['Document Key'];
  const max = inputs['Max Attempts'];
  const base = { docKey, check: 'reading', checkType: 'DOCUMENT_READING', displayName: spec.displayName };
  const images = await documentImages(ctx, docKey, inputs['Image Profile'] === 'Uncropped' ? 'Uncropped' : 'Cropped');
  if (images.length === 0) {
    const c: DocumentCheck = { ...base, result: 'FAIL', description: 'The Document Key has no capture to read.', details: { reason: 'noCapture', engine: deps.documents.name } };
    await keepCheck(ctx, spec.type, c);
    throw activityError(spec, 'DocumentProcessingFailed', 'Document Processor: the Document Key has no capture.');
  }
  const readings: (DocumentReading & { side: string; captureId: string })[] = [];
  for (const image of images) {
    readings.push({ side: image.side, captureId: image.capture.captureId, ...(await deps.documents.read({ bytes: image.bytes, pixels: image.document })) });
  }
  const best = readings.find((r) => r.mrz?.valid) ?? readings.find((r) => r.mrz);
  const mrz = best?.mrz;
  const fields = best ? familyFields(best) : {};
  const enough = inputs.Scenario === 'DocType' ? mrz !== undefined : mrz?.valid === true;
  const summary = mrz ? { format: mrz.format, valid: mrz.valid, checkDigits: mrz.checkDigits } : undefined;
  const details = {
    engine: deps.documents.name,
    scenario: inputs.Scenario,
    side: best?.side,
    ...(summary ? { mrz: summary } : { reason: 'noMrz' }),
    ...(inputs['Original Response Enabled'] ? { original: readings.map(({ side, mrz: m, visual }) => ({ side, mrzLines: m?.lines, visual })) } : {}),
  };
  const description = !mrz
    ? 'No MRZ was found on the captured sides.'
    : mrz.valid
      ? `The ${mrz.format} MRZ was read and every check digit matches.`
      : `The ${mrz.format} MRZ was read, but the check digit of ${mrz.checkDigits.filter((d) => !d.valid).map((d) => d.field).join(', ')} does not match.`;
  const read: DocumentCheck = { ...base, result: enough ? 'PASS' : 'FAIL', description, details };
  const withFields = (c: DocumentCheck) =>
    withVar(withDocumentCheck(ctx.session, docKey, 'reading', sessionCheck(c)), '_idDocs', {
      ...((ctx.session.vars?._idDocs as Record<string, unknown> | undefined) ?? {}),
      [docKey]: { fields, ...(summary ? { mrz: summary } : {}), engine: deps.documents.name },
    });
  if (enough) {
    await keepCheck(ctx, spec.type, read, { fields });
    return withFields(read);
  }
  const failures = await countFailure(ctx, attemptOf(images), max);
  const c = { ...read, details: { ...details, failedAttempts: failures, maxAttempts: max } };
  await keepCheck(ctx, spec.type, c, { fields });
  const next = afterFailure(failures, max, inputs['Exception On Max Attempts Exceeded']);
  if (next === 'failed') throw activityError(spec, 'DocumentProcessingFailed', `Document Processor: ${mrz ? 'an MRZ check digit does not match' : 'no MRZ found'} (failed attempts: ${failures}; Max Attempts: ${max}).`);
  if (next === 'exceeded') throw activityError(spec, 'DocumentProcessingAttemptsExceeded', `Document Processor: ${failures} failed attempts, more than Max Attempts (${max}).`);
  return withFields(c);
};
