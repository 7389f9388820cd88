/**
 * The active liveness challenge of a Capture Face Image step (Liveness Check ACTIVE): what the
 * server asks of the end user, and how it judges the frames the page sends back.
 *
 * The server draws a challenge when the end user starts it: a nonce, two to four prompts (turn
 * left, turn right, look up, blink, open mouth) in a random order, each with its window, and a
 * random sequence of three to five screen colours. The page shows them on a timeline that starts
 * with the camera's first frame and takes a frame at each time of the plan's schedule. The server
 * measures every frame with the embedded face model (one face, its pose, eyes, mouth, descriptor,
 * and the colour of the face beside the background's) and judges the measurements here: a pure
 * function of the plan and the figures, so every rule is tested on figures alone.
 *
 * What it stops and what it does not is in docs/faces.md ("Active liveness").
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { ChallengePlan, Colour, FrameAnalysis, FrameFace, Prompt, Segment } from './model.js';

export type { ChallengePlan, Colour, FrameAnalysis, FrameFace, Prompt, Segment } from './model.js';

export const PROMPTS: readonly Prompt[] = ['turnLeft', 'turnRight', 'lookUp', 'blink', 'openMouth'];

/** The screen colours a challenge flashes: saturated, each a different direction of hue. */
export const COLOURS = {
  red: [255, 0, 0],
  green: [0, 255, 0],
  blue: [0, 0, 255],
  yellow: [255, 255, 0],
  magenta: [255, 0, 255],
  cyan: [0, 255, 255],
} as const satisfies Record<Colour, readonly [number, number, number]>;
const COLOUR_NAMES = Object.keys(COLOURS) as Colour[];

/** The timeline, in milliseconds from the camera's first frame. */
export const TIMELINE = {
  /** The white screen the end user settles in front of; its two frames are the baseline. */
  leadMs: 1500,
  baselineFrames: [700, 1300],
  colourMs: 700,
  /** When in a colour's time its frame is taken: the camera has had time to see it. */
  colourFrameAt: 500,
  /** White again between the colours and the prompts. */
  gapMs: 500,
  promptMs: 2000,
  /** A prompt's frames: every 250 ms from its start, the last at its end. */
  promptFrameEveryMs: 250,
  /** How far a frame's time may be from its schedule (a busy phone's timer). */
  frameToleranceMs: 250,
  /** The end user has this long after the challenge is issued to start it and send its frames. */
  validForMs: 3 * 60 * 1000,
} as const;

/** The longest side of a frame the page sends (it scales the camera's picture down to it). */
export const FRAME_MAX_SIDE = 480;
/** A frame's bytes at most (a 480-pixel JPEG weighs 20-40 KB). */
export const MAX_FRAME_BYTES = 96 * 1024;

/** Draws a challenge: two to four distinct prompts and three to five colours, no colour twice in a row. */
export function drawChallenge(now: Date, random: (max: number) => number = randomInt, nonce = randomBytes(32).toString('base64url')): ChallengePlan {
  const promptCount = 2 + random(3);
  const pool = [...PROMPTS];
  const prompts: Prompt[] = [];
  for (let i = 0; i < promptCount; i++) prompts.push(pool.splice(random(pool.length), 1)[0]!);
  const colourCount = 3 + random(3);
  const colours: Colour[] = [];
  for (let i = 0; i < colourCount; i++) {
    const choices = COLOUR_NAMES.filter((c) => c !== colours.at(-1));
    colours.push(choices[random(choices.length)]!);
  }
  return planOf(nonce, now, prompts, colours);
}

/** The plan of a given set of prompts and colours (drawChallenge's, and the tests'). */
export function planOf(nonce: string, now: Date, prompts: Prompt[], colours: Colour[]): ChallengePlan {
  const t = TIMELINE;
  const segments: Segment[] = [{ kind: 'neutral', from: 0, to: t.leadMs }];
  const frames: number[] = [...t.baselineFrames];
  let at = t.leadMs;
  for (const colour of colours) {
    segments.push({ kind: 'colour', from: at, to: at + t.colourMs, colour, rgb: COLOURS[colour] });
    frames.push(at + t.colourFrameAt);
    at += t.colourMs;
  }
  segments.push({ kind: 'neutral', from: at, to: at + t.gapMs });
  at += t.gapMs;
  for (const prompt of prompts) {
    segments.push({ kind: 'prompt', from: at, to: at + t.promptMs, prompt });
    for (let f = t.promptFrameEveryMs; f <= t.promptMs; f += t.promptFrameEveryMs) frames.push(at + f);
    at += t.promptMs;
  }
  return {
    nonce,
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + t.validForMs).toISOString(),
    durationMs: at,
    frameMaxSide: FRAME_MAX_SIDE,
    segments,
    frames,
  };
}

