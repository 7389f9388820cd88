/**
 * A Capture Face Image step's active liveness challenge (Liveness Check ACTIVE), as its
 * submission takes it: the nonce, the frames and their times beside the still; the challenge
 * found (bound to the instance and step, unexpired, taken once), the frames checked by their
 * bytes, remembered tenant-wide and measured by the face engine, and the measurements judged
 * (faces/challenge.ts). The check it makes holds every measurement with its threshold.
 */
import { createHash } from 'node:crypto';
import { framesMatchSchedule, judgeChallenge, MAX_FRAME_BYTES, type ChallengeVerdict } from '../faces/challenge.js';
import type { ChallengeMeasures, FaceEngine, LivenessChallengeRecord, LivenessChallengeStore } from '../faces/model.js';
import type { CheckRecord, ProcessInstanceRecord } from '../process-manager/model.js';
import { checkImage } from '../shared/image-check.js';
import { MAX_FACE_IMAGE_PIXELS } from '../journey/face-limits.js';

/** The multipart fields of a challenge's answer. */
export const CHALLENGE_FIELDS = { nonce: 'challenge', frame: 'frame', times: 'frameTimes', action: 'action' } as const;

/** Why an answer is refused before it is judged: the page then starts a new challenge. */
export type ChallengeProblem = 'challengeMissing' | 'challengeExpired' | 'challengeUsed' | 'framesInvalid';

export const CHALLENGE_REFUSALS: Record<ChallengeProblem, string> = {
  challengeMissing: 'LIVENESS_CHALLENGE_REQUIRED',
  challengeExpired: 'LIVENESS_CHALLENGE_EXPIRED',
  challengeUsed: 'LIVENESS_CHALLENGE_USED',
  framesInvalid: 'LIVENESS_FRAMES_INVALID',
};

/** How long a frame's hash is remembered, so that it is never taken again: 30 days. */
export const FRAME_MEMORY_SECONDS = 30 * 24 * 3600;

/** A frame's shorter side at least this (the page's 480-pixel frames of a 16:9 camera are 270). */
const MIN_FRAME_SIDE = 120;

export interface ChallengeAnswer {
  nonce: string | undefined;
  frames: Uint8Array[];
  times: number[];
}

/** The answer's fields from the post's form. */
export async function challengeAnswer(form: FormData): Promise<ChallengeAnswer> {
  const nonce = form.get(CHALLENGE_FIELDS.nonce);
  const frames: Uint8Array[] = [];
  for (const entry of form.getAll(CHALLENGE_FIELDS.frame)) if (typeof entry !== 'string') frames.push(new Uint8Array(await entry.arrayBuffer()));
  const times = String(form.get(CHALLENGE_FIELDS.times) ?? '')
    .split(',')
    .filter((t) => t.trim() !== '')
    .map((t) => (/^\s*\d{1,6}(\.\d{1,3})?\s*$/.test(t) ? Number(t) : Number.NaN));
  return { nonce: typeof nonce === 'string' && /^[A-Za-z0-9_-]{43}$/.test(nonce) ? nonce : undefined, frames, times };
}

export const nonceHash = (nonce: string) => createHash('sha256').update(nonce).digest('base64url');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Each frame a whole JPEG or PNG within the frame limits, and the times the plan's schedule. */
function framesProblem(challenge: LivenessChallengeRecord, answer: ChallengeAnswer): boolean {
  if (!framesMatchSchedule(challenge.plan, answer.times) || answer.frames.length !== answer.times.length) return true;
  return answer.frames.some((bytes) => {
    const checked = checkImage(bytes, { maxBytes: MAX_FRAME_BYTES, maxPixels: MAX_FACE_IMAGE_PIXELS });
    if ('problem' in checked) return true;
    const { width, height } = checked.header;
    return Math.max(width, height) > challenge.plan.frameMaxSide || Math.min(width, height) < MIN_FRAME_SIDE;
  });
}

export interface JudgedChallenge {
  challenge: LivenessChallengeRecord;
  verdict: ChallengeVerdict;
  measures: ChallengeMeasures;
  /** Milliseconds from the challenge's issue to the answer's arrival. */
  elapsedMs: number;
}

/**
 * Finds, takes and judges the challenge the answer names: a problem (refused: nothing was
 * judged, and the challenge is spent only when it was taken) or the verdict.
 */
