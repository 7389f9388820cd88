import { judgeQuality, THRESHOLDS, type FaceProblem } from '../faces/quality.js';
import { imageRefusal } from '../faces/model.js';
import { faceCaptureCheck, faceImageRecord, inspectFaceImage, type ImageProblem } from '../journey/face-capture.js';
import { latestCapture, livenessAttemptsLeft } from '../journey/live-capture.js';
import { MAX_FACE_IMAGE_BYTES } from '../journey/face-limits.js';
import { CONSENT_FIELD, LIVENESS_SESSION_FIELD, noticeRecord, renderFaceCapture, SOURCE_FIELD, type FaceNotice } from '../journey/screens/face-capture.js';
import { journeyUrl } from '../journey/screen-context.js';
import type { Screens, StepView, SubmissionRequest, Submission } from './contract.js';
import { key } from './spec.js';
import { own } from '../shared/own.js';
import { spec } from './specs/capture-face-image.js';
import { forceCheck, forcedOutcome, forceSessionCheck, sessionSandbox } from '../process-manager/sandbox.js';
import type { CheckRecord } from '../process-manager/model.js';
import type { FaceEngine } from '../faces/model.js';
import { CHALLENGE_FIELDS, CHALLENGE_REFUSALS, challengeAnswer, challengeCheck, challengeScore, judgeAnswer, type ChallengeProblem, type JudgedChallenge } from './liveness-challenge-step.js';
import { readSession, SESSION_REFUSALS, sessionCheck, type SessionProblem } from './face-liveness-session-step.js';
import type { ImageRecord } from '../process-manager/model.js';

/** What a capture that test mode took without a usable face found (its forced outcome is laid over it). */
function unusableCheck(input: { faceKey: string; activityId: string; engine: FaceEngine['name']; problem: string; now: Date }): CheckRecord {
  const description = `No usable face was found (${input.problem}).`;
  return {
    checkId: input.faceKey,
    activityId: input.activityId,
    checkType: 'FACE_CAPTURE',
    result: 'FAIL',
    displayName: 'Face image capture',
    description,
    moreinfo: JSON.stringify({ engine: input.engine, problem: input.problem }),
    checkedAt: input.now.toISOString(),
    reports: [{ name: 'faceCapture', result: 'FAIL', description }],
  };
}

/** Why a photo is refused before it is judged: no consent given (Require Consent), or a chosen file where the step takes the camera's only. */
type PostProblem = 'consentMissing' | 'liveOnly';

/** The stable codes of a refusal (kept on the step, shown on the page as `data-code`). */
const REFUSAL_CODES: Record<PostProblem | ChallengeProblem | SessionProblem, string> = {
  consentMissing: 'CONSENT_REQUIRED',
  liveOnly: 'FACE_UPLOAD_NOT_ALLOWED',
  ...CHALLENGE_REFUSALS,
  ...SESSION_REFUSALS,
};

const DECLINED = spec.errorEvents[0].aslError;

/** The notice before the capture: the relying party (the definition's presentation), the instance's retention, the step's Require Consent. */
function noticeOf(view: StepView<typeof spec>): FaceNotice {
  const presentation = view.record.pages?.presentation;
  return {
    recipient: presentation?.name,
    retentionDays: view.record.retentionDays,
    privacyUrl: presentation?.privacyUrl,
    required: view.inputs['Require Consent'] === true,
  };
}

/** Back at the capture after Face Liveness's "Failed Face Liveness" route: the attempts left it named. */
const afterFailedLiveness = ({ step, inputs }: StepView<typeof spec>) =>
  latestCapture(step.state as { _faces?: Record<string, unknown> }, inputs['Face Key']) !== undefined ? livenessAttemptsLeft(step.state) : undefined;

const capturePage = (view: StepView<typeof spec>, error?: string, code?: string, attemptsLeft?: number) =>
  renderFaceCapture({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'face'),
    maxBytes: MAX_FACE_IMAGE_BYTES,
    format: view.inputs['Image Format'] === 'PNG' ? 'PNG' : 'JPEG',
    camera: { width: view.inputs['Camera Width'], height: view.inputs['Camera Height'], timeoutSeconds: view.inputs['Timeout (in seconds)'] },
    notice: noticeOf(view),
    liveOnly: view.inputs['Require Live Camera'] === true,
    ...(error ? { error } : {}),
    code,
    attemptsLeft,
    chrome: view.chrome,
    rekognition:
      view.inputs['Liveness Check'] === 'REKOGNITION'
        ? {
            url: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'face/liveness-session'),
            flashing: view.inputs['Rekognition Challenge'] !== 'FaceMovementChallenge',
            offerAnotherWay: view.inputs['Offer Another Way'] === true,
          }
        : undefined,
    challenge:
      view.inputs['Liveness Check'] === 'ACTIVE'
        ? { url: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'face/challenge'), offerAnotherWay: view.inputs['Offer Another Way'] === true }
        : undefined,
  });