/**
 * What each measurement must reach. Chosen on the synthetic sequences of test/support/liveness-frames.ts
 * and on what the model reports of still faces (docs/faces.md, "Active liveness", has the figures).
 * A near miss reaches `near` but not `pass`.
 */
export const CHALLENGE_THRESHOLDS = {
  /** A head turn: the yaw from the baseline's, in degrees. */
  turn: { pass: 15, near: 10 },
  /** Looking up: the pitch from the baseline's, in degrees (upwards). */
  lookUp: { pass: 10, near: 7 },
  /** A blink: the eyes' opening over the challenge's median, at most this in a frame between open ones. */
  blink: { pass: 0.75, near: 0.85, open: 0.85 },
  /** An open mouth: the mouth's opening at least this, and this much above the challenge's median. */
  openMouth: { pass: 0.3, near: 0.22, aboveMedian: 0.12 },
  /**
   * Another movement in a prompt's window (a sequence that does everything at once): counted
   * from these, higher than a prompt's own pass, since one movement shifts the others' figures
   * (looking up opens the mouth's outline a little; a turn moves the pitch a few degrees).
   */
  other: { turn: 20, lookUp: 15, openMouth: 0.45 },
  /** Similarity to the still: every frame's face at least this (the same person throughout). */
  samePerson: 0.5,
  /** Between two frames, the face's centre moves at most this share of its width (and its size changes by at most e^this). */
  maxJump: 0.75,
  /** How much sooner than the challenge's duration its answer may arrive (clocks and the page's timer). */
  earlyMs: 1000,
  /** Frames without a face allowed (a turned head the detector loses). */
  maxFramesWithoutFace: 2,
  /** A colour followed: the change of the face's chromaticity points to the colour's (cosine) and is this large. */
  colour: { cosine: 0.6, minShift: 0.006 },
  /** The face's shift toward the colours must exceed the background's by this much (mean, chromaticity). */
  colourOverBackground: 0.004,
} as const;

export type MeasurementResult = 'PASS' | 'NEAR' | 'FAIL';

/** One measurement of the verdict: its value, the threshold it was judged by, and what it means. */
export interface Measurement {
  name: string;
  result: MeasurementResult;
  value: number;
  threshold: number;
  description: string;
}

export interface ChallengeVerdict {
  result: 'PASS' | 'REVIEW' | 'FAIL';
  /** The first rule that failed, in the order they are judged (a stable name for the page and the checks). */
  reason?: string;
  measurements: Measurement[];
}

/** The prompt's measure on one frame, against the baseline (pose) or the challenge's medians (eyes, mouth). */
interface Baseline {
  yaw: number;
  pitch: number;
  eyes: number;
  mouth: number;
}

const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** How far a head movement went in a frame, in the prompt's direction (degrees). */
function movement(prompt: 'turnLeft' | 'turnRight' | 'lookUp', face: FrameFace, base: Baseline): number {
  if (prompt === 'turnLeft') return base.yaw - face.pose.yaw;
  if (prompt === 'turnRight') return face.pose.yaw - base.yaw;
  return base.pitch - face.pose.pitch;
}

/**
 * Judges a challenge's frames. `replayed` names frames whose bytes were sent before (in any
 * challenge of the tenant); `nearMiss` says what a near miss is (the step's input).
 */
