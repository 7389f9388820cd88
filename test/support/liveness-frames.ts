/**
 * Synthetic active-liveness sequences, made here from the licensed face fixtures
 * (test/fixtures/faces, README there): the embedded model's mesh of a still face is turned in 3D,
 * its eyelids lowered and its jaw dropped, and its pixels drawn again triangle by triangle (each
 * triangle's texture from the still); the screen's colours are laid on the face as the light of a
 * phone's screen would be, much weaker on the background. The genuine sequence follows a
 * challenge's plan; the attacks do what the issue names: a still photo, a replay of another
 * challenge, the prompts out of order, another person mid-way, colours that do not follow.
 *
 * They are labelled synthetic: a face drawn from one photo turns like a mask, without the ears
 * and hair a real head shows; the figures they give (docs/faces.md) are the model's on these.
 */
import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { decodeRgb, type RgbImage } from '../../functions/adapters/face-image.js';
import { faceMesh } from '../../functions/adapters/embedded-face-model.js';
import { FRAME_MAX_SIDE, planOf, type ChallengePlan, type Colour, type Prompt } from '../../functions/faces/challenge.js';

const FIXTURES = new URL('../fixtures/faces/', import.meta.url);

/** What the face does in one frame. */
export interface Pose {
  /** Degrees: above 0 turns the head to the person's right (their nose to the image's left). */
  yaw?: number;
  /** Degrees: above 0 tilts the head down. */
  pitch?: number;
  /** 0 (open) to 1 (closed). */
  eyesClosed?: number;
  /** The jaw's drop, as a share of the mouth's width. */
  mouthOpen?: number;
  /** The screen's colour lit on the face (and a tenth of it on the rest). */
  light?: readonly [number, number, number];
}

export interface Face {
  name: string;
  image: RgbImage;
  mesh: [number, number, number][];
  triangles: number[];
}

/** A fixture's face, its mesh found by the embedded model at the frames' size. */
export async function loadFace(fixture: string): Promise<Face> {
  const bytes = readFileSync(new URL(fixture, FIXTURES));
  const found = await faceMesh(bytes, FRAME_MAX_SIDE);
  if (!found) throw new Error(`no face in ${fixture}`);
  return { name: fixture, image: decodeRgb(bytes, FRAME_MAX_SIDE), mesh: found.mesh, triangles: found.triangles };
}

// The mesh's points (MediaPipe's numbering) that the eyelids and lips are made of.
const EYES = [
  { upper: [246, 161, 160, 159, 158, 157, 173], lower: [33, 7, 163, 144, 145, 153, 154, 155, 133], above: [247, 30, 29, 27, 28, 56, 190], brow: [113, 225, 224, 223, 222, 221, 189] },
  { upper: [466, 388, 387, 386, 385, 384, 398], lower: [263, 249, 390, 373, 374, 380, 381, 382, 362], above: [467, 260, 259, 257, 258, 286, 414], brow: [342, 445, 444, 443, 442, 441, 413] },
];
const LIPS_UPPER_INNER = [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308];
const LIPS_LOWER_INNER = [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308];
/** How much deeper than the face's front a head turns about (the neck), as the mesh's depth is flat. */
const DEPTH = 3;