/** A photo refused: kept on the step, whose page then says why (no image is kept). */
const refuse = (problem: ImageProblem | FaceProblem | PostProblem | ChallengeProblem | SessionProblem) => ({
  refused: { code: (REFUSAL_CODES as Record<string, string>)[problem] ?? 'FACE_IMAGE_REFUSED', errors: { image: problem } },
});

/**
 * Back at the capture after External Source Face Match v1's "Failed face to face match" route:
 * the page says so. Only for a Face Key captured before (the error stays in the session, and a
 * later capture step of another key was never compared).
 */
const afterFailedMatch = ({ step, inputs }: StepView<typeof spec>) =>
  latestCapture(step.state as { _faces?: Record<string, unknown> }, inputs['Face Key']) !== undefined &&
  (step.state._lastError as { Error?: unknown } | undefined)?.Error === 'FaceMatchFailed';

export const screens: Screens<typeof spec> = {
  component: 'face-capture',
  render: {
    'face-capture': (view) => {
      if (view.refusal) return capturePage(view, view.refusal.errors.image, view.refusal.code);
      const left = afterFailedLiveness(view);
      return left !== undefined ? capturePage(view, 'livenessFailed', undefined, left) : capturePage(view, afterFailedMatch(view) ? 'noMatch' : undefined);
    },
  },
};

/** A multipart post's `image` (or why there is none), and the fields beside it: the consent box and the camera mark. */
async function uploadedImage(upload: SubmissionRequest['upload']): Promise<{ image: Uint8Array | ImageProblem; consent: boolean; camera: boolean; form?: FormData }> {
  const none = (image: ImageProblem) => ({ image, consent: false, camera: false });
  if (!upload || upload.bytes.length === 0) return none('missing');
  if (upload.bytes.length > MAX_FACE_IMAGE_BYTES + 64 * 1024) return none('tooLarge');
  let form: FormData;
  try {
    form = await new Response(upload.bytes, { headers: { 'content-type': upload.contentType } }).formData();
  } catch {
    return none('missing');
  }
  const consent = form.get(CONSENT_FIELD) === 'yes';
  const camera = form.get(SOURCE_FIELD) === 'camera';
  const file = form.get('image');
  if (!file || typeof file === 'string' || file.size === 0) return { image: 'missing', consent, camera, form };
  return { image: new Uint8Array(await file.arrayBuffer()), consent, camera, form };
}

/**
 * A face image: checked by its bytes, stored in S3 under the tenant and instance, recorded (with
 * its check) in the session under `_faces.{Face Key}` and `_checks.{Face Key}`. A refused image
 * gets the page again, saying why.
 */
/**
 * The step's completion with a kept capture: appended to `_faces.{Face Key}` (newest last), its
 * short check in `_checks.{Face Key}` (the forced outcome laid over it in test mode), and the
 * step's user data: the image's facts, where it came from, and the notice shown (its version,
 * language and words' hash) with, where the step asked for it, when the end user agreed.
 */
function captureCompletion(input: {
  view: StepView<typeof spec>;
  stored: ImageRecord;
  short: Record<string, unknown>;
  check: CheckRecord;
  forced: ReturnType<typeof forcedOutcome>;
  source: string;
  extra?: Record<string, unknown>;
  images?: ImageRecord[];
  notice: FaceNotice;
  now: Date;
}) {
  const { view, stored, short, forced, notice, now } = input;
  const faceKey = view.inputs['Face Key'];
  const { objectKey: _key, kind: _kind, imageKey: _imageKey, auditOf: _auditOf, ...capture } = stored;
  const faces = (view.step.state._faces ?? {}) as Record<string, { captures?: unknown[] }>;
  return {
    complete: {
      result: {
        _faces: { [faceKey]: { captures: [...(own(faces, faceKey)?.captures ?? []), capture] } },
        _checks: { [faceKey]: forced ? forceSessionCheck(short, forced) : short },
      },
      values: {
        faceKey,
        captureId: stored.captureId,
        format: stored.format,
        width: stored.width,
        height: stored.height,
        bytes: stored.bytes,
        source: input.source,
        ...input.extra,
        notice: { ...noticeRecord(view.lang, notice), consentRequired: notice.required, ...(notice.required ? { consentGivenAt: now.toISOString() } : {}) },
      },
      dataKey: faceKey,
      check: input.check,
      images: input.images ?? [stored],
    },
  };
}

