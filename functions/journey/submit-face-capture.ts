import { apiHandler } from '../http/wrapper.js';
import { orchestrator } from '../process-manager/orchestrator.js';
import { openWaitingStep } from './access.js';
import { faceCaptureObjectKey, images } from './deps.js';
import { faceCaptureCheck, faceImageRecord, inspectFaceImage, type ImageProblem } from './face-capture.js';
import { MAX_FACE_IMAGE_BYTES } from './face-limits.js';
import { journeyUrl } from './pages.js';
import { pickLanguage, renderFaceCapture } from './render.js';
import { completeUserStep } from './steps.js';
import { journeyRoutes as routes } from './journey-routes.js';

/** The `image` field of a multipart post, or why there is none. */
async function uploadedImage(upload: { contentType: string; bytes: Buffer } | undefined): Promise<Uint8Array | ImageProblem> {
  if (!upload || upload.bytes.length === 0) return 'missing';
  if (upload.bytes.length > MAX_FACE_IMAGE_BYTES + 64 * 1024) return 'tooLarge';
  let form: FormData;
  try {
    form = await new Response(upload.bytes, { headers: { 'content-type': upload.contentType } }).formData();
  } catch {
    return 'missing';
  }
  const file = form.get('image');
  if (!file || typeof file === 'string' || file.size === 0) return 'missing';
  return new Uint8Array(await file.arrayBuffer());
}

/**
 * A face image sent to a Capture Face Image step: checked by its bytes, stored in S3 under the
 * tenant and instance, recorded (with its check) in the session under `_faces.{Face Key}` and
 * `_checks.{Face Key}`, and the journey resumes. A refused image gets the page again, saying why.
 */
export const handler = apiHandler(routes.submitFaceCapture, async ({ tenantId, path, query, upload, now }) => {
  const lang = pickLanguage(query.lang);
  const { record, step } = await openWaitingStep(tenantId, { ...path, capability: query.c }, ['CAPTURE_FACE_IMAGE'], now);
  const action = journeyUrl(record, query.c, lang, step.activityId, 'face');
  const refuse = (error: ImageProblem) => ({
    status: 400,
    raw: { contentType: 'text/html; charset=utf-8', body: renderFaceCapture({ lang, action, maxBytes: MAX_FACE_IMAGE_BYTES, error }) },
  });

  const bytes = await uploadedImage(upload);
  if (typeof bytes === 'string') return refuse(bytes);
  const image = inspectFaceImage(bytes);
  if ('problem' in image) return refuse(image.problem);

  const faceKey = String(step.inputs['Face Key'] ?? 'face1');
  const stored = faceImageRecord({
    faceKey,
    image,
    bytes,
    objectKey: (captureId) => faceCaptureObjectKey(tenantId, record.id, faceKey, captureId, image.extension),
    now,
  });
  // The bytes first: user data never names an image that is not there. An image whose step was
  // completed meanwhile stays under the instance's prefix until its retention ends.
  await images.put(stored.objectKey, bytes, stored.contentType, stored.sha256);
  const check = faceCaptureCheck(faceKey, step.activityId, stored, now);
  const { objectKey: _key, kind: _kind, imageKey: _imageKey, ...capture } = stored;
  const faces = (step.state._faces ?? {}) as Record<string, { captures?: unknown[] }>;
  await completeUserStep(
    {
      tenantId,
      processInstanceId: record.id,
      activityId: step.activityId,
      result: {
        _faces: { [faceKey]: { captures: [...(faces[faceKey]?.captures ?? []), capture] } },
        _checks: { [faceKey]: { result: check.result, checkType: check.checkType, displayName: check.displayName } },
      },
      values: { faceKey, captureId: stored.captureId, format: stored.format, width: stored.width, height: stored.height, bytes: stored.bytes },
      dataKey: faceKey,
      check,
      images: [stored],
      record,
    },
    await orchestrator(),
    now,
  );
  return { status: 303, headers: { location: journeyUrl(record, query.c, lang) } };
});
