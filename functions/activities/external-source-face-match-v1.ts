import { keepStepData } from './service-user-data.js';
import { imageRefusal, type Comparison, type DetectedFace } from '../faces/model.js';
import { THRESHOLDS } from '../faces/quality.js';
import { faceImageRecord, inspectFaceImage } from '../journey/face-capture.js';
import { MAX_FACE_UPLOAD_BYTES, type FaceUploadSlot } from '../process-manager/instances/face-uploads.js';
import type { CheckRecord, CheckResult, ImageRecord } from '../process-manager/model.js';
import { ActivityError, withCheck, type ActivityAccess, type ServiceContext, type ServiceRun , activityError } from './contract.js';
import { liveFace } from './live-face.js';
import { runWithForcedCheck } from './forced-check.js';
import { key } from './spec.js';
import { spec } from './specs/external-source-face-match-v1.js';

/**
 * Reads both images (the upload by a ranged GET: a pre-signed PUT cannot cap its size), finds
 * the upload's face and compares the two; keeps the check, the upload's record and the failed
 * attempts beside the instance.
 */
export const aws = {
  images: ['GetObject'],
  faces: ['DetectFaces', 'CompareFaces'],
  table: ['PutItem', 'UpdateItem', 'GetItem'],
} as const satisfies ActivityAccess;

/** Where the match's check is in the session and in user data. */
const CHECK_KEY = 'faceMatch';

type Ctx = ServiceContext<typeof spec>;

/** Why no template could be made (the check's `moreinfo.reason`). */
type TemplateProblem = 'noUploadRequested' | 'notUploaded' | 'tooLarge' | 'notAnImage' | 'unreadable' | 'tooSmall' | 'noFace' | 'manyFaces' | 'noLiveCapture';

const PROBLEM_TEXT: Record<TemplateProblem, string> = {
  noUploadRequested: 'The instance has no upload for the external image key.',
  notUploaded: 'Nothing was uploaded for the external image key.',
  tooLarge: `The uploaded image is larger than ${MAX_FACE_UPLOAD_BYTES} bytes.`,
  notAnImage: 'The uploaded file is neither a JPEG nor a PNG.',
  unreadable: 'The uploaded image does not decode.',
  tooSmall: 'The uploaded image is too small to show a face.',
  noFace: 'No face was found in the uploaded image.',
  manyFaces: 'More than one face was found in the uploaded image.',
  noLiveCapture: 'The live face key has no capture to compare.',
};

/**
 * The uploaded image compared with the latest live capture, largest face to largest face. A
 * match (similarity at or above the engine's threshold, functions/faces/quality.ts) sets
 * `_checks.faceMatch` and the journey goes on; a failed one counts an attempt (once per pair of
 * images, in the table: a failing step keeps no session) and raises an error event. Either way
 * the check and the upload's record go into user data (and so into the archive), replacing an
 * earlier attempt's. No template is kept: Rekognition's CompareFaces stores none, and the
 * embedded engine's live only in memory for the comparison.
 */
export const run: ServiceRun<typeof spec> = (ctx) =>
  runWithForcedCheck(ctx.session, {
    key: CHECK_KEY,
    checkType: 'FACE_MATCH',
    displayName: 'Face match',
    failures: ['FaceMatchFailed', 'FaceMatchCountExceeded', 'FaceTemplateGenerationFailed'],
    failure: () => activityError(spec, 'FaceMatchFailed', 'Test mode: the face match was forced to FAIL.'),
  }, () => match(ctx));

async function match(ctx: Ctx) {
  const { inputs, session, tenantId, deps } = ctx;
  const { faces } = deps;
  const threshold = THRESHOLDS[faces.name].match;

  const reference = await readUpload(ctx);
  if ('problem' in reference) return templateFailure(ctx, reference.problem);
  const found = await liveFace(deps, session, tenantId, inputs['Live Face Key']);
  if (!found) return templateFailure(ctx, 'noLiveCapture', reference.record);
  const live = found.capture;

  let comparison: Comparison;
  try {
    comparison = await faces.compare({ bytes: reference.bytes }, { bytes: found.bytes });
  } catch (err) {
    const refused = imageRefusal(err);
    if (!refused) throw err;
    return templateFailure(ctx, refused, reference.record);
  }
  if ('noFace' in comparison) return templateFailure(ctx, comparison.noFace === 'source' ? 'noFace' : 'noLiveCapture', reference.record);
  const { similarity } = comparison;
  const matched = similarity >= threshold;
  const attempt = { live: live.captureId, upload: reference.record.captureId };
  const max = inputs['Max Attempts'] ?? 3;
  const failures = matched ? undefined : await countFailure(ctx, `${attempt.upload}/${attempt.live}`, max);
  const check = matchCheck(ctx, matched ? 'PASS' : 'FAIL', {
    description: matched
      ? `The faces match: similarity ${similarity}, at or above ${threshold}.`
      : `The faces do not match: similarity ${similarity}, below ${threshold} (failed attempts: ${failures}; Max Attempts: ${max}).`,
    moreinfo: { similarity, threshold, liveCaptureId: live.captureId, uploadCaptureKey: reference.record.captureId, ...(failures === undefined ? {} : { failedAttempts: failures }), maxAttempts: max },
  });
  await keep(ctx, check, reference.record, { similarity, threshold, liveCaptureId: live.captureId, ...(failures === undefined ? {} : { failedAttempts: failures }) });
  if (failures !== undefined) {
    // The Cause names no value the end user gave: only counts.
    if (failures > max) throw activityError(spec, 'FaceMatchCountExceeded', `${failures} failed face matches, more than Max Attempts (${max}).`);
    throw activityError(spec, 'FaceMatchFailed', `The faces did not match (failed attempts: ${failures}; Max Attempts: ${max}).`);
  }
  return withCheck(session, CHECK_KEY, { result: 'PASS', checkType: check.checkType, displayName: check.displayName, similarity, threshold, engine: faces.name });
}