type CaptureView = StepView<typeof spec, 'faces' | 'images' | 'faceCaptureKey' | 'livenessChallenges' | 'faceLiveness' | 'faceLivenessSessions'>;

/**
 * Liveness Check REKOGNITION: no image comes with the post, only the session's id; its result
 * is read from Rekognition (once), its reference image kept as the capture and its audit images
 * beside it (the bytes first, as every capture's), and the check made of its confidence.
 */
async function rekognitionCapture(view: CaptureView, form: FormData | undefined, notice: FaceNotice, now: Date) {
  const { images, faceCaptureKey } = view.deps;
  const { record, step } = view;
  const given = form?.get(LIVENESS_SESSION_FIELD);
  const read = await readSession(view.deps, { record, activityId: step.activityId, sessionId: typeof given === 'string' ? given : undefined, now });
  if ('problem' in read) return refuse(read.problem);
  // Rekognition's reference image is a JPEG frame of the video; one the capture limits refuse is no result.
  const image = inspectFaceImage(read.reference);
  if ('problem' in image) return refuse('sessionFailed');
  const faceKey = view.inputs['Face Key'];
  const objectKey = (extension: 'jpg' | 'png') => (captureId: string) => faceCaptureKey(record.tenantId, record.id, faceKey, captureId, extension);
  const stored = faceImageRecord({ faceKey, image, bytes: read.reference, objectKey: objectKey(image.extension), now });
  const audit = read.audit.flatMap((bytes, i): { record: ImageRecord; bytes: Uint8Array }[] => {
    const inspected = inspectFaceImage(bytes);
    if ('problem' in inspected) return [];
    const captureId = `${stored.captureId}-audit-${i + 1}`;
    return [{ record: { ...faceImageRecord({ faceKey, image: inspected, bytes, objectKey: objectKey(inspected.extension), now, captureId }), auditOf: stored.captureId }, bytes }];
  });
  await images.put(stored.objectKey, read.reference, stored.contentType, stored.sha256);
  for (const a of audit) await images.put(a.record.objectKey, a.bytes, a.record.contentType, a.record.sha256);
  const found = sessionCheck({
    faceKey,
    activityId: step.activityId,
    scored: read,
    threshold: view.inputs['Rekognition Threshold'],
    nearMiss: view.inputs['Liveness Near Miss'] === 'REVIEW' ? 'REVIEW' : 'FAIL',
    image: stored,
    audit: audit.map((a) => a.record),
    now,
  });
  const forced = forcedOutcome(sessionSandbox(step.state), faceKey);
  const check = forced ? forceCheck(found, forced) : found;
  const short = { result: found.result, checkType: found.checkType, displayName: found.displayName, liveness: read.confidence, method: 'REKOGNITION' };
  return captureCompletion({
    view,
    stored,
    short,
    check,
    forced,
    source: 'rekognition',
    extra: { auditImages: audit.length },
    images: [stored, ...audit.map((a) => a.record)],
    notice,
    now,
  });
}

