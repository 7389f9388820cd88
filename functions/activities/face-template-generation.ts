import { createHash } from 'node:crypto';
import { imageRefusal } from '../faces/model.js';
import type { CheckRecord } from '../process-manager/model.js';
import { activityError, type ActivityAccess, type ServiceRun, type Session } from './contract.js';
import { faceCheckRecord, liveFace, withFaceCheck } from './live-face.js';
import { keepStepData } from './service-user-data.js';
import { spec } from './specs/face-template-generation.js';

/**
 * Reads the live capture and writes its template beside it (S3), keeps the check beside the
 * instance; the face model runs in the function (on AWS from its layer: no Rekognition call).
 */
export const aws = { images: ['GetObject', 'PutObject'], faceModel: true, table: ['PutItem'] } as const satisfies ActivityAccess;

/**
 * The newest live capture of Face Key made into a template: the embedded model's descriptor of
 * its one face, written as little-endian 32-bit floats next to the image (so it is encrypted,
 * retained and deleted with it), its reference and SHA-256 in `_faces.{Face Key}.template`. The
 * state never holds the template or the pixels.
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { inputs, deps, session, tenantId } = ctx;
  const faceKey = inputs['Face Key'];
  const live = await liveFace(deps, session, tenantId, faceKey);
  const made = async (): Promise<{ problem: string; faceCount?: number } | { faceCount: number; model: string; vector: number[] }> => {
    if (!live) return { problem: 'noLiveCapture' };
    try {
      const out = await deps.faces.template({ bytes: live.bytes });
      if (out.faceCount !== 1 || !out.template) return { problem: out.faceCount === 0 || !out.template ? 'noFace' : 'manyFaces', faceCount: out.faceCount };
      return { faceCount: 1, ...out.template };
    } catch (err) {
      const refused = imageRefusal(err);
      if (!refused) throw err;
      return { problem: refused };
    }
  };
  const outcome = await made();
  const captureId = live?.capture.captureId;
  let reference: Record<string, unknown> | undefined;
  if (!('problem' in outcome) && live && captureId) {
    const bytes = Buffer.from(new Float32Array(outcome.vector).buffer);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const objectKey = deps.faceTemplateKey(tenantId, session.instance.processInstanceId, faceKey, captureId);
    await deps.images.put(objectKey, bytes, 'application/octet-stream', sha256);
    reference = { captureId, model: outcome.model, dimensions: outcome.vector.length, sha256, createdAt: ctx.now.toISOString() };
  }
  const result = reference ? 'PASS' : 'FAIL';
  const problem = 'problem' in outcome ? outcome.problem : undefined;
  const description = reference
    ? `A template of the one face was made (${String(reference.model)}, ${String(reference.dimensions)} values) and kept beside the capture.`
    : `No template: ${problem}.`;
  const details = { faceKey, engine: deps.faces.name, ...(captureId ? { captureId } : {}), faceCount: outcome.faceCount ?? 0, ...(reference ? { model: reference.model, dimensions: reference.dimensions, sha256: reference.sha256 } : { problem }) };
  const check = faceCheckRecord(ctx, { faceKey, check: 'template', checkType: 'FACE_TEMPLATE', displayName: spec.displayName, result, description, details });
  await keepStepData(ctx, { activityType: spec.type, dataKey: `${faceKey}.template`, values: { result, ...details }, check });
  if (!reference) throw activityError(spec, 'FaceTemplateGenerationFailed', `Face Template Generation: ${problem}.`);
  return withFaceCheck(withTemplate(session, faceKey, reference), faceKey, 'template', { result, checkType: 'FACE_TEMPLATE', displayName: spec.displayName, ...details });
};

/** The session with `_faces.{faceKey}.template` set: where the template is, never the template. */
function withTemplate(session: Session, faceKey: string, reference: Record<string, unknown>): Session {
  const faces = (session._faces ?? {}) as Record<string, Record<string, unknown>>;
  return { ...session, _faces: { ...faces, [faceKey]: { ...(faces[faceKey] ?? {}), template: reference } } };
}