export function judgeChallenge(
  plan: ChallengePlan,
  frames: FrameAnalysis[],
  options: { replayed: number[]; nearMiss: 'REVIEW' | 'FAIL'; /** From the challenge's issue to its answer's arrival. */ elapsedMs?: number },
): ChallengeVerdict {
  const t = CHALLENGE_THRESHOLDS;
  const measurements: Measurement[] = [];
  const add = (m: Measurement) => measurements.push({ ...m, value: round(m.value), threshold: round(m.threshold) });
  const pass = (ok: boolean): MeasurementResult => (ok ? 'PASS' : 'FAIL');

  // Done live: the answer cannot come back sooner than the challenge takes (frames made before it was known).
  if (options.elapsedMs !== undefined) {
    const least = plan.durationMs - t.earlyMs;
    add({
      name: 'timing',
      result: pass(options.elapsedMs >= least),
      value: options.elapsedMs,
      threshold: least,
      description: `The answer came ${options.elapsedMs} ms after the challenge was issued; the challenge takes ${plan.durationMs} ms.`,
    });
  }

  // Fresh frames: none sent before. A replay of an earlier challenge's frames, byte for byte, stops here.
  add({
    name: 'freshFrames',
    result: pass(options.replayed.length === 0),
    value: options.replayed.length,
    threshold: 0,
    description: options.replayed.length === 0 ? `All ${frames.length} frames are new.` : `${options.replayed.length} of the frames were sent before, in an earlier challenge.`,
  });

  // One face throughout: never two, and lost in at most a couple of frames.
  const crowded = frames.filter((f) => f.faces.length > 1).length;
  const empty = frames.filter((f) => f.faces.length === 0).length;
  add({
    name: 'oneFace',
    result: pass(crowded === 0),
    value: crowded,
    threshold: 0,
    description: crowded === 0 ? 'Never more than one face.' : `${crowded} frames show more than one face.`,
  });
  add({
    name: 'faceInView',
    result: pass(empty <= t.maxFramesWithoutFace),
    value: empty,
    threshold: t.maxFramesWithoutFace,
    description: `${empty} of ${frames.length} frames show no face (${t.maxFramesWithoutFace} or fewer passes).`,
  });

  const faceOf = (f: FrameAnalysis) => (f.faces.length === 1 ? f.faces[0] : undefined);
  const withFace = frames.filter((f) => faceOf(f));

  // The same person throughout: every face described like the still's, and no jump between frames
  // (a face that moves further between two frames than a head does, as when another steps in).
  const similarities = withFace.flatMap((f) => (faceOf(f)!.similarity === undefined ? [] : [faceOf(f)!.similarity!]));
  const lowest = similarities.length ? Math.min(...similarities) : 0;
  add({
    name: 'samePerson',
    result: pass(similarities.length > 0 && lowest >= t.samePerson),
    value: lowest,
    threshold: t.samePerson,
    description: `The least similar of ${similarities.length} frames compared scores ${round(lowest)} against the still (${t.samePerson} or more passes).`,
  });
  let jump = 0;
  for (let i = 1; i < withFace.length; i++) {
    const [a, b] = [faceOf(withFace[i - 1]!)!.box, faceOf(withFace[i]!)!.box];
    const moved = Math.hypot(a.left + a.width / 2 - (b.left + b.width / 2), a.top + a.height / 2 - (b.top + b.height / 2));
    const grew = Math.abs(Math.log(Math.max(1e-6, b.width) / Math.max(1e-6, a.width)));
    jump = Math.max(jump, moved / Math.max(1e-6, (a.width + b.width) / 2), grew);
  }
  jump = round(jump);
  add({
    name: 'continuity',
    result: pass(jump <= t.maxJump),
    value: jump,
    threshold: t.maxJump,
    description: `Between two frames the face moved at most ${round(jump, 2)} of its width, or changed its size by as much (${t.maxJump} or less passes).`,
  });

  const baselineFrames = frames.filter((f, i) => i < TIMELINE.baselineFrames.length && faceOf(f));
  const base: Baseline = {
    yaw: median(baselineFrames.map((f) => faceOf(f)!.pose.yaw)),
    pitch: median(baselineFrames.map((f) => faceOf(f)!.pose.pitch)),
    eyes: median(withFace.map((f) => faceOf(f)!.eyes)),
    mouth: median(withFace.map((f) => faceOf(f)!.mouth)),
  };
  add({
    name: 'baseline',
    result: pass(baselineFrames.length > 0),
    value: baselineFrames.length,
    threshold: 1,
    description: baselineFrames.length > 0 ? `Facing the camera at the start: yaw ${round(base.yaw, 1)}°, pitch ${round(base.pitch, 1)}°.` : 'No face at the start of the challenge.',
  });

  // The prompts, each in its own window and in order; in each window, no other movement.
  const inWindow = (s: { from: number; to: number }) => frames.filter((f) => f.at > s.from && f.at <= s.to + TIMELINE.frameToleranceMs / 2);
  for (const segment of plan.segments) {
    if (segment.kind !== 'prompt') continue;
    const window = inWindow(segment).filter((f) => faceOf(f));
    add(promptMeasurement(segment.prompt, window.map((f) => faceOf(f)!), base, frames, segment));
    // Any other head movement or an open mouth in the window: a sequence that does everything at once is no answer.
    for (const other of ['turnLeft', 'turnRight', 'lookUp', 'openMouth'] as const) {
      if (other === segment.prompt) continue;
      const value = Math.max(0, ...window.map((f) => (other === 'openMouth' ? faceOf(f)!.mouth : movement(other, faceOf(f)!, base))));
      const threshold = other === 'openMouth' ? Math.max(t.other.openMouth, base.mouth + 2 * t.openMouth.aboveMedian) : other === 'lookUp' ? t.other.lookUp : t.other.turn;
      if (value >= threshold) {
        add({
          name: `${segment.prompt}.only`,
          result: 'FAIL',
          value,
          threshold,
          description: `While asked to ${words(segment.prompt)}, the end user also did "${words(other)}" (${round(value, 2)}, ${round(threshold, 2)} counts).`,
        });
      }
    }
  }

  // The colours: the face follows the flashed sequence, and more than the background does.
  const colourFrames = plan.segments.flatMap((s) => (s.kind === 'colour' ? [{ s, frame: frames.find((f) => f.at > s.from && f.at <= s.to) }] : []));
  const baseColour = frames
    .slice(0, TIMELINE.baselineFrames.length)
    .map((f) => f.colour)
    .filter((c): c is NonNullable<FrameAnalysis['colour']> => c !== undefined);
  if (baseColour.length > 0) {
    const ref = { face: meanChroma(baseColour.map((c) => c.face)), background: meanChroma(baseColour.map((c) => c.background)) };
    let followed = 0;
    let faceShift = 0;
    let backgroundShift = 0;
    const detail: string[] = [];
    for (const { s, frame } of colourFrames) {
      if (s.kind !== 'colour') continue;
      const expected = direction(s.rgb);
      if (!frame?.colour) {
        detail.push(`${s.colour}: no face`);
        continue;
      }
      const df = sub(chroma(frame.colour.face), ref.face);
      const db = sub(chroma(frame.colour.background), ref.background);
      const cos = cosine(df, expected);
      const size = norm(df);
      const ok = cos >= t.colour.cosine && size >= t.colour.minShift;
      if (ok) followed++;
      faceShift += dot(df, unit(expected));
      backgroundShift += dot(db, unit(expected));
      detail.push(`${s.colour}: ${ok ? 'followed' : 'not followed'} (cosine ${round(cos, 2)}, shift ${round(size, 4)})`);
    }
    const n = colourFrames.length;
    add({
      name: 'colours',
      result: followed === n ? 'PASS' : followed === n - 1 ? 'NEAR' : 'FAIL',
      value: followed,
      threshold: n,
      description: `The face's colour followed ${followed} of the ${n} colours flashed (${detail.join('; ')}).`,
    });
    const margin = (faceShift - backgroundShift) / Math.max(1, n);
    add({
      name: 'coloursOnFace',
      result: pass(margin >= t.colourOverBackground),
      value: margin,
      threshold: t.colourOverBackground,
      description: `The face shifted toward the colours ${round(margin, 4)} more than the background did (mean chromaticity; ${t.colourOverBackground} or more passes).`,
    });
  } else {
    add({ name: 'colours', result: 'FAIL', value: 0, threshold: colourFrames.length, description: 'No colour could be measured at the start of the challenge.' });
  }

  const failed = measurements.find((m) => m.result === 'FAIL');
  const near = measurements.find((m) => m.result === 'NEAR');
  if (failed) return { result: 'FAIL', reason: failed.name, measurements };
  if (near) return options.nearMiss === 'REVIEW' ? { result: 'REVIEW', reason: near.name, measurements } : { result: 'FAIL', reason: near.name, measurements };
  return { result: 'PASS', measurements };
}

