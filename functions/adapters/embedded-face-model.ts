/**
 * The embedded face model: @vladmandic/human (MIT), whose models ship in its npm package, on the
 * TensorFlow.js WebAssembly backend (whose .wasm files ship in theirs), so it runs offline on a
 * plain CPU: BlazeFace finds faces, FaceMesh gives their pose, FaceRes a 1024-value descriptor,
 * and two small classifiers judge a face crop real (anti-spoofing) and live. Locally it is the
 * whole face engine; on AWS, where Rekognition has no single-image liveness, it gives liveness.
 *
 * The library is loaded on first use by path (its package's `exports` names no Node.js WASM
 * entry), its models read from its package folder by a `file://` loader registered with its own
 * TensorFlow.js (Node's fetch has no file: scheme).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { decodeRgb, meanLuma, regionQuality, type RgbImage } from './face-image.js';
import type { ChallengeMeasures, DetectedFace, FrameFace } from '../faces/model.js';

/** What the model finds of one face. */
export interface ModelFace extends DetectedFace {
  /** FaceRes descriptor (absent when only liveness was asked for). */
  descriptor?: number[];
  /** Anti-spoofing: that the crop shows a real face rather than a print or a screen, 0 to 1. */
  real: number;
  /** Liveness: that the crop shows a live face, 0 to 1. */
  live: number;
}

export interface ModelAnalysis {
  width: number;
  height: number;
  /** Largest first. */
  faces: ModelFace[];
}

/**
 * Which models load: all (the local engine), only those liveness needs (on AWS), or those an
 * active challenge's frames need (the mesh with its iris refinement for the eyes, and the
 * descriptor; no anti-spoofing).
 */
export type ModelPurpose = 'all' | 'liveness' | 'challenge';

/** Below this detection confidence a box is not taken for a face. */
export const MIN_DETECTION_CONFIDENCE = 0.5;

type Human = {
  load(): Promise<void>;
  faceTriangulation: number[];
  detect(input: unknown, config?: Record<string, unknown>): Promise<{ face: HumanFace[]; error?: string | null }>;
  match: { similarity(a: number[], b: number[], options?: Record<string, number>): number };
  tf: {
    tensor3d(data: Uint8Array, shape: [number, number, number], dtype: 'int32'): { dispose(): void };
    io: {
      registerLoadRouter(router: (url: unknown) => unknown): void;
      getModelArtifactsForJSON(json: unknown, loadWeights: (manifest: WeightsGroup[]) => Promise<[unknown[], ArrayBuffer]>): Promise<unknown>;
    };
  };
};
type WeightsGroup = { paths: string[]; weights: unknown[] };
type HumanFace = {
  boxRaw: [number, number, number, number];
  boxScore: number;
  score: number;
  embedding?: number[];
  real?: number;
  live?: number;
  rotation?: { angle: { roll: number; yaw: number; pitch: number } } | null;
  /** 468 points (478 with the iris), in the image's pixels, z toward the back of the head. */
  mesh?: [number, number, number][];
};

function packageDir(): string {
  const require = createRequire(import.meta.url);
  // The package's `require` entry is dist/human.node.js: two levels below the package folder.
  return dirname(dirname(require.resolve('@vladmandic/human')));
}

const loaded = new Map<ModelPurpose, Promise<Human>>();
let routerRegistered = false;