/** The face drawn in a pose, over its own picture. `noise` (a seed) makes each frame's pixels its own, as a camera's are. */
export function render(face: Face, pose: Pose, noise = 0): RgbImage {
  const { image: src, mesh } = face;
  const P = mesh.map((p) => [...p] as [number, number, number]);
  const closed = pose.eyesClosed ?? 0;
  if (closed > 0) {
    for (const eye of EYES) {
      const moves = eye.upper.map((i) => (lowerLid(mesh, eye.lower, mesh[i]![0]) - mesh[i]![1]) * closed);
      const mean = moves.reduce((a, b) => a + b, 0) / moves.length;
      eye.upper.forEach((i, k) => (P[i]![1] += moves[k]!));
      eye.above.forEach((i) => (P[i]![1] += mean * 0.7));
      eye.brow.forEach((i) => (P[i]![1] += mean * 0.3));
    }
  }
  const open = pose.mouthOpen ?? 0;
  if (open > 0) {
    const [l, r] = [mesh[78]!, mesh[308]!];
    const width = Math.hypot(r[0] - l[0], r[1] - l[1]);
    const lipY = (mesh[13]![1] + mesh[14]![1]) / 2;
    const chinY = mesh[152]![1];
    const midX = (l[0] + r[0]) / 2;
    for (let i = 0; i < P.length; i++) {
      const [x, y] = mesh[i]!;
      if (y <= lipY + 1 || LIPS_UPPER_INNER.includes(i)) continue;
      const across = Math.abs(x - midX) / (width * 1.6);
      P[i]![1] += open * width * Math.max(0, 1 - across * across) * Math.min(1, 1.2 - (0.2 * (y - lipY)) / Math.max(1, chinY - lipY));
    }
  }
  // Turned about a point behind the face (its deepest point, the depth stretched), seen straight on.
  const cx = P.reduce((s, p) => s + p[0], 0) / P.length;
  const cy = P.reduce((s, p) => s + p[1], 0) / P.length;
  const cz = Math.max(...P.map((p) => p[2])) * DEPTH;
  const yaw = ((pose.yaw ?? 0) * Math.PI) / 180;
  const pitch = ((pose.pitch ?? 0) * Math.PI) / 180;
  const Q = P.map(([x, y, z]) => {
    const dx = x - cx;
    const dy = y - cy;
    const dz = z * DEPTH - cz;
    const x1 = dx * Math.cos(yaw) + dz * Math.sin(yaw);
    const z1 = -dx * Math.sin(yaw) + dz * Math.cos(yaw);
    return [x1 + cx, dy * Math.cos(pitch) - z1 * Math.sin(pitch) + cy, dy * Math.sin(pitch) + z1 * Math.cos(pitch)] as const;
  });
  const W = src.width;
  const H = src.height;
  const out = new Uint8Array(src.data);
  if (open > 0) {
    const mouth = [...LIPS_UPPER_INNER, ...[...LIPS_LOWER_INNER].reverse()].map((i) => Q[i]!);
    fillPolygon(mouth, W, H, (x, y) => out.set([40, 12, 14], (y * W + x) * 3));
  }
  const tris = face.triangles;
  const order: number[] = [];
  for (let t = 0; t < tris.length; t += 3) order.push(t);
  const depth = (t: number) => Q[tris[t]!]![2] + Q[tris[t + 1]!]![2] + Q[tris[t + 2]!]![2];
  order.sort((a, b) => depth(b) - depth(a));
  for (const t of order) drawTriangle(src, out, [mesh[tris[t]!]!, mesh[tris[t + 1]!]!, mesh[tris[t + 2]!]!], [Q[tris[t]!]!, Q[tris[t + 1]!]!, Q[tris[t + 2]!]!]);
  if (pose.light) light(out, W, H, Q, pose.light);
  if (noise) addNoise(out, noise);
  return { width: W, height: H, data: out };
}

/** The lower lid's height under a point of the upper lid. */
function lowerLid(mesh: [number, number, number][], lower: number[], x: number): number {
  const pts = lower.map((i) => mesh[i]!).sort((a, b) => a[0] - b[0]);
  if (x <= pts[0]![0]) return pts[0]![1];
  for (let i = 1; i < pts.length; i++) {
    const [a, b] = [pts[i - 1]!, pts[i]!];
    if (x <= b[0]) return a[1] + ((x - a[0]) / Math.max(1e-6, b[0] - a[0])) * (b[1] - a[1]);
  }
  return pts.at(-1)![1];
}

type Point = readonly [number, number, ...number[]];