function promptMeasurement(prompt: Prompt, faces: FrameFace[], base: Baseline, all: FrameAnalysis[], segment: { from: number; to: number }): Measurement {
  const t = CHALLENGE_THRESHOLDS;
  const name = `prompt.${prompt}`;
  if (faces.length === 0) return { name, result: 'FAIL', value: 0, threshold: 0, description: `No face while asked to ${words(prompt)}.` };
  if (prompt === 'blink') {
    // Closed between open frames: an open frame before (in the window or just before it), and after.
    const ratios = faces.map((f) => round(f.eyes / Math.max(1e-6, base.eyes), 4));
    const before = all.filter((f) => f.at <= segment.from && f.faces.length === 1).at(-1);
    const series = [before ? round(before.faces[0]!.eyes / Math.max(1e-6, base.eyes), 4) : 1, ...ratios];
    let best = Infinity;
    for (let i = 1; i < series.length; i++) {
      const openBefore = series.slice(0, i).some((r) => r >= t.blink.open);
      const openAfter = series.slice(i + 1).some((r) => r >= t.blink.open);
      if (openBefore && openAfter) best = Math.min(best, series[i]!);
    }
    const value = Number.isFinite(best) ? best : Math.min(...ratios);
    const result: MeasurementResult = !Number.isFinite(best) ? 'FAIL' : best <= t.blink.pass ? 'PASS' : best <= t.blink.near ? 'NEAR' : 'FAIL';
    return {
      name,
      result,
      value,
      threshold: t.blink.pass,
      description: `Eyes at ${round(value, 2)} of their usual opening between open frames (${t.blink.pass} or less is a blink).`,
    };
  }
  if (prompt === 'openMouth') {
    const value = Math.max(...faces.map((f) => f.mouth));
    const threshold = Math.max(t.openMouth.pass, base.mouth + t.openMouth.aboveMedian);
    const nearThreshold = Math.max(t.openMouth.near, base.mouth + t.openMouth.aboveMedian / 2);
    return {
      name,
      result: value >= threshold ? 'PASS' : value >= nearThreshold ? 'NEAR' : 'FAIL',
      value,
      threshold,
      description: `Mouth opened to ${round(value, 2)} (${round(threshold, 2)} or more passes).`,
    };
  }
  const value = Math.max(...faces.map((f) => movement(prompt, f, base)));
  const band = prompt === 'lookUp' ? t.lookUp : t.turn;
  return {
    name,
    result: value >= band.pass ? 'PASS' : value >= band.near ? 'NEAR' : 'FAIL',
    value,
    threshold: band.pass,
    description: `Head moved ${round(value, 1)}° to ${words(prompt)} from where it started (${band.pass}° or more passes).`,
  };
}

