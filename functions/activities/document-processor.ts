import { familyFields } from '../documents/fields.js';
import type { DocumentEngine, DocumentReading, RegulaOptions } from '../documents/model.js';
import { DocumentServiceUnavailable, DocumentServiceUnusable } from '../shared/document-service-errors.js';
import { regulaServiceOf } from '../documents/regula-service.js';
import { activityError, TransientActivityError, withVar, type ActivityAccess, type ServiceContext, type ServiceRun } from './contract.js';
import { afterFailure, attemptOf, countFailure, documentImages, keepCheck, sessionCheck, withDocumentCheck, type DocumentCheck } from './document-step.js';
import { spec } from './specs/document-processor.js';

/**
 * Reads the captures from S3, keeps the check and the failed attempts beside the instance;
 * Textract where the deployment chooses it; the tenant's Regula service where a cloud secret
 * (read and unsealed here) is named as the step's Service ID.
 */
export const aws = { images: ['GetObject'], table: ['PutItem', 'UpdateItem', 'GetItem'], documents: ['AnalyzeID'], cloudSecrets: true } as const satisfies ActivityAccess;

/** A name a cloud secret can have (functions/cloud-functions/schemas.ts): any other Service ID names none. */
const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * The engine this step reads with: the tenant's Regula service when it holds a cloud secret named
 * as the step's Service ID (the family writes `docprocessor-regula-71`), else the deployment's.
 * A secret that does not describe a service fails the step (the configuration's fault).
 */
async function engineFor(ctx: ServiceContext<typeof spec>): Promise<{ engine: DocumentEngine; serviceId?: string }> {
  const { inputs, deps, tenantId } = ctx;
  const name = inputs['Service ID'];
  if (!name || !SECRET_NAME.test(name)) return { engine: deps.documents };
  const record = await deps.cloudSecrets.get(tenantId, name);
  if (!record) return { engine: deps.documents };
  const config = regulaServiceOf(await deps.secretSealer.unseal(record.sealed, { tenantId, name, version: record.version }));
  if (!config.ok) throw activityError(spec, 'DocumentServiceUnusable', `Document Processor: the cloud secret named by Service ID "${name}" does not describe a Regula service: ${config.problem}.`);
  const options: RegulaOptions = {
    scenario: inputs.Scenario as RegulaOptions['scenario'],
    measureSystem: inputs['Measure System'] === 'IMPERIAL' ? 'IMPERIAL' : 'METRIC',
    alreadyCropped: inputs['Image Profile'] !== 'Uncropped',
  };
  return { engine: deps.documentServices.regula(config.service, options), serviceId: name };
}

/** A side read, a service's failure sorted: worth retrying (the Task's retry), or the step's failure. */
async function readWith(engine: DocumentEngine, image: Parameters<DocumentEngine['read']>[0], serviceId: string | undefined): Promise<DocumentReading> {
  try {
    return await engine.read(image);
  } catch (err) {
    if (err instanceof DocumentServiceUnavailable) throw new TransientActivityError(`Document Processor: ${err.message}`, { cause: err });
    if (err instanceof DocumentServiceUnusable) throw activityError(spec, 'DocumentServiceUnusable', `Document Processor: the service named by Service ID "${serviceId}": ${err.message}.`);
    throw err;
  }
}

/**
 * Reads each captured side with the deployment's document engine and keeps the first MRZ found
 * (a valid one before one whose check digits fail): its fields, by the family's names, in
 * `_idDocs.{Document Key}.fields`, and the reading's check. No MRZ, or one whose check digits do
 * not match, is a failed attempt (Scenario DocType asks for the type alone: any MRZ read will do).
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { inputs } = ctx;
  const docKey = inputs['Document Key'];
  const max = inputs['Max Attempts'];
  const base = { docKey, check: 'reading', checkType: 'DOCUMENT_READING', displayName: spec.displayName };
  const images = await documentImages(ctx, docKey, inputs['Image Profile'] === 'Uncropped' ? 'Uncropped' : 'Cropped');
  const { engine, serviceId } = await engineFor(ctx);
  if (images.length === 0) {
    const c: DocumentCheck = { ...base, result: 'FAIL', description: 'The Document Key has no capture to read.', details: { reason: 'noCapture', engine: engine.name } };
    await keepCheck(ctx, spec.type, c);
    throw activityError(spec, 'DocumentProcessingFailed', 'Document Processor: the Document Key has no capture.');
  }
  const readings: (DocumentReading & { side: string; captureId: string })[] = [];
  for (const image of images) {
    readings.push({ side: image.side, captureId: image.capture.captureId, ...(await readWith(engine, { bytes: image.bytes, pixels: image.document }, serviceId)) });
  }
  const best = readings.find((r) => r.mrz?.valid) ?? readings.find((r) => r.mrz);
  const mrz = best?.mrz;
  const fields = best ? familyFields(best) : {};
  // DocType asks for the document's type: any MRZ read, or the class a service recognised.
  const enough = inputs.Scenario === 'DocType' ? mrz !== undefined || fields.documentClassification !== undefined : mrz?.valid === true;
  const summary = mrz ? { format: mrz.format, valid: mrz.valid, checkDigits: mrz.checkDigits } : undefined;
  const regulaStatus = (best as { regulaStatus?: unknown } | undefined)?.regulaStatus;
  const details = {
    engine: engine.name,
    ...(serviceId ? { serviceId } : {}),
    ...(regulaStatus ? { regulaStatus } : {}),
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
      [docKey]: { fields, ...(summary ? { mrz: summary } : {}), engine: engine.name },
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
