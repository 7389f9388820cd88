import { describe, expect, it } from 'vitest';
import { runWithForcedCheck, type ForcedCheckStep } from '../../../functions/activities/forced-check.js';
import { ActivityError, TransientActivityError, type Session } from '../../../functions/activities/contract.js';

const step: ForcedCheckStep = {
  key: 'faceMatch',
  checkType: 'FACE_MATCH',
  displayName: 'Face match',
  failures: ['FaceMatchFailed'],
  failure: () => new ActivityError('FaceMatchFailed', 'forced'),
};
const session = (checks?: Record<string, string>): Session => ({
  instance: { tenantId: 'demo', processInstanceId: 'i1' },
  _checks: {},
  ...(checks ? { _sandbox: { forTest: true, checks } } : {}),
});
const passes = (s: Session) => async () => ({ ...s, _checks: { faceMatch: { result: 'PASS', similarity: 0.9 } } });
const fails = () => async (): Promise<Session> => {
  throw new ActivityError('FaceMatchFailed', 'no match');
};

describe('runWithForcedCheck', () => {
  it('runs the step as it is when nothing is forced', async () => {
    await expect(runWithForcedCheck(session(), step, fails())).rejects.toThrow('no match');
    expect((await runWithForcedCheck(session(), step, passes(session())))._checks!.faceMatch).toEqual({ result: 'PASS', similarity: 0.9 });
  });

  it('goes on with a forced PASS where the real check failed, marked forced', async () => {
    const after = await runWithForcedCheck(session({ faceMatch: 'PASS' }), step, fails());
    expect(after._checks!.faceMatch).toMatchObject({ result: 'PASS', forced: true, actualResult: 'FAIL', checkType: 'FACE_MATCH' });
  });

  it('goes on with a forced REVIEW where the real check passed', async () => {
    const s = session({ faceMatch: 'REVIEW' });
    expect((await runWithForcedCheck(s, step, passes(s)))._checks!.faceMatch).toEqual({ result: 'REVIEW', forced: true, actualResult: 'PASS', similarity: 0.9 });
  });

  it("raises the step's failure event for a forced FAIL where the real check passed", async () => {
    const s = session({ faceMatch: 'FAIL' });
    await expect(runWithForcedCheck(s, step, passes(s))).rejects.toMatchObject({ name: 'FaceMatchFailed', message: 'forced' });
  });

  it('never hides a transient error or a configuration error behind a forced outcome', async () => {
    const s = session({ faceMatch: 'PASS' });
    await expect(runWithForcedCheck(s, step, async () => Promise.reject(new TransientActivityError('throttled')))).rejects.toThrow('throttled');
    await expect(runWithForcedCheck(s, step, async () => Promise.reject(new ActivityError('WatchlistNotFound', 'gone')))).rejects.toThrow('gone');
  });

  it('ignores a check key the sandbox does not name', async () => {
    await expect(runWithForcedCheck(session({ other: 'PASS' }), step, fails())).rejects.toThrow('no match');
  });
});