function drawTriangle(src: RgbImage, out: Uint8Array, from: Point[], to: Point[]) {
  const [A, B, C] = to as [Point, Point, Point];
  const [a, b, c] = from as [Point, Point, Point];
  const area = (B[0] - A[0]) * (C[1] - A[1]) - (C[0] - A[0]) * (B[1] - A[1]);
  const area0 = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
  // Turned away from the camera (or flat): not drawn.
  if (Math.abs(area) < 1e-6 || Math.sign(area) !== Math.sign(area0)) return;
  const W = src.width;
  const H = src.height;
  const x0 = Math.max(0, Math.floor(Math.min(A[0], B[0], C[0])));
  const x1 = Math.min(W - 1, Math.ceil(Math.max(A[0], B[0], C[0])));
  const y0 = Math.max(0, Math.floor(Math.min(A[1], B[1], C[1])));
  const y1 = Math.min(H - 1, Math.ceil(Math.max(A[1], B[1], C[1])));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const px = x + 0.5;
      const py = y + 0.5;
      const w1 = ((B[0] - px) * (C[1] - py) - (C[0] - px) * (B[1] - py)) / area;
      const w2 = ((C[0] - px) * (A[1] - py) - (A[0] - px) * (C[1] - py)) / area;
      const w3 = 1 - w1 - w2;
      if (w1 < -0.01 || w2 < -0.01 || w3 < -0.01) continue;
      const sx = w1 * a[0] + w2 * b[0] + w3 * c[0];
      const sy = w1 * a[1] + w2 * b[1] + w3 * c[1];
      bilinear(src, sx, sy, out, (y * W + x) * 3);
    }
  }
}

function bilinear(src: RgbImage, x: number, y: number, out: Uint8Array, at: number) {
  const W = src.width;
  const x0 = Math.max(0, Math.min(W - 2, Math.floor(x)));
  const y0 = Math.max(0, Math.min(src.height - 2, Math.floor(y)));
  const fx = Math.min(1, Math.max(0, x - x0));
  const fy = Math.min(1, Math.max(0, y - y0));
  for (let ch = 0; ch < 3; ch++) {
    const i = (y0 * W + x0) * 3 + ch;
    const d = src.data;
    out[at + ch] = (d[i]! * (1 - fx) + d[i + 3]! * fx) * (1 - fy) + (d[i + W * 3]! * (1 - fx) + d[i + W * 3 + 3]! * fx) * fy;
  }
}

function fillPolygon(poly: readonly Point[], W: number, H: number, plot: (x: number, y: number) => void) {
  const ys = poly.map((p) => p[1]);
  for (let y = Math.max(0, Math.floor(Math.min(...ys))); y <= Math.min(H - 1, Math.ceil(Math.max(...ys))); y++) {
    const xs: number[] = [];
    for (let i = 0; i < poly.length; i++) {
      const [a, b] = [poly[i]!, poly[(i + 1) % poly.length]!];
      if (a[1] <= y + 0.5 !== b[1] <= y + 0.5) xs.push(a[0] + ((y + 0.5 - a[1]) / (b[1] - a[1])) * (b[0] - a[0]));
    }
    xs.sort((p, q) => p - q);
    for (let i = 0; i + 1 < xs.length; i += 2) for (let x = Math.max(0, Math.ceil(xs[i]!)); x <= Math.min(W - 1, Math.floor(xs[i + 1]!)); x++) plot(x, y);
  }
}

/** A screen's light: on the face (an ellipse around its mesh) its colour times the skin's, a tenth of that elsewhere. */
function light(out: Uint8Array, W: number, H: number, Q: readonly (readonly number[])[], rgb: readonly [number, number, number], strength = 0.3) {
  const xs = Q.map((p) => p[0]!);
  const ys = Q.map((p) => p[1]!);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
  const cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  const rx = (Math.max(...xs) - Math.min(...xs)) * 0.75;
  const ry = (Math.max(...ys) - Math.min(...ys)) * 0.75;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const w = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 < 1 ? strength : strength * 0.1;
      const k = (y * W + x) * 3;
      for (let ch = 0; ch < 3; ch++) out[k + ch] = Math.min(255, out[k + ch]! * (1 - w * 0.5) + out[k + ch]! * (rgb[ch]! / 255) * w * 1.5);
    }
  }
}

/** A camera's noise: ±2 on each channel, from a small seeded generator. */
function addNoise(out: Uint8Array, seed: number) {
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < out.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = Math.max(0, Math.min(255, out[i]! + ((s % 5) - 2)));
  }
}

export function toJpeg(image: RgbImage, quality = 85): Uint8Array {
  const rgba = Buffer.alloc(image.width * image.height * 4, 255);
  for (let i = 0, j = 0; i < image.data.length; i += 3, j += 4) rgba.set([image.data[i]!, image.data[i + 1]!, image.data[i + 2]!], j);
  return new Uint8Array(jpeg.encode({ data: rgba, width: image.width, height: image.height }, quality).data);
}