export async function judgeAnswer(
  deps: { faces: Pick<FaceEngine, 'measureChallenge'>; livenessChallenges: LivenessChallengeStore },
  input: { record: ProcessInstanceRecord; activityId: string; answer: ChallengeAnswer; still: Uint8Array; nearMiss: 'FAIL' | 'REVIEW'; now: Date },
): Promise<{ problem: ChallengeProblem } | JudgedChallenge> {
  const { record, answer, now } = input;
  if (!answer.nonce) return { problem: 'challengeMissing' };
  const challenge = await deps.livenessChallenges.get(record.tenantId, record.id, nonceHash(answer.nonce), now);
  if (!challenge || challenge.activityId !== input.activityId) return { problem: 'challengeExpired' };
  if (challenge.usedAt) return { problem: 'challengeUsed' };
  if (framesProblem(challenge, answer)) return { problem: 'framesInvalid' };
  const hashes = answer.frames.map(sha256);
  const taken = await deps.livenessChallenges.consume(challenge, hashes, now.toISOString(), Math.floor(now.getTime() / 1000) + FRAME_MEMORY_SECONDS);
  if (taken === 'used') return { problem: 'challengeUsed' };
  // Replayed: sent in an earlier challenge, or twice in this one (no camera gives two frames alike to the byte).
  const replayed = hashes.flatMap((h, i) => (taken.seen.includes(h) || hashes.indexOf(h) !== i ? [i] : []));
  const measures = await deps.faces.measureChallenge({ bytes: input.still }, answer.frames.map((bytes) => ({ bytes })), challenge.plan.frameMaxSide);
  const frames = measures.frames.map((f, i) => ({ ...f, at: answer.times[i]! }));
  const elapsedMs = now.getTime() - Date.parse(challenge.plan.issuedAt);
  const verdict = judgeChallenge({ ...challenge.plan, nonce: '' }, frames, { replayed, nearMiss: input.nearMiss, elapsedMs });
  return { challenge, verdict, measures, elapsedMs };
}

/**
 * An active challenge's liveness as a score, for the Face Liveness step's threshold (0 to 1, as
 * the family's vendors answer): 1 passed, 0.5 a near miss sent to review, 0 failed.
 */
export const challengeScore = (result: ChallengeVerdict['result']) => (result === 'PASS' ? 1 : result === 'REVIEW' ? 0.5 : 0);

const REASONS: Record<string, string> = {
  timing: 'the frames came back sooner than the challenge takes to do',
  freshFrames: 'frames were sent before',
  oneFace: 'more than one face was seen',
  faceInView: 'the face left the picture',
  samePerson: 'another face than the photo\'s was seen',
  baseline: 'no face was seen at the start',
  colours: "the face's colour did not follow the screen's",
  coloursOnFace: 'the colours changed the background as much as the face',
};
const reasonWords = (reason: string) => REASONS[reason] ?? (reason.endsWith('.only') ? 'another movement was made during a prompt' : 'a prompt was not done in its time');

/** The capture's check under an active challenge: its verdict, each measurement a report with its threshold. */
export function challengeCheck(input: { faceKey: string; activityId: string; engine: FaceEngine['name']; judged: JudgedChallenge; now: Date }): CheckRecord {
  const { verdict, challenge, elapsedMs } = input.judged;
  const plan = challenge.plan;
  const prompts = plan.segments.flatMap((s) => (s.kind === 'prompt' ? [s.prompt] : []));
  const colours = plan.segments.flatMap((s) => (s.kind === 'colour' ? [s.colour] : []));
  const nearResult = verdict.result === 'REVIEW' ? 'REVIEW' : 'FAIL';
  return {
    checkId: input.faceKey,
    activityId: input.activityId,
    checkType: 'FACE_CAPTURE',
    result: verdict.result,
    displayName: 'Face image capture with an active liveness challenge',
    description:
      verdict.result === 'PASS'
        ? `One face, the photo's, did each of ${prompts.length} prompts in its time and took the ${colours.length} screen colours.`
        : verdict.result === 'REVIEW'
          ? `Every rule held but one fell just short (${verdict.reason}): a person should review it.`
          : `The challenge failed: ${reasonWords(verdict.reason ?? '')} (${verdict.reason}).`,
    moreinfo: JSON.stringify({
      engine: input.engine,
      method: 'ACTIVE',
      score: challengeScore(verdict.result),
      reason: verdict.reason ?? null,
      challenge: { issuedAt: plan.issuedAt, durationMs: plan.durationMs, answeredAfterMs: elapsedMs, prompts, colours, frames: plan.frames.length },
      measurements: verdict.measurements,
    }),
    checkedAt: input.now.toISOString(),
    reports: verdict.measurements.map((m) => ({
      name: m.name,
      result: m.result === 'NEAR' ? nearResult : m.result,
      description: `${m.description} Value ${m.value}, threshold ${m.threshold}.`,
    })),
  };
}
