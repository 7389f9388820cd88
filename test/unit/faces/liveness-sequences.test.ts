/**
 * The active challenge judged on frames the embedded model measures: synthetic sequences made
 * from the licensed face fixtures (test/support/liveness-frames.ts), a genuine answer and the
 * attacks the challenge must stop, each refused for its own reason.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { analyseChallenge } from '../../../functions/adapters/embedded-face-model.js';
import { FRAME_MAX_SIDE, judgeChallenge, planOf } from '../../../functions/faces/challenge.js';
import { attacks, genuine, loadFace, type Face, type Sequence } from '../../support/liveness-frames.js';

const plan = planOf('nonce', new Date('2026-11-28T10:00:00Z'), ['turnRight', 'blink', 'openMouth'], ['blue', 'yellow', 'red']);
let person: Face;
let other: Face;
let made: Record<string, Sequence> | undefined;

async function judge(sequence: Sequence) {
  const measured = await analyseChallenge(sequence.still, sequence.frames.map((f) => f.bytes), FRAME_MAX_SIDE);
  const frames = measured.frames.map((f, i) => ({ ...f, at: sequence.frames[i]!.at }));
  return judgeChallenge(plan, frames, { replayed: [], nearMiss: 'FAIL', elapsedMs: plan.durationMs });
}

beforeAll(async () => {
  person = await loadFace('person-a-1.jpg');
  other = await loadFace('eileen-collins.jpg');
}, 60_000);

describe('the active challenge on synthetic sequences', () => {
  it('passes a genuine answer: each prompt seen in its window, the colours on the face, the same person throughout', async () => {
    const verdict = await judge(genuine(person, plan));
    expect(verdict.measurements.filter((m) => m.result !== 'PASS')).toEqual([]);
    expect(verdict.result).toBe('PASS');
    const value = (name: string) => verdict.measurements.find((m) => m.name === name)!.value;
    expect(value('prompt.turnRight')).toBeGreaterThan(15);
    expect(value('prompt.blink')).toBeLessThan(0.75);
    expect(value('samePerson')).toBeGreaterThan(0.5);
    expect(value('colours')).toBe(3);
  }, 120_000);

  it.each([
    ['stillPhoto', /^prompt\./],
    ['replayedRecording', /^prompt\./],
    ['wrongOrder', /^prompt\./],
    ['anotherPerson', /^samePerson$/],
    ['coloursNotFollowed', /^colours$/],
  ])('refuses %s, for its reason', async (attack, reason) => {
    made ??= attacks({ person, other }, plan);
    const verdict = await judge(made[attack]!);
    expect(verdict.result).toBe('FAIL');
    expect(verdict.measurements.filter((m) => m.result === 'FAIL').map((m) => m.name)).toContainEqual(expect.stringMatching(reason));
  }, 120_000);
});
