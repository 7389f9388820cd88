/**
 * The local runtime's face engine, in place of Amazon Rekognition: the embedded model
 * (functions/adapters/embedded-face-model.ts) in a worker thread, with watchlists kept as descriptors in
 * memory and in a file under `.local/`, so they outlive a restart as Rekognition collections do.
 *
 * It fails where Rekognition would: an image over 5 MB of bytes, one that is neither JPEG nor
 * PNG, or that does not decode (a FaceImageRefusedError, as the Rekognition engine turns
 * Rekognition's refusals), a collection or member id outside Rekognition's pattern
 * (InvalidParameterException), a watchlist that does not exist (ResourceNotFoundException).
 * The worker gets one call at a time and FACE_WORKER_TIMEOUT_MS for it: one that does not end is
 * stopped with its worker, and the next call starts a new one.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ModelAnalysis } from '../../functions/adapters/embedded-face-model.js';
import { engineImage } from '../../functions/shared/face-engine-image.js';
import { livenessScore } from '../../functions/adapters/embedded-face-model.js';
import { FaceImageRefusedError, type ChallengeMeasures, type Comparison, type Detection, type FaceEngine, type FaceImage, type WatchlistHit, type WatchlistRef } from '../../functions/faces/model.js';
import type { FaceWorkerReply, FaceWorkerRequest } from './face-engine-worker.js';

/**
 * The longest the worker may take over one call: an analysis is 0.2-1.5 s here (a 16 MP photo's
 * decode about 4 s more, the first call's model load about 1 s), and a watchlist route has 29 s.
 * Longer is a decode or inference that is not going to end.
 */
export const FACE_WORKER_TIMEOUT_MS = 20_000;
const ID_PATTERN = /^[a-zA-Z0-9_.\-:]{1,255}$/;

/** An error named as Rekognition's (the SDK's errors carry the exception's name). */
export class LocalRekognitionError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Member {
  faceId: string;
  memberId: string;
  descriptor: number[];
}

export interface LocalFaceEngine extends FaceEngine {
  stop(): Promise<void>;
}