async function load(purpose: ModelPurpose): Promise<Human> {
  const dir = packageDir();
  const require = createRequire(import.meta.url);
  const { Human } = require(join(dir, 'dist', 'human.node-wasm.js')) as { Human: new (config: unknown) => Human };
  const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
  const human = new Human({
    backend: 'wasm',
    wasmPath: `${wasmDir}/`,
    modelBasePath: `file://${join(dir, 'models')}/`,
    debug: false,
    async: true,
    warmup: 'none',
    // Still images, judged one by one: nothing is carried over from one call to the next.
    cacheSensitivity: 0,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { rotation: false, maxDetected: 10, minConfidence: MIN_DETECTION_CONFIDENCE, skipFrames: 0, skipTime: 0, return: false, mask: false },
      mesh: { enabled: true },
      attention: { enabled: false },
      iris: { enabled: purpose !== 'liveness' },
      description: { enabled: purpose !== 'liveness', skipFrames: 0, skipTime: 0 },
      emotion: { enabled: false },
      gear: { enabled: false },
      ssrnet: { enabled: false },
      mobilefacenet: { enabled: false },
      insightface: { enabled: false },
      antispoof: { enabled: purpose !== 'challenge', skipFrames: 0, skipTime: 0 },
      liveness: { enabled: purpose !== 'challenge', skipFrames: 0, skipTime: 0 },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  });
  if (!routerRegistered) {
    routerRegistered = true;
    human.tf.io.registerLoadRouter((url) => {
      if (typeof url !== 'string' || !url.startsWith('file://')) return null;
      const file = url.slice('file://'.length);
      return {
        load: async () =>
          human.tf.io.getModelArtifactsForJSON(JSON.parse(await readFile(file, 'utf8')), async (manifest) => {
            const specs: unknown[] = [];
            const parts: Buffer[] = [];
            for (const group of manifest) {
              for (const p of group.paths) parts.push(await readFile(join(dirname(file), p)));
              specs.push(...group.weights);
            }
            const all = Buffer.concat(parts);
            return [specs, all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer];
          }),
      };
    });
  }
  await human.load();
  return human;
}

function model(purpose: ModelPurpose): Promise<Human> {
  let made = loaded.get(purpose);
  if (!made) {
    made = load(purpose);
    loaded.set(purpose, made);
    made.catch(() => loaded.delete(purpose));
  }
  return made;
}

/** One inference at a time: the backend is one WebAssembly instance. */
let queue: Promise<unknown> = Promise.resolve();

/** The faces in an image's bytes (JPEG or PNG), largest first. */
export async function analyseImage(bytes: Uint8Array, purpose: ModelPurpose = 'all'): Promise<ModelAnalysis> {
  return analyseRgb(decodeRgb(bytes), purpose);
}

/** The model's raw faces of an image, one inference at a time. */
async function detectFaces(image: RgbImage, purpose: ModelPurpose, describe?: boolean): Promise<HumanFace[]> {
  const human = await model(purpose);
  const run = queue.then(async () => {
    const tensor = human.tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    try {
      // The library merges a call's config into its own for good: a challenge's every call says whether it describes.
      const result = await human.detect(tensor, describe === undefined ? undefined : { face: { description: { enabled: describe } } });
      if (result.error) throw new Error(`the face model failed: ${result.error}`);
      return result.face;
    } finally {
      tensor.dispose();
    }
  });
  queue = run.catch(() => undefined);
  return (await run).filter((f) => f.boxScore >= MIN_DETECTION_CONFIDENCE);
}

export async function analyseRgb(image: RgbImage, purpose: ModelPurpose = 'all'): Promise<ModelAnalysis> {
  const faces = (await detectFaces(image, purpose))
    .map((f): ModelFace => {
      const [left, top, width, height] = f.boxRaw.map((v) => Math.min(1, Math.max(0, v))) as [number, number, number, number];
      const box = { left, top, width, height };
      const angle = f.rotation?.angle ?? { roll: 0, yaw: 0, pitch: 0 };
      return {
        box,
        confidence: round(f.boxScore, 3),
        pose: { yaw: degrees(angle.yaw), pitch: degrees(angle.pitch), roll: degrees(angle.roll) },
        quality: regionQuality(image, box),
        eyes: eyeMeasures(image, f.mesh ?? []),
        ...(f.embedding && f.embedding.length > 0 ? { descriptor: f.embedding } : {}),
        real: round(f.real ?? 0, 3),
        live: round(f.live ?? 0, 3),
      };
    })
    .sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  return { width: image.width, height: image.height, faces };
}

/**
 * How alike two FaceRes descriptors are, 0 to 1: the library's own normalised similarity
 * (Euclidean distance, multiplier 20, mapped from its 0.2-0.8 range).
 */