/** The upload of the image key, read at most 5 MiB, checked by its bytes and with exactly one face. */
async function readUpload({ inputs, session, tenantId, now, deps: { faceUploadKey, faces, images } }: Ctx): Promise<{ bytes: Buffer; record: ImageRecord } | { problem: TemplateProblem }> {
  const imageKey = inputs['External Image Key'];
  const uploads = (session._externalSources as { faceUploads?: Record<string, Partial<FaceUploadSlot>> } | undefined)?.faceUploads;
  const slot = uploads && Object.hasOwn(uploads, imageKey) ? uploads[imageKey] : undefined;
  if (!slot || typeof slot.captureKey !== 'string') return { problem: 'noUploadRequested' };
  const processInstanceId = session.instance.processInstanceId;
  // The key is made again from the slot's parts, under this instance's prefix.
  const objectKey = faceUploadKey(tenantId, processInstanceId, imageKey, slot.captureKey, slot.imageFormat === 'PNG' ? 'png' : 'jpg');
  const bytes = await images.getAtMost(tenantId, processInstanceId, objectKey, MAX_FACE_UPLOAD_BYTES);
  if (bytes === undefined) return { problem: 'notUploaded' };
  if (bytes === 'tooLarge') return { problem: 'tooLarge' };
  // Judged by its header here: the engine decodes it (Rekognition on AWS, which refuses what does
  // not decode), so this function needs no memory for a 40 MP photo's pixels.
  const image = inspectFaceImage(bytes, MAX_FACE_UPLOAD_BYTES, false);
  if ('problem' in image) return { problem: image.problem === 'missing' ? 'notUploaded' : image.problem };
  let found: DetectedFace[];
  try {
    ({ faces: found } = await faces.detect({ bytes }));
  } catch (err) {
    const refused = imageRefusal(err);
    if (!refused) throw err;
    return { problem: refused };
  }
  if (found.length === 0) return { problem: 'noFace' };
  if (found.length > 1) return { problem: 'manyFaces' };
  // capturedAt: when the step read it (S3's upload time is not asked for).
  return { bytes, record: faceImageRecord({ faceKey: imageKey, image, bytes, objectKey: () => objectKey, now, captureId: slot.captureKey }) };
}

/**
 * One more failed attempt for this pair of images. Without the instance's expiry (an execution
 * from before sessions were kept in the table) nothing can be kept beside it: the count fails
 * closed, as if the attempts were used up.
 */
async function countFailure({ tenantId, session, activityId, expiresAt, deps }: Ctx, attemptId: string, max: number): Promise<number> {
  if (expiresAt === undefined) return max + 1;
  return deps.instances.countFailedAttempt(tenantId, session.instance.processInstanceId, activityId, attemptId, expiresAt);
}

function matchCheck({ activityId, now, inputs, deps: { faces } }: Ctx, result: CheckResult, detail: { description: string; moreinfo: Record<string, unknown> }): CheckRecord {
  return {
    checkId: CHECK_KEY,
    activityId,
    checkType: 'FACE_MATCH',
    result,
    displayName: 'Face match',
    description: detail.description,
    moreinfo: JSON.stringify({ engine: faces.name, externalImageKey: inputs['External Image Key'], liveFaceKey: inputs['Live Face Key'], result, ...detail.moreinfo }),
    checkedAt: now.toISOString(),
    reports: [{ name: 'faceMatch', result, description: detail.description }],
  };
}

/** The check, the upload's record and the figures, as this step's user data (kept as long as the instance). */
function keep(ctx: Ctx, check: CheckRecord, upload: ImageRecord | undefined, values: Record<string, unknown>): Promise<void> {
  return keepStepData(ctx, {
    activityType: spec.type,
    dataKey: CHECK_KEY,
    values: { externalImageKey: ctx.inputs['External Image Key'], liveFaceKey: ctx.inputs['Live Face Key'], ...values },
    check,
    ...(upload ? { images: [upload] } : {}),
  });
}

/** No template could be made of one side: the check says why, and the step raises its error event. Not a failed attempt. */
async function templateFailure(ctx: Ctx, problem: TemplateProblem, upload?: ImageRecord): Promise<never> {
  const check = matchCheck(ctx, 'FAIL', { description: PROBLEM_TEXT[problem], moreinfo: { reason: problem } });
  await keep(ctx, check, upload, { reason: problem });
  throw activityError(spec, 'FaceTemplateGenerationFailed', PROBLEM_TEXT[problem]);
}