export const submission: Submission<typeof spec, 'faces' | 'images' | 'faceCaptureKey' | 'livenessChallenges' | 'faceLiveness' | 'faceLivenessSessions'> = {
  part: 'face',
  async submit(view, { upload }, now) {
    const { faces: faceEngine, images, faceCaptureKey } = view.deps;
    const posted = await uploadedImage(upload);
    const notice = noticeOf(view);
    const active = view.inputs['Liveness Check'] === 'ACTIVE';
    const rekognition = view.inputs['Liveness Check'] === 'REKOGNITION';
    // Another way (Offer Another Way): the end user cannot do the challenge; nothing of theirs is looked at.
    if ((active || rekognition) && view.inputs['Offer Another Way'] === true && posted.form?.get(CHALLENGE_FIELDS.action) === 'decline') {
      return { fail: { error: DECLINED, cause: `The end user chose another way at ${view.step.activityId} instead of the liveness challenge.` } };
    }
    // Nothing of the image is looked at before the end user agreed to the notice, where the step asks for it.
    if (notice.required && !posted.consent) return refuse('consentMissing');
    if (rekognition) return rekognitionCapture(view, posted.form, notice, now);
    // The page's script marks a photo its camera took. The mark is the page's word, not proof
    // (the bytes of a camera photo and of a file are alike): it keeps an honest browser from
    // offering a file; the liveness score judges the face either way.
    if (view.inputs['Require Live Camera'] === true && !posted.camera) return refuse('liveOnly');
    const bytes = posted.image;
    if (typeof bytes === 'string') return refuse(bytes);
    const image = inspectFaceImage(bytes);
    if ('problem' in image) return refuse(image.problem);
    // Judged by the face in it: what is wrong with it goes back to the end user to fix, and the
    // step waits; a usable face is then judged live or not, which the check records. In test
    // mode a check the token forces takes any whole image, face or not (a headless browser's
    // fake camera shows none): the check records what was found, and the forced outcome.
    const forced = forcedOutcome(sessionSandbox(view.step.state), view.inputs['Face Key']);
    const thresholds = THRESHOLDS[faceEngine.name];
    let verdict: ReturnType<typeof judgeQuality> | undefined;
    let liveness: number | undefined;
    let problem: FaceProblem | ImageProblem | undefined;
    let judged: JudgedChallenge | undefined;
    try {
      verdict = judgeQuality(await faceEngine.detect({ bytes }), thresholds);
      problem = verdict.problems[0] ?? (verdict.face ? undefined : 'noFace');
      if (problem && !forced) return refuse(problem);
      if (!problem && active && !forced) {
        // The challenge's frames, judged beside the photo (test mode's forced outcome takes the photo alone).
        const answer = posted.form ? await challengeAnswer(posted.form) : { nonce: undefined, frames: [], times: [] };
        const outcome = await judgeAnswer(view.deps, { record: view.record, activityId: view.step.activityId, answer, still: bytes, nearMiss: view.inputs['Liveness Near Miss'] === 'REVIEW' ? 'REVIEW' : 'FAIL', now });
        if ('problem' in outcome) return refuse(outcome.problem);
        judged = outcome;
        liveness = challengeScore(outcome.verdict.result);
      } else if (!problem) liveness = (await faceEngine.liveness({ bytes })).score;
    } catch (err) {
      // An image the engine refuses (Rekognition on AWS, or a decode that failed or ran out of
      // time) is the end user's to replace, as one refused above.
      const refused = imageRefusal(err);
      if (!refused) throw err;
      if (!forced) return refuse(refused);
      problem = refused;
    }

    const { record, step } = view;
    const faceKey = view.inputs['Face Key'];
    const stored = faceImageRecord({
      faceKey,
      image,
      bytes,
      objectKey: (captureId) => faceCaptureKey(record.tenantId, record.id, faceKey, captureId, image.extension),
      now,
    });
    // The bytes first: user data never names an image that is not there. An image whose step was
    // completed meanwhile stays under the instance's prefix until its retention ends.
    await images.put(stored.objectKey, bytes, stored.contentType, stored.sha256);
    const found = judged
      ? challengeCheck({ faceKey, activityId: step.activityId, engine: faceEngine.name, judged, now })
      : verdict?.face && liveness !== undefined && !problem
        ? faceCaptureCheck({ faceKey, activityId: step.activityId, image: stored, engine: faceEngine.name, thresholds, face: verdict.face, liveness, now })
        : unusableCheck({ faceKey, activityId: step.activityId, engine: faceEngine.name, problem: problem ?? 'noFace', now });
    const check = forced ? forceCheck(found, forced) : found;
    const face = !problem ? verdict?.face : undefined;
    const short = {
      result: found.result,
      checkType: found.checkType,
      displayName: found.displayName,
      ...(face && liveness !== undefined ? { liveness, quality: face.quality, pose: face.pose } : {}),
      ...(judged ? { method: 'ACTIVE', ...(judged.verdict.reason ? { reason: judged.verdict.reason } : {}) } : {}),
    };
    return captureCompletion({ view, stored, short, check, forced, source: posted.camera ? 'camera' : 'file', notice, now });
  },
};
