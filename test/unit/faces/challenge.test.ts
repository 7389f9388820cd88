import { describe, expect, it } from 'vitest';
import {
  CHALLENGE_THRESHOLDS as T,
  COLOURS,
  drawChallenge,
  framesMatchSchedule,
  judgeChallenge,
  planOf,
  PROMPTS,
  TIMELINE,
  type ChallengePlan,
  type FrameAnalysis,
  type FrameFace,
  type Prompt,
} from '../../../functions/faces/challenge.js';

const NOW = new Date('2026-11-28T10:00:00Z');
const SKIN = [180, 140, 120] as const;
const WALL = [100, 100, 100] as const;

/** A person who does what the plan asks, as figures; `change` alters a frame's face (or its faces). */
function figures(plan: ChallengePlan, change: (at: number, face: FrameFace, i: number) => FrameFace | FrameFace[] | undefined = (_, f) => f): FrameAnalysis[] {
  return plan.frames.map((at, i) => {
    const segment = plan.segments.find((s) => at > s.from && at <= s.to)!;
    const face: FrameFace = { box: { left: 0.3, top: 0.2, width: 0.4, height: 0.5 }, confidence: 0.9, pose: { yaw: 2, pitch: 5, roll: 0 }, eyes: 0.4, mouth: 0.1, similarity: 0.8 };
    let colour = { face: [...SKIN] as [number, number, number], background: [...WALL] as [number, number, number] };
    if (segment.kind === 'colour') colour = { face: SKIN.map((v, k) => v * 0.85 + (segment.rgb[k]! / 255) * 40) as [number, number, number], background: [...WALL] };
    if (segment.kind === 'prompt') {
      const t = at - segment.from;
      const held = t >= 750 && t <= 1500;
      if (held && segment.prompt === 'turnLeft') face.pose = { ...face.pose, yaw: -20 };
      if (held && segment.prompt === 'turnRight') face.pose = { ...face.pose, yaw: 22 };
      if (held && segment.prompt === 'lookUp') face.pose = { ...face.pose, pitch: -8 };
      if (held && segment.prompt === 'openMouth') face.mouth = 0.5;
      if (segment.prompt === 'blink' && t === 1000) face.eyes = 0.12;
    }
    const changed = change(at, face, i);
    const faces = changed === undefined ? [] : Array.isArray(changed) ? changed : [changed];
    return { at, faces, ...(faces.length ? { colour } : {}) };
  });
}

const plan = planOf('nonce', NOW, ['turnLeft', 'blink', 'openMouth', 'lookUp'], ['red', 'green', 'blue', 'yellow']);
const judge = (frames: FrameAnalysis[], options: Partial<Parameters<typeof judgeChallenge>[2]> = {}) => judgeChallenge(plan, frames, { replayed: [], nearMiss: 'FAIL', ...options });
const measurement = (verdict: ReturnType<typeof judgeChallenge>, name: string) => verdict.measurements.find((m) => m.name === name);
const windowOf = (prompt: Prompt) => plan.segments.find((s) => s.kind === 'prompt' && s.prompt === prompt)!;
const inWindow = (prompt: Prompt, at: number) => at > windowOf(prompt).from && at <= windowOf(prompt).to;