const WORDS: Record<Prompt, string> = { turnLeft: 'turn left', turnRight: 'turn right', lookUp: 'look up', blink: 'blink', openMouth: 'open the mouth' };
const words = (prompt: Prompt) => WORDS[prompt];

type Vec = [number, number, number];
const chroma = ([r, g, b]: readonly number[]): Vec => {
  const sum = Math.max(1, r! + g! + b!);
  return [r! / sum, g! / sum, b! / sum];
};
const meanChroma = (rgbs: (readonly number[])[]): Vec => {
  const c = rgbs.map(chroma);
  return [0, 1, 2].map((k) => c.reduce((s, v) => s + v[k]!, 0) / c.length) as Vec;
};
/** The chromaticity shift a colour's light should cause on a lit face: its own chromaticity away from white. */
const direction = (rgb: readonly number[]): Vec => sub(chroma(rgb), [1 / 3, 1 / 3, 1 / 3]);
const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const norm = (a: Vec) => Math.sqrt(dot(a, a));
const unit = (a: Vec): Vec => {
  const n = Math.max(1e-9, norm(a));
  return [a[0] / n, a[1] / n, a[2] / n];
};
const cosine = (a: Vec, b: Vec) => dot(a, b) / Math.max(1e-9, norm(a) * norm(b));

/**
 * Whether the frames' times answer the plan's schedule: a frame for each time of it, in order,
 * each within the tolerance of its time (the page's timer on a busy phone).
 */
export function framesMatchSchedule(plan: Pick<ChallengePlan, 'frames'>, times: number[]): boolean {
  if (times.length !== plan.frames.length) return false;
  return times.every((at, i) => Number.isFinite(at) && Math.abs(at - plan.frames[i]!) <= TIMELINE.frameToleranceMs && (i === 0 || at > times[i - 1]!));
}