/** What a person does at a time of a plan: the colour on their face, and the prompt's movement as it goes. */
export function poseAt(plan: ChallengePlan, at: number): Pose {
  const segment = plan.segments.find((s) => at > s.from && at <= s.to) ?? plan.segments[0]!;
  if (segment.kind === 'colour') return { light: segment.rgb };
  if (segment.kind === 'neutral') return {};
  const t = at - segment.from;
  // A person reacts in about 0.3 s, moves for 0.5 s, holds, and comes back in the last 0.4 s.
  const amount = t < 300 ? 0 : t < 800 ? (t - 300) / 500 : t < 1600 ? 1 : Math.max(0, (2000 - t) / 400);
  return movementOf(segment.prompt, t, amount);
}

function movementOf(prompt: Prompt, t: number, amount: number): Pose {
  switch (prompt) {
    case 'turnLeft':
      return { yaw: -25 * amount };
    case 'turnRight':
      return { yaw: 25 * amount };
    case 'lookUp':
      return { pitch: -20 * amount };
    case 'openMouth':
      return { mouthOpen: 0.5 * amount };
    case 'blink':
      // Eyes shut from 0.7 s to 1.2 s of the prompt.
      return { eyesClosed: t >= 700 && t <= 1200 ? 1 : 0 };
  }
}

export interface Sequence {
  still: Uint8Array;
  frames: { at: number; bytes: Uint8Array }[];
}

/** The still the page sends beside the frames: the face at rest, as a JPEG. */
export const stillOf = (face: Face) => toJpeg(render(face, {}, 1), 92);

/** A genuine answer to a plan: the face does each prompt in its window and takes each colour's light. */
export function genuine(face: Face, plan: ChallengePlan, seed = 1): Sequence {
  return { still: stillOf(face), frames: plan.frames.map((at, i) => ({ at, bytes: toJpeg(render(face, poseAt(plan, at), seed * 1000 + i + 1)) })) };
}

/** The attacks the challenge must stop, each a sequence sent for `plan`. */
export function attacks(faces: { person: Face; other: Face }, plan: ChallengePlan): Record<string, Sequence> {
  const { person, other } = faces;
  const still = stillOf(person);
  const framesFrom = (poseFor: (at: number, i: number) => Pose, who: (at: number) => Face = () => person, seed = 7) =>
    plan.frames.map((at, i) => ({ at, bytes: toJpeg(render(who(at), poseFor(at, i), seed * 1000 + i + 1)) }));
  const prompts = plan.segments.flatMap((s) => (s.kind === 'prompt' ? [s.prompt] : []));
  const colours = plan.segments.flatMap((s) => (s.kind === 'colour' ? [s.colour] : []));
  // Another challenge's plan: the same kinds of things in another order (what a recording of an earlier challenge shows).
  const otherPlan = planOf('other', new Date(plan.issuedAt), [...prompts].reverse(), rotate(colours));
  const half = plan.durationMs / 2;
  return {
    // A photo held up: the screen's light on it, nothing moves.
    stillPhoto: { still, frames: framesFrom((at) => ({ light: poseAt(plan, at).light })) },
    // A recording of another challenge of the same person, played to this one.
    replayedRecording: { still, frames: framesFrom((at) => poseAt(otherPlan, at)) },
    // The prompts done, but in the opposite order.
    wrongOrder: { still, frames: framesFrom((at) => ({ ...poseAt(otherPlan, at), light: poseAt(plan, at).light })) },
    // Another person from the middle on.
    anotherPerson: { still, frames: framesFrom((at) => poseAt(plan, at), (at) => (at < half ? person : other)) },
    // The movements right, the colours not on the face (an injected video that does not see the screen).
    coloursNotFollowed: { still, frames: framesFrom((at) => ({ ...poseAt(plan, at), light: undefined })) },
  };
}

const rotate = (colours: Colour[]): Colour[] => (colours.length > 1 ? [...colours.slice(1), colours[0]!] : colours);