describe('drawing a challenge', () => {
  it('draws two to four distinct prompts and three to five colours, never the same colour twice in a row', () => {
    for (let n = 0; n < 300; n++) {
      const drawn = drawChallenge(NOW);
      const prompts = drawn.segments.flatMap((s) => (s.kind === 'prompt' ? [s.prompt] : []));
      const colours = drawn.segments.flatMap((s) => (s.kind === 'colour' ? [s.colour] : []));
      expect(prompts.length).toBeGreaterThanOrEqual(2);
      expect(prompts.length).toBeLessThanOrEqual(4);
      expect(new Set(prompts).size).toBe(prompts.length);
      expect(prompts.every((p) => PROMPTS.includes(p))).toBe(true);
      expect(colours.length).toBeGreaterThanOrEqual(3);
      expect(colours.length).toBeLessThanOrEqual(5);
      colours.forEach((c, i) => expect(c).not.toBe(colours[i - 1]));
      expect(drawn.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('lays the timeline out: the baseline, a frame in each colour, eight in each prompt, frames ascending', () => {
    const p = planOf('n', NOW, ['blink', 'lookUp'], ['red', 'cyan', 'red']);
    expect(p.frames).toEqual([700, 1300, 2000, 2700, 3400, ...[1, 2, 3, 4, 5, 6, 7, 8].map((k) => 4100 + 250 * k), ...[1, 2, 3, 4, 5, 6, 7, 8].map((k) => 6100 + 250 * k)]);
    expect(p.durationMs).toBe(8100);
    expect(p.segments.map((s) => s.kind)).toEqual(['neutral', 'colour', 'colour', 'colour', 'neutral', 'prompt', 'prompt']);
    expect(p.segments[2]).toMatchObject({ colour: 'cyan', rgb: COLOURS.cyan, from: 2200, to: 2900 });
    expect(new Date(p.expiresAt).getTime() - NOW.getTime()).toBe(TIMELINE.validForMs);
  });

  it('takes the random draw it is given: the fewest and the most', () => {
    const fewest = drawChallenge(NOW, () => 0, 'x');
    expect(fewest.segments.filter((s) => s.kind === 'prompt')).toHaveLength(2);
    expect(fewest.segments.filter((s) => s.kind === 'colour').map((s) => (s.kind === 'colour' ? s.colour : ''))).toEqual(['red', 'green', 'red']);
    const most = drawChallenge(NOW, (max) => max - 1, 'x');
    expect(most.segments.filter((s) => s.kind === 'prompt')).toHaveLength(4);
    expect(most.frames).toHaveLength(2 + 5 + 4 * 8);
  });

  it("checks the frames' times against the schedule, at the tolerance's edge", () => {
    const times = [...plan.frames];
    expect(framesMatchSchedule(plan, times)).toBe(true);
    expect(framesMatchSchedule(plan, times.map((t, i) => (i === 3 ? t + TIMELINE.frameToleranceMs : t)))).toBe(true);
    expect(framesMatchSchedule(plan, times.map((t, i) => (i === 3 ? t + TIMELINE.frameToleranceMs + 1 : t)))).toBe(false);
    expect(framesMatchSchedule(plan, times.slice(1))).toBe(false);
    expect(framesMatchSchedule(plan, [...times, times.at(-1)! + 250])).toBe(false);
    expect(framesMatchSchedule(plan, times.map((t, i) => (i === 5 ? times[4]! : t)))).toBe(false);
    expect(framesMatchSchedule(plan, times.map((t, i) => (i === 5 ? Number.NaN : t)))).toBe(false);
  });
});

describe('judging the frames', () => {
  it('passes a person who does each prompt in its window and whose face takes the colours, with every measurement and threshold', () => {
    const verdict = judge(figures(plan));
    expect(verdict.result).toBe('PASS');
    expect(verdict.measurements.map((m) => [m.name, m.result])).toEqual([
      ['freshFrames', 'PASS'],
      ['oneFace', 'PASS'],
      ['faceInView', 'PASS'],
      ['samePerson', 'PASS'],
      ['continuity', 'PASS'],
      ['baseline', 'PASS'],
      ['prompt.turnLeft', 'PASS'],
      ['prompt.blink', 'PASS'],
      ['prompt.openMouth', 'PASS'],
      ['prompt.lookUp', 'PASS'],
      ['colours', 'PASS'],
      ['coloursOnFace', 'PASS'],
    ]);
    expect(measurement(verdict, 'prompt.turnLeft')).toMatchObject({ value: 22, threshold: T.turn.pass });
    expect(measurement(verdict, 'prompt.lookUp')).toMatchObject({ value: 13, threshold: T.lookUp.pass });
  });

  it('judges a turn at its edges: the pass threshold passes, a near miss fails or goes to review as the step says, less fails', () => {
    const turned = (yaw: number) => figures(plan, (at, f) => (inWindow('turnLeft', at) && f.pose.yaw !== 2 ? { ...f, pose: { ...f.pose, yaw } } : f));
    expect(judge(turned(2 - T.turn.pass)).result).toBe('PASS');
    const near = turned(2 - T.turn.pass + 0.1);
    expect(judge(near)).toMatchObject({ result: 'FAIL', reason: 'prompt.turnLeft' });
    expect(judge(near, { nearMiss: 'REVIEW' })).toMatchObject({ result: 'REVIEW', reason: 'prompt.turnLeft' });
    expect(judge(turned(2 - T.turn.near), { nearMiss: 'REVIEW' }).result).toBe('REVIEW');
    expect(judge(turned(2 - T.turn.near + 0.1), { nearMiss: 'REVIEW' })).toMatchObject({ result: 'FAIL', reason: 'prompt.turnLeft' });
  });

  it('takes the prompts only in their own windows: a turn done in the wrong window fails both', () => {
    const swapped = figures(plan, (at, f) => {
      if (inWindow('turnLeft', at)) return { ...f, pose: { ...f.pose, yaw: 2 }, mouth: f.pose.yaw === -20 ? 0.5 : 0.1 };
      if (inWindow('openMouth', at)) return { ...f, mouth: 0.1, pose: { ...f.pose, yaw: f.mouth === 0.5 ? -20 : 2 } };
      return f;
    });
    const verdict = judge(swapped, { nearMiss: 'REVIEW' });
    expect(verdict).toMatchObject({ result: 'FAIL', reason: 'prompt.turnLeft' });
    expect(measurement(verdict, 'prompt.openMouth')?.result).toBe('FAIL');
  });

  it('fails a window where another movement is made too (a sequence that does everything)', () => {
    const verdict = judge(figures(plan, (at, f) => (inWindow('lookUp', at) && f.pose.pitch === -8 ? { ...f, pose: { ...f.pose, yaw: 2 + T.other.turn } } : f)));
    expect(verdict).toMatchObject({ result: 'FAIL', reason: 'lookUp.only' });
    expect(measurement(verdict, 'lookUp.only')).toMatchObject({ value: T.other.turn, threshold: T.other.turn });
    // Just under the bar, the other movement is not counted.
    expect(judge(figures(plan, (at, f) => (inWindow('lookUp', at) && f.pose.pitch === -8 ? { ...f, pose: { ...f.pose, yaw: 2 + T.other.turn - 0.1 } } : f))).result).toBe('PASS');
  });

  it('takes a blink only between open eyes, closed to the threshold of their usual opening', () => {
    const blinkAt = (eyes: number) => figures(plan, (at, f) => (inWindow('blink', at) && f.eyes !== 0.4 ? { ...f, eyes } : f));
    expect(judge(blinkAt(0.4 * T.blink.pass)).result).toBe('PASS');
    expect(judge(blinkAt(0.4 * T.blink.pass + 0.01), { nearMiss: 'REVIEW' })).toMatchObject({ result: 'REVIEW', reason: 'prompt.blink' });
    // Eyes that close and stay closed to the window's end: no blink.
    const closedToTheEnd = figures(plan, (at, f) => (inWindow('blink', at) && at - windowOf('blink').from >= 1000 ? { ...f, eyes: 0.1 } : f));
    expect(judge(closedToTheEnd)).toMatchObject({ result: 'FAIL', reason: 'prompt.blink' });
  });

  it('fails two faces in a frame, and a face lost in more than two frames', () => {
    expect(judge(figures(plan, (_, f, i) => (i === 9 ? [f, { ...f, box: { ...f.box, left: 0 } }] : f)))).toMatchObject({ result: 'FAIL', reason: 'oneFace' });
    const lost = (n: number) => figures(plan, (_, f, i) => (i >= 20 && i < 20 + n ? undefined : f));
    expect(judge(lost(T.maxFramesWithoutFace)).result).toBe('PASS');
    expect(judge(lost(T.maxFramesWithoutFace + 1))).toMatchObject({ result: 'FAIL', reason: 'faceInView' });
  });

  it('fails another person in any frame, by similarity to the still at its edge', () => {
    expect(judge(figures(plan, (_, f, i) => (i === 30 ? { ...f, similarity: T.samePerson } : f))).result).toBe('PASS');
    const verdict = judge(figures(plan, (_, f, i) => (i === 30 ? { ...f, similarity: T.samePerson - 0.001 } : f)));
    expect(verdict).toMatchObject({ result: 'FAIL', reason: 'samePerson' });
    expect(measurement(verdict, 'samePerson')).toMatchObject({ value: 0.499, threshold: 0.5 });
  });

  it('compares only the frames described, and fails a face that jumps between two frames further than a head moves', () => {
    // Frames without a similarity (not described) are not counted as another person.
    expect(judge(figures(plan, (_, f, i) => (i % 3 ? { ...f, similarity: undefined } : f))).result).toBe('PASS');
    const jumped = (dx: number) => figures(plan, (_, f, i) => (i >= 25 ? { ...f, box: { ...f.box, left: f.box.left + dx } } : f));
    expect(judge(jumped(0.4 * T.maxJump)).result).toBe('PASS');
    const verdict = judge(jumped(0.4 * T.maxJump + 0.01));
    expect(verdict).toMatchObject({ result: 'FAIL', reason: 'continuity' });
    // Grown to more than e^maxJump of its width from one frame to the next.
    expect(judge(figures(plan, (_, f, i) => (i >= 25 ? { ...f, box: { ...f.box, width: 0.4 * Math.exp(T.maxJump + 0.01) } } : f)))).toMatchObject({ result: 'FAIL' });
  });

  it('fails an answer that comes back sooner than the challenge takes to do', () => {
    expect(judge(figures(plan), { elapsedMs: plan.durationMs - T.earlyMs }).result).toBe('PASS');
    const verdict = judge(figures(plan), { elapsedMs: plan.durationMs - T.earlyMs - 1 });
    expect(verdict).toMatchObject({ result: 'FAIL', reason: 'timing' });
    expect(verdict.measurements[0]).toMatchObject({ name: 'timing', value: plan.durationMs - T.earlyMs - 1, threshold: plan.durationMs - T.earlyMs });
  });

  it('fails frames sent before, whatever else they show', () => {
    expect(judge(figures(plan), { replayed: [3, 4] })).toMatchObject({ result: 'FAIL', reason: 'freshFrames' });
  });

  it('judges the colours: all followed passes, one missed is a near miss, two fail, a background that shifts as much fails', () => {
    const colourFrame = (n: number) => plan.frames[2 + n]!;
    const flat = (misses: number) => figures(plan).map((f) => (plan.frames.slice(2, 2 + misses).includes(f.at) ? { ...f, colour: { face: [...SKIN] as [number, number, number], background: [...WALL] as [number, number, number] } } : f));
    expect(judge(flat(1), { nearMiss: 'REVIEW' })).toMatchObject({ result: 'REVIEW', reason: 'colours' });
    expect(judge(flat(2), { nearMiss: 'REVIEW' })).toMatchObject({ result: 'FAIL', reason: 'colours' });
    expect(colourFrame(0)).toBe(2000);
    // The whole picture tinted alike (a room's light changed, or a screen filmed): the face does not follow more than the background.
    const everywhere = figures(plan).map((f) => (f.colour && f.colour.face[0] !== SKIN[0] ? { ...f, colour: { face: f.colour.face, background: f.colour.face } } : { ...f, colour: f.colour && { face: f.colour.face, background: f.colour.face } }));
    expect(judge(everywhere)).toMatchObject({ result: 'FAIL', reason: 'coloursOnFace' });
  });
});
