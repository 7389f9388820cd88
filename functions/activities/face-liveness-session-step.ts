/**
 * A Capture Face Image step under Liveness Check REKOGNITION, as its submission takes it: the
 * session the page names (bound to the instance and step, unexpired, its result taken once),
 * its result read from Rekognition, and the check made of its confidence against the step's
 * Rekognition Threshold. The session's reference image becomes the capture; its audit images
 * are kept beside it.
 */
import type { FaceLivenessService, FaceLivenessSessionRecord, FaceLivenessSessionStore } from '../faces/model.js';
import type { CheckRecord, ImageRecord, ProcessInstanceRecord } from '../process-manager/model.js';

/** Why a session's answer is refused: the page then starts a new session. */
export type SessionProblem = 'challengeMissing' | 'challengeExpired' | 'challengeUsed' | 'sessionPending' | 'sessionFailed';

export const SESSION_REFUSALS: Record<'sessionPending' | 'sessionFailed', string> = {
  sessionPending: 'LIVENESS_SESSION_PENDING',
  sessionFailed: 'LIVENESS_SESSION_FAILED',
};

/** How far under the threshold a confidence is a near miss, sent to review under Liveness Near Miss REVIEW. */
export const NEAR_MISS_BAND = 0.1;

export interface ScoredSession {
  session: FaceLivenessSessionRecord;
  confidence: number;
  reference: Uint8Array;
  audit: Uint8Array[];
}

/** A session id as Rekognition gives them (a UUID); anything else is no session. */
const SESSION_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * Finds the session the post names and reads its result: a problem (a session not finished is
 * not spent, so the page may send it again) or its score and images, the session then taken.
 */
export async function readSession(
  deps: { faceLiveness: () => FaceLivenessService | undefined; faceLivenessSessions: FaceLivenessSessionStore },
  input: { record: ProcessInstanceRecord; activityId: string; sessionId: string | undefined; now: Date },
): Promise<{ problem: SessionProblem } | ScoredSession> {
  const { record, sessionId, now } = input;
  if (!sessionId || !SESSION_ID.test(sessionId)) return { problem: 'challengeMissing' };
  const service = deps.faceLiveness();
  if (!service) return { problem: 'challengeExpired' };
  const session = await deps.faceLivenessSessions.get(record.tenantId, record.id, sessionId, now);
  if (!session || session.activityId !== input.activityId) return { problem: 'challengeExpired' };
  if (session.usedAt) return { problem: 'challengeUsed' };
  const result = await service.sessionResult(sessionId);
  if (result.outcome === 'pending') return { problem: 'sessionPending' };
  if (!(await deps.faceLivenessSessions.use(session, now.toISOString()))) return { problem: 'challengeUsed' };
  if (result.outcome === 'unusable') return { problem: result.reason === 'expired' || result.reason === 'notFound' ? 'challengeExpired' : 'sessionFailed' };
  return { session, confidence: result.confidence, reference: result.reference, audit: result.audit };
}

/** The session's verdict: PASS at or above the threshold, REVIEW within the near-miss band under it (when the step says so), else FAIL. */
export function sessionResult(confidence: number, threshold: number, nearMiss: 'FAIL' | 'REVIEW'): CheckRecord['result'] {
  if (confidence >= threshold) return 'PASS';
  return nearMiss === 'REVIEW' && confidence >= threshold - NEAR_MISS_BAND ? 'REVIEW' : 'FAIL';
}

/** The capture's check under Rekognition Face Liveness: the confidence with its threshold, and what was kept. */
export function sessionCheck(input: {
  faceKey: string;
  activityId: string;
  scored: ScoredSession;
  threshold: number;
  nearMiss: 'FAIL' | 'REVIEW';
  image: ImageRecord;
  audit: readonly ImageRecord[];
  now: Date;
}): CheckRecord {
  const { scored, threshold } = input;
  const result = sessionResult(scored.confidence, threshold, input.nearMiss);
  const words =
    result === 'PASS'
      ? `Rekognition Face Liveness judged the face live: confidence ${scored.confidence}, at or above ${threshold}.`
      : result === 'REVIEW'
        ? `Rekognition Face Liveness's confidence ${scored.confidence} fell just under ${threshold}: a person should review it.`
        : `Rekognition Face Liveness did not judge the face live: confidence ${scored.confidence}, under ${threshold}.`;
  return {
    checkId: input.faceKey,
    activityId: input.activityId,
    checkType: 'FACE_CAPTURE',
    result,
    displayName: 'Face image capture with Rekognition Face Liveness',
    description: words,
    moreinfo: JSON.stringify({
      engine: 'rekognition-face-liveness',
      method: 'REKOGNITION',
      score: scored.confidence,
      threshold,
      challenge: scored.session.challenge,
      sessionId: scored.session.sessionId,
      referenceImage: input.image.captureId,
      auditImages: input.audit.map((a) => a.captureId),
    }),
    checkedAt: input.now.toISOString(),
    reports: [{ name: 'liveness', result, description: `${words} Value ${scored.confidence}, threshold ${threshold}.` }],
  };
}
