/**
 * The live face a later step works on: the newest capture of the Capture Face Image step with
 * the given Face Key (its record in `_faces.{Face Key}.captures`), read back from S3 under the
 * instance's prefix.
 */
import { latestCapture, type LiveCapture } from '../journey/live-capture.js';
import { MAX_FACE_IMAGE_BYTES } from '../journey/face-limits.js';
import type { CheckRecord } from '../process-manager/model.js';
import type { ActivityDeps, Session } from './contract.js';

/** The newest capture and its bytes, or undefined when the step has none (or its image is gone). */
export async function liveFace(
  { faceCaptureKey, images }: Pick<ActivityDeps, 'faceCaptureKey' | 'images'>,
  session: Session,
  tenantId: string,
  faceKey: string,
): Promise<{ capture: LiveCapture; bytes: Buffer } | undefined> {
  const capture = latestCapture(session, faceKey);
  if (!capture) return undefined;
  const id = session.instance.processInstanceId;
  const key = faceCaptureKey(tenantId, id, faceKey, capture.captureId, capture.format === 'PNG' ? 'png' : 'jpg');
  const bytes = await images.getAtMost(tenantId, id, key, MAX_FACE_IMAGE_BYTES);
  return bytes instanceof Buffer ? { capture, bytes } : undefined;
}

/** The session with `_checks.faces.{faceKey}.{check}` set (Face Quality Assessment's `quality`, Face Liveness's `liveness`, Face Template Generation's `template`). */
export function withFaceCheck(session: Session, faceKey: string, check: 'quality' | 'liveness' | 'template', value: Record<string, unknown>): Session {
  const checks = (session._checks ?? {}) as Record<string, unknown>;
  const faces = (checks.faces ?? {}) as Record<string, Record<string, unknown>>;
  return { ...session, _checks: { ...checks, faces: { ...faces, [faceKey]: { ...(faces[faceKey] ?? {}), [check]: value } } } };
}

/**
 * A face step's check as user data keeps it: `{faceKey}.{check}` (quality, liveness, template),
 * one report of the same name, its details (with the Face Key) as `moreinfo`.
 */
export function faceCheckRecord(
  ctx: { activityId: string; now: Date },
  c: { faceKey: string; check: 'quality' | 'liveness' | 'template'; checkType: string; displayName: string; result: CheckRecord['result']; description: string; details: Record<string, unknown> },
): CheckRecord {
  return {
    checkId: `${c.faceKey}.${c.check}`,
    activityId: ctx.activityId,
    checkType: c.checkType,
    result: c.result,
    displayName: c.displayName,
    description: c.description,
    moreinfo: JSON.stringify(c.details),
    checkedAt: ctx.now.toISOString(),
    reports: [{ name: c.check, result: c.result, description: c.description }],
  };
}
