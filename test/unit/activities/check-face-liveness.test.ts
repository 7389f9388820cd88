/**
 * Face Liveness (the family's checkFaceLivenessV1): the capture's liveness score against the
 * step's Threshold at its edges, failed attempts counted once a capture, the family's two errors,
 * the attempts left named for the capture the route leads back to.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../../functions/activities/check-face-liveness.js';
import type { ActivityDeps, Session } from '../../../functions/activities/contract.js';
import { livenessAttemptsLeft } from '../../../functions/journey/live-capture.js';
import type { StepUserData } from '../../../functions/process-manager/model.js';

const session = (check: Record<string, unknown> | undefined, captureId = 'c1'): Session =>
  ({
    instance: { tenantId: 'demo', processInstanceId: 'p' },
    parameters: {},
    vars: {},
    _faces: { face1: { captures: [{ captureId, format: 'JPEG' }] } },
    _checks: check ? { face1: check } : {},
  }) as unknown as Session;

function harness() {
  const kept: StepUserData[] = [];
  const attempts = new Map<string, Set<string>>();
  const deps = {
    instances: {
      putUserData: async (_t: string, _i: string, data: StepUserData) => void kept.push(data),
      // As the table counts them: one failed attempt a capture, however often it is judged.
      countFailedAttempt: async (_t: string, _i: string, activityId: string, attemptId: string) => {
        const seen = attempts.get(activityId) ?? new Set<string>();
        seen.add(attemptId);
        attempts.set(activityId, seen);
        return seen.size;
      },
    },
  } as unknown as ActivityDeps;
  const go = (s: Session, inputs: Record<string, unknown> = {}) =>
    run({
      activityId: 'liveness',
      inputs: { 'Face Key': 'face1', Threshold: 0.5, 'Max Attempts': 2, 'Exception On Max Attempts Exceeded': true, ...inputs } as never,
      session: s,
      tenantId: 'demo',
      actor: 'journey:p',
      now: new Date(),
      expiresAt: 2_000_000_000,
      deps,
    });
  return { go, kept };
}

const ACTIVE_PASS = { result: 'PASS', liveness: 1, method: 'ACTIVE' };

describe('Face Liveness', () => {
  it('passes a passed challenge, with the score, threshold, method and the vendor inputs in the check', async () => {
    const h = harness();
    const out = await h.go(session(ACTIVE_PASS), { Pipeline: 'aphrodite', 'URL Template': '/api/idlive-face-v1-36/check_liveness' });
    expect((out._checks as any).faces.face1.liveness).toMatchObject({ result: 'PASS', score: 1, threshold: 0.5, method: 'ACTIVE', pipeline: 'aphrodite', captureId: 'c1' });
    expect(out.vars).toMatchObject({ faceLivenessFailed: false });
    expect(h.kept[0]!.check).toMatchObject({ checkId: 'face1.liveness', checkType: 'FACE_LIVENESS', result: 'PASS' });
  });

  it('judges the score at the threshold: equal passes, under fails; 0 passes everything', async () => {
    await expect(harness().go(session({ result: 'PASS', liveness: 0.5 }))).resolves.toBeDefined();
    await expect(harness().go(session({ result: 'REVIEW', liveness: 0.499 }))).rejects.toMatchObject({ name: 'FaceLivenessFailed' });
    const bypassed = await harness().go(session({ result: 'FAIL', liveness: 0, method: 'ACTIVE' }), { Threshold: 0 });
    expect((bypassed._checks as any).faces.face1.liveness.result).toBe('PASS');
  });

  it("keeps a challenge's near miss for review when the threshold lets it through, and fails it above", async () => {
    const review = { result: 'REVIEW', liveness: 0.5, method: 'ACTIVE' };
    expect(((await harness().go(session(review)))._checks as any).faces.face1.liveness.result).toBe('REVIEW');
    await expect(harness().go(session(review), { Threshold: 0.8 })).rejects.toMatchObject({ name: 'FaceLivenessFailed' });
  });

  it('raises Failed Face Liveness with the attempts left, counts one attempt a capture, then Exceed Failed Liveness Count', async () => {
    const h = harness();
    const failed = { result: 'FAIL', liveness: 0, method: 'ACTIVE' };
    const first = await h.go(session(failed, 'c1')).catch((e: Error) => e);
    expect(first).toMatchObject({ name: 'FaceLivenessFailed' });
    expect(livenessAttemptsLeft({ _lastError: { Error: 'FaceLivenessFailed', Cause: (first as Error).message } })).toBe(2);
    // The same capture judged again is the same attempt.
    await expect(h.go(session(failed, 'c1'))).rejects.toMatchObject({ name: 'FaceLivenessFailed' });
    const second = await h.go(session(failed, 'c2')).catch((e: Error) => e);
    expect(livenessAttemptsLeft({ _lastError: { Error: 'FaceLivenessFailed', Cause: (second as Error).message } })).toBe(1);
    await expect(h.go(session(failed, 'c3'))).rejects.toMatchObject({ name: 'FaceLivenessAttemptsExceeded' });
    expect(JSON.parse(h.kept.at(-1)!.check!.moreinfo!)).toMatchObject({ failedAttempts: 3, maxAttempts: 2 });
  });

  it('goes on with the check failed and faceLivenessFailed true when the step raises no exception beyond its attempts', async () => {
    const h = harness();
    const failed = { result: 'FAIL', liveness: 0 };
    await expect(h.go(session(failed, 'c1'), { 'Max Attempts': 1, 'Exception On Max Attempts Exceeded': false })).rejects.toMatchObject({ name: 'FaceLivenessFailed' });
    const out = await h.go(session(failed, 'c2'), { 'Max Attempts': 1, 'Exception On Max Attempts Exceeded': false });
    expect(out.vars).toMatchObject({ faceLivenessFailed: true });
    expect((out._checks as any).faces.face1.liveness).toMatchObject({ result: 'FAIL', method: 'PASSIVE' });
  });

  it('fails a Face Key with no capture or no score', async () => {
    const none = { ...session(undefined), _faces: {} } as unknown as Session;
    await expect(harness().go(none)).rejects.toMatchObject({ name: 'FaceLivenessFailed' });
    await expect(harness().go(session({ result: 'FAIL' }))).rejects.toMatchObject({ name: 'FaceLivenessFailed' });
  });
});
