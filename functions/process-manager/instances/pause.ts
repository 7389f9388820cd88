import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { instanceEvents } from '../../events/catalogue.js';
import type { InstancePause, InstancePauseStore, ProcessInstanceRecord } from '../model.js';
import { isFinal } from './status.js';

/**
 * Pause and resume (Pause Instance, then Waiting for Resume): the pause's secret and its link.
 *
 * The secret is 256 random bits, handed out once as the resume URL (the session variable
 * `resumeUrl`, which the relying party holds, and the step's user data). The instance keeps only
 * its SHA-256, which a resume compares in constant time; it expires with the instance, and a
 * second resume of the same pause is refused (functions/journey/resume.ts).
 */

/** Where the resume URL points, on the tenant's own host: the public route `resumeJourney`. */
export function resumeUrl(origin: string, processInstanceId: string, secret: string): string {
  return `${origin}/journey/${processInstanceId}/resume?r=${secret}`;
}

export function newResumeSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashResumeSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Whether `secret` is the one whose hash the pause keeps: compared as hashes, in constant time. */
export function isResumeSecret(pause: Pick<InstancePause, 'secretHash'> | undefined, secret: string): boolean {
  if (!pause) return false;
  const given = Buffer.from(hashResumeSecret(secret), 'hex');
  const stored = Buffer.from(pause.secretHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * The journey capability a resume by the URL gives the browser that opened it: derived from the
 * secret (HMAC-SHA256, keyed by it), so the same URL sent again (a retry after its hand-over was
 * cut short, a double click) leads to the same journey link, and nobody without the secret can
 * make it. Whoever holds the resume URL can open the journey after the resume, as whoever holds
 * the first journey link can.
 */
export function resumeCapability(secret: string, processInstanceId: string): string {
  return createHmac('sha256', secret).update(`journey-capability:${processInstanceId}`).digest('base64url');
}

/** Why an instance cannot be paused now: gone, ended, or made before instances kept their origin. */
export type PauseRefusal = 'gone' | 'ended' | 'noOrigin';

/**
 * Pauses the instance: status PAUSED (its event, unless it was PAUSED already) and a new pause
 * with a fresh secret, over any earlier pause (whose link then no longer resumes anything). A
 * status changed meanwhile is read again; `retry` when it kept changing.
 */
export async function pauseInstance(
  d: { pauses: Pick<InstancePauseStore, 'getRecord' | 'pause'> },
  ref: { tenantId: string; processInstanceId: string; activityId: string },
  now: Date,
): Promise<{ paused: { secret: string; url: string; record: Omit<ProcessInstanceRecord, 'currentStep'> } } | { refused: PauseRefusal } | { retry: true }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await d.pauses.getRecord(ref.tenantId, ref.processInstanceId, now);
    if (!record) return { refused: 'gone' };
    if (isFinal(record.status)) return { refused: 'ended' };
    if (!record.origin) return { refused: 'noOrigin' };
    const secret = newResumeSecret();
    const pause: InstancePause = { activityId: ref.activityId, secretHash: hashResumeSecret(secret), pausedAt: now.toISOString() };
    const events = record.status === 'PAUSED' ? [] : instanceEvents.statusChanged(record, record.status, 'PAUSED', now, false);
    if (await d.pauses.pause(record, pause, now, events)) {
      return { paused: { secret, url: resumeUrl(record.origin, record.id, secret), record: { ...record, status: 'PAUSED', pause } } };
    }
  }
  return { retry: true };
}