export async function descriptorSimilarity(a: number[], b: number[]): Promise<number> {
  const human = await model('all');
  return round(human.match.similarity(a, b), 4);
}

/** The passive liveness score of one face: the lower of the anti-spoofing and liveness models. */
export function livenessScore(face: Pick<ModelFace, 'real' | 'live'>): number {
  return round(Math.min(face.real, face.live), 3);
}

const degrees = (radians: number) => Math.round((radians * 180) / Math.PI * 10) / 10;
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** One frame in this many has its face described (and compared with the still's). */
export const DESCRIBE_EVERY = 4;

/**
 * Measures an active challenge: the still's face (its descriptor the reference), then each
 * frame's faces (pose, eyes and mouth from the mesh, similarity to the still's face) and, for the
 * largest face, the mean colour of its skin and of the picture's sides.
 */
export async function analyseChallenge(still: Uint8Array, frames: Uint8Array[], frameMaxSide: number): Promise<ChallengeMeasures> {
  const human = await model('challenge');
  const stillFaces = largestFirst(await detectFaces(decodeRgb(still), 'challenge', true));
  const reference = stillFaces[0]?.embedding;
  const measured: ChallengeMeasures['frames'] = [];
  for (const [i, bytes] of frames.entries()) {
    const image = decodeRgb(bytes, frameMaxSide);
    // A descriptor costs more than the rest of a frame's measures together: every fourth frame and the last have one.
    const describe = i % DESCRIBE_EVERY === 0 || i === frames.length - 1;
    const faces = largestFirst(await detectFaces(image, 'challenge', describe));
    measured.push({
      faces: faces.map((f): FrameFace => {
        const angle = f.rotation?.angle ?? { roll: 0, yaw: 0, pitch: 0 };
        const mesh = f.mesh ?? [];
        return {
          box: boxOf(f),
          confidence: round(f.boxScore, 3),
          pose: { yaw: degrees(angle.yaw), pitch: degrees(angle.pitch), roll: degrees(angle.roll) },
          eyes: round((opening(mesh, 159, 145, 33, 133) + opening(mesh, 386, 374, 263, 362)) / 2, 4),
          mouth: round(opening(mesh, 13, 14, 78, 308), 4),
          ...(describe ? { similarity: reference && f.embedding?.length ? round(human.match.similarity(reference, f.embedding), 4) : 0 } : {}),
        };
      }),
      ...(faces[0] ? { colour: regionColours(image, boxOf(faces[0])) } : {}),
    });
  }
  return { stillFaces: stillFaces.length, frames: measured };
}

/** The FaceRes descriptor of an image's largest face, and how many faces it has. */
export async function faceDescriptor(bytes: Uint8Array): Promise<{ faceCount: number; descriptor?: number[] }> {
  const faces = largestFirst(await detectFaces(decodeRgb(bytes), 'challenge', true));
  const descriptor = faces[0]?.embedding;
  return { faceCount: faces.length, ...(descriptor?.length ? { descriptor: [...descriptor] } : {}) };
}

/**
 * The mesh of an image's largest face and the model's triangulation of it: what the test
 * support's synthetic challenge frames are drawn from (test/support/liveness-frames.ts).
 */
export async function faceMesh(bytes: Uint8Array, maxSide: number): Promise<{ width: number; height: number; mesh: [number, number, number][]; triangles: number[] } | undefined> {
  const human = await model('challenge');
  const image = decodeRgb(bytes, maxSide);
  const [face] = largestFirst(await detectFaces(image, 'challenge', false));
  return face?.mesh ? { width: image.width, height: image.height, mesh: face.mesh, triangles: human.faceTriangulation } : undefined;
}

const largestFirst = (faces: HumanFace[]) => [...faces].sort((a, b) => b.boxRaw[2] * b.boxRaw[3] - a.boxRaw[2] * a.boxRaw[3]);

function boxOf(f: HumanFace) {
  const [left, top, width, height] = f.boxRaw.map((v) => Math.min(1, Math.max(0, v))) as [number, number, number, number];
  return { left, top, width, height };
}

/** The mesh's points around each eye: outer corner, inner corner, upper lid, lower lid; and the cheek below it. */
const EYES = [
  { corners: [33, 133], lids: [159, 145], cheek: 50 },
  { corners: [263, 362], lids: [386, 374], cheek: 280 },
] as const;

/**
 * How open a face's eyes are (both eyes' mean lid-to-lid over corner-to-corner, the mesh refined
 * by the iris model: open eyes in the fixtures measure 0.24-0.43, closed ones 0.10-0.13) and how
 * visible (the mean luma of a band across each eye, half an eye's width high, over that of a
 * square on the cheek below it: bare eyes in the fixtures measure 0.62-1.0, dark sunglasses
 * 0.27). No mesh measures 0 and 0.
 */
function eyeMeasures(image: RgbImage, mesh: [number, number, number][]): { open: number; visible: number } {
  let open = 0;
  let eyes = 0;
  let cheeks = 0;
  for (const e of EYES) {
    const [a, b, u, l, c] = [mesh[e.corners[0]], mesh[e.corners[1]], mesh[e.lids[0]], mesh[e.lids[1]], mesh[e.cheek]];
    if (!a || !b || !u || !l || !c) return { open: 0, visible: 0 };
    open += opening(mesh, e.lids[0], e.lids[1], e.corners[0], e.corners[1]) / EYES.length;
    const width = Math.hypot(a[0] - b[0], a[1] - b[1]);
    const middle = (u[1] + l[1]) / 2;
    eyes += meanLuma(image, Math.min(a[0], b[0]), middle - width / 4, Math.max(a[0], b[0]), middle + width / 4);
    cheeks += meanLuma(image, c[0] - width * 0.3, c[1] - width * 0.3, c[0] + width * 0.3, c[1] + width * 0.3);
  }
  return { open: round(open, 3), visible: cheeks > 0 ? round(eyes / cheeks, 3) : 0 };
}

/** Lid to lid (or lip to lip) over corner to corner, from the mesh's points (0 when it has none). */
function opening(mesh: [number, number, number][], upper: number, lower: number, left: number, right: number): number {
  const [u, l, a, b] = [mesh[upper], mesh[lower], mesh[left], mesh[right]];
  if (!u || !l || !a || !b) return 0;
  const across = Math.hypot(a[0] - b[0], a[1] - b[1]);
  return across > 0 ? Math.hypot(u[0] - l[0], u[1] - l[1]) / across : 0;
}

/**
 * The mean RGB of a face's skin (the box's middle: cheeks, nose, forehead) and of the picture's
 * left and right sixths outside the face's box widened by a fifth (the background, or what of
 * it shows).
 */
function regionColours(image: RgbImage, box: { left: number; top: number; width: number; height: number }): { face: [number, number, number]; background: [number, number, number] } {
  const face = [0, 0, 0];
  const background = [0, 0, 0];
  let nf = 0;
  let nb = 0;
  const fx0 = box.left + box.width * 0.2;
  const fx1 = box.left + box.width * 0.8;
  const fy0 = box.top + box.height * 0.15;
  const fy1 = box.top + box.height * 0.85;
  const bx0 = box.left - box.width * 0.2;
  const bx1 = box.left + box.width * 1.2;
  for (let y = 0; y < image.height; y += 2) {
    const v = (y + 0.5) / image.height;
    for (let x = 0; x < image.width; x += 2) {
      const u = (x + 0.5) / image.width;
      const i = (y * image.width + x) * 3;
      if (u >= fx0 && u <= fx1 && v >= fy0 && v <= fy1) {
        for (let k = 0; k < 3; k++) face[k]! += image.data[i + k]!;
        nf++;
      } else if ((u < 1 / 6 || u > 5 / 6) && (u < bx0 || u > bx1)) {
        for (let k = 0; k < 3; k++) background[k]! += image.data[i + k]!;
        nb++;
      }
    }
  }
  const mean = (sum: number[], n: number) => sum.map((s) => round(s / Math.max(1, n), 2)) as [number, number, number];
  return { face: mean(face, nf), background: mean(background, nb) };
}
