import { imageRefusal } from '../faces/model.js';
import { judgeQuality, THRESHOLDS } from '../faces/quality.js';
import type { CheckRecord } from '../process-manager/model.js';
import { activityError, type ActivityAccess, type ServiceRun } from './contract.js';
import { faceCheckRecord, liveFace, withFaceCheck } from './live-face.js';
import { keepStepData } from './service-user-data.js';
import { spec } from './specs/check-face-quality.js';

/** Reads the live capture from S3, has the face engine look at it, keeps the check beside the instance. */
export const aws = { images: ['GetObject'], faces: ['DetectFaces'], table: ['PutItem'] } as const satisfies ActivityAccess;


/**
 * The newest live capture of Face Key judged by the engine's figures, as the capture judged it
 * (functions/faces/quality.ts, the engine's thresholds): one face, its size, pose, eyes,
 * sharpness and lighting. Every figure goes into the check beside its threshold; a capture that falls short
 * fails the step with what to fix first.
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { inputs, deps, session, tenantId } = ctx;
  const faceKey = inputs['Face Key'];
  const engine = deps.faces.name;
  const t = THRESHOLDS[engine];
  // The engine's capture thresholds, as judgeQuality uses them (not its liveness and match ones).
  const { liveness: _liveness, match: _match, documentMatch: _documentMatch, watchlist: _watchlist, ...thresholds } = t;
  const judged = async (): Promise<{ problems: string[]; figures: Record<string, number>; captureId?: string }> => {
    const live = await liveFace(deps, session, tenantId, faceKey);
    if (!live) return { problems: ['noLiveCapture'], figures: {} };
    let detection;
    try {
      detection = await deps.faces.detect({ bytes: live.bytes });
    } catch (err) {
      const refused = imageRefusal(err);
      if (!refused) throw err;
      return { problems: [refused], figures: {}, captureId: live.capture.captureId };
    }
    const verdict = judgeQuality(detection, t);
    const face = verdict.face;
    const figures: Record<string, number> = { faceCount: verdict.faceCount };
    if (face) {
      Object.assign(figures, {
        facePixels: Math.round(Math.min(face.box.width * detection.width, face.box.height * detection.height)),
        faceShare: Number(face.box.width.toFixed(3)),
        yaw: Number(face.pose.yaw.toFixed(1)),
        pitch: Number(face.pose.pitch.toFixed(1)),
        roll: Number(face.pose.roll.toFixed(1)),
        eyesOpen: face.eyes.open,
        eyesVisible: face.eyes.visible,
        sharpness: Number(face.quality.sharpness.toFixed(1)),
        brightness: Number(face.quality.brightness.toFixed(1)),
      });
    }
    return { problems: verdict.problems, figures, captureId: live.capture.captureId };
  };
  const { problems, figures, captureId } = await judged();
  const result = problems.length === 0 ? 'PASS' : 'FAIL';
  const description = problems.length === 0 ? 'The face is usable: one face, large, frontal, eyes open and uncovered, sharp and lit enough.' : `To fix: ${problems.join(', ')}.`;
  const details = { engine, faceKey, ...(captureId ? { captureId } : {}), figures, thresholds, problems };
  const check = faceCheckRecord(ctx, { faceKey, check: 'quality', checkType: 'FACE_QUALITY', displayName: spec.displayName, result, description, details });
  await keepStepData(ctx, { activityType: spec.type, dataKey: `${faceKey}.quality`, values: { faceKey, result, figures }, check });
  if (problems.length > 0) throw activityError(spec, 'FaceQualityFailed', `Face Quality Assessment: ${problems.join(', ')}.`);
  return withFaceCheck(session, faceKey, 'quality', { result, checkType: 'FACE_QUALITY', displayName: spec.displayName, ...details });
};