export function startLocalFaceEngine(options: { collectionsFile?: string; analyseTimeoutMs?: number } = {}): LocalFaceEngine {
  const timeoutMs = options.analyseTimeoutMs ?? FACE_WORKER_TIMEOUT_MS;
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { worker: Worker; resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  // One call in the worker at a time (its model runs one inference at a time anyway): a call that
  // times out is then the one that stalled it, and none queued behind it is failed with it.
  let line: Promise<unknown> = Promise.resolve();
  const collections = load(options.collectionsFile);

  function ensureWorker(): Worker {
    if (worker) return worker;
    const started = new Worker(new URL('./face-engine-worker.mjs', import.meta.url));
    started.unref();
    started.on('message', (reply: FaceWorkerReply) => {
      const call = pending.get(reply.id);
      if (!call) return;
      pending.delete(reply.id);
      if ('error' in reply) call.reject(reply.refused ? new FaceImageRefusedError(reply.refused, reply.error) : new Error(reply.error));
      else call.resolve(reply.result);
    });
    started.on('error', (err) => fail(started, err.message));
    started.on('exit', (code) => fail(started, `the face engine's worker exited (code ${code})`));
    worker = started;
    return started;
  }

  function fail(dead: Worker, message: string) {
    if (worker === dead) worker = undefined;
    // Only the dead worker's calls: one stopped for a timeout exits after its successor took the next call.
    for (const [id, call] of pending) {
      if (call.worker !== dead) continue;
      pending.delete(id);
      call.reject(new Error(message));
    }
  }

  function ask<T>(request: DistributiveOmit<FaceWorkerRequest, 'id'>): Promise<T> {
    const call = line.then(() => send<T>(request));
    line = call.catch(() => undefined);
    return call;
  }

  function send<T>(request: DistributiveOmit<FaceWorkerRequest, 'id'>): Promise<T> {
    const target = ensureWorker();
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A synchronous decode cannot be interrupted inside the thread: the thread is stopped.
        pending.delete(id);
        if (worker === target) worker = undefined;
        void target.terminate();
        reject(
          request.op === 'analyse'
            ? new FaceImageRefusedError('unreadable', `The face engine did not finish with the image within ${timeoutMs} ms.`)
            : new Error(`the face engine's worker did not answer within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      const settle = () => clearTimeout(timer);
      pending.set(id, {
        worker: target,
        resolve: (v) => (settle(), resolve(v as T)),
        reject: (e) => (settle(), reject(e)),
      });
      target.ref();
      target.postMessage({ ...request, id });
    }).finally(() => {
      if (pending.size === 0) worker?.unref();
    });
  }

  // One inference per image, however many of the engine's calls ask about it: the capture step
  // asks detect, then liveness, of the same bytes (two Rekognition-and-model calls on AWS).
  const analysed = new WeakMap<Uint8Array, Promise<ModelAnalysis>>();
  function analyse(image: FaceImage): Promise<ModelAnalysis> {
    // Judged here before it is posted (a copy to the thread); the worker's decode judges it again.
    engineImage(image.bytes);
    let analysis = analysed.get(image.bytes);
    if (!analysis) {
      analysis = ask<ModelAnalysis>({ op: 'analyse', bytes: image.bytes });
      analysed.set(image.bytes, analysis);
      analysis.catch(() => analysed.delete(image.bytes));
    }
    return analysis;
  }

  function save() {
    if (!options.collectionsFile) return;
    mkdirSync(dirname(options.collectionsFile), { recursive: true });
    const tmp = `${options.collectionsFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries([...collections].map(([k, v]) => [k, [...v.values()]]))));
    renameSync(tmp, options.collectionsFile);
  }

  function collection(ref: WatchlistRef): Map<string, Member> {
    const found = collections.get(collectionKey(ref));
    if (!found) throw new LocalRekognitionError('ResourceNotFoundException', `The collection id: ${collectionKey(ref)} does not exist`);
    return found;
  }

  return {
    name: 'embedded',
    async detect(image): Promise<Detection> {
      const analysis = await analyse(image);
      return {
        width: analysis.width,
        height: analysis.height,
        faces: analysis.faces.map(({ box, confidence, pose, quality, eyes }) => ({ box, confidence, pose, quality, eyes })),
      };
    },
    async liveness(image) {
      const [face] = (await analyse(image)).faces;
      return { score: face ? livenessScore(face) : 0 };
    },
    async measureChallenge(still, frames, frameMaxSide): Promise<ChallengeMeasures> {
      engineImage(still.bytes);
      frames.forEach((frame) => engineImage(frame.bytes));
      return ask<ChallengeMeasures>({ op: 'challenge', still: still.bytes, frames: frames.map((f) => f.bytes), frameMaxSide });
    },
    async template(image) {
      const { faces } = await analyse(image);
      const descriptor = faces[0]?.descriptor;
      return { faceCount: faces.length, ...(descriptor ? { template: { model: 'human-faceres' as const, vector: descriptor } } : {}) };
    },
    async compare(source, target): Promise<Comparison> {
      const [a] = (await analyse(source)).faces;
      if (!a?.descriptor) return { noFace: 'source' };
      const [b] = (await analyse(target)).faces;
      if (!b?.descriptor) return { noFace: 'target' };
      const [similarity] = await ask<number[]>({ op: 'similarities', probe: a.descriptor, others: [b.descriptor] });
      return { similarity: similarity! };
    },
    async createWatchlist(ref) {
      const key = collectionKey(ref);
      if (!collections.has(key)) {
        collections.set(key, new Map());
        save();
      }
    },
    async deleteWatchlist(ref) {
      if (collections.delete(collectionKey(ref))) save();
    },
    async addMember(ref, memberId, image) {
      if (!ID_PATTERN.test(memberId)) throw new LocalRekognitionError('InvalidParameterException', 'ExternalImageId does not match the pattern');
      const members = collection(ref);
      const [face] = (await analyse(image)).faces;
      if (!face?.descriptor) return undefined;
      const faceId = randomUUID();
      members.set(faceId, { faceId, memberId, descriptor: face.descriptor });
      save();
      return { faceId };
    },
    async removeMember(ref, faceId) {
      if (collection(ref).delete(faceId)) save();
    },
    async search(ref, image, threshold, maxHits): Promise<WatchlistHit[] | { noFace: true }> {
      const members = [...collection(ref).values()];
      const [face] = (await analyse(image)).faces;
      if (!face?.descriptor) return { noFace: true };
      if (members.length === 0) return [];
      const similarities = await ask<number[]>({ op: 'similarities', probe: face.descriptor, others: members.map((m) => m.descriptor) });
      return members
        .map((m, i) => ({ memberId: m.memberId, similarity: similarities[i]! }))
        .filter((hit) => hit.similarity >= threshold)
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, maxHits);
    },
    async stop() {
      const current = worker;
      worker = undefined;
      if (current) await current.terminate();
    },
  };
}

/** The collection's id as the Rekognition engine names it (functions/adapters/face-engine.ts). */
function collectionKey(ref: WatchlistRef): string {
  const key = `${ref.tenantId}.${ref.watchlistId}`;
  if (!ID_PATTERN.test(key)) throw new LocalRekognitionError('InvalidParameterException', 'CollectionId does not match the pattern');
  return key;
}

function load(file: string | undefined): Map<string, Map<string, Member>> {
  const out = new Map<string, Map<string, Member>>();
  if (!file || !existsSync(file)) return out;
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Member[]>;
  for (const [key, members] of Object.entries(saved)) out.set(key, new Map(members.map((m) => [m.faceId, m])));
  return out;
}
