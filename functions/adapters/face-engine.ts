/**
 * The face engine on AWS: Amazon Rekognition in the function's own region (the client takes the
 * Lambda's region, so images never leave the stack's region), and the embedded anti-spoofing
 * model for liveness, which Rekognition has only as a streamed video session. Watchlists are
 * collections named `{FACE_COLLECTION_PREFIX}.{tenantId}.{watchlistId}`, so a function's grant
 * on its deployment's prefix reaches no other deployment's faces.
 *
 * Every image is judged before it is sent (functions/faces/engine-image.ts), and Rekognition's own
 * refusals of an image (InvalidImageFormatException, ImageTooLargeException) come back as the
 * port's FaceImageRefusedError, as the embedded engine's do.
 *
 * Locally, lib/local/face-engine.ts is installed in its place.
 */
import type { RekognitionClient } from '@aws-sdk/client-rekognition';
import { getStoreConfig } from '../config.js';
import { engineImage, FaceImageRefusedError } from '../shared/face-engine-image.js';
import { traced } from '../observability/tracer.js';
import { analyseChallenge, analyseImage, faceDescriptor, livenessScore } from './embedded-face-model.js';
import type { Comparison, Detection, FaceEngine, FaceImage, WatchlistHit, WatchlistRef } from '../faces/model.js';

type Rekognition = { client: RekognitionClient; commands: typeof import('@aws-sdk/client-rekognition') };

const nameOf = (err: unknown) => (typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined);

/**
 * Rekognition's refusal of the image as the port's. `InvalidParameterException` is the image's
 * fault only where the call has no other parameter a client chose (DetectFaces, IndexFaces: an
 * image Rekognition cannot use, such as one under 80 pixels); CompareFaces and SearchFacesByImage
 * raise it for no face, which they answer as such.
 */
/**
 * How likely one of Rekognition's boolean attributes is `value`, 0 to 1, from its Value and
 * Confidence (0 to 100); an attribute it did not answer counts as not seen (0).
 */
function likelihood(attribute: { Value?: boolean; Confidence?: number } | undefined, value: boolean): number {
  if (attribute?.Value === undefined || attribute.Confidence === undefined) return 0;
  const c = Math.min(100, Math.max(0, attribute.Confidence)) / 100;
  return Math.round((attribute.Value === value ? c : 1 - c) * 1000) / 1000;
}

function refusal(err: unknown, invalidParameterIsImage = false): unknown {
  const name = nameOf(err);
  const message = err instanceof Error ? err.message : String(name);
  if (name === 'ImageTooLargeException') return new FaceImageRefusedError('tooLarge', message);
  if (name === 'InvalidImageFormatException' || (invalidParameterIsImage && name === 'InvalidParameterException')) {
    return new FaceImageRefusedError('unreadable', message);
  }
  return err;
}

/** Waits for `call`, taking the named Rekognition error as done (creating what exists, deleting what is gone). */
async function ignoring(name: string, call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (err) {
    if (nameOf(err) !== name) throw err;
  }
}

export class RekognitionFaceEngine implements FaceEngine {
  readonly name = 'rekognition' as const;
  private made: Promise<Rekognition> | undefined;
  constructor(private readonly collectionPrefix: string | undefined) {}

  private rekognition(): Promise<Rekognition> {
    this.made ??= import('@aws-sdk/client-rekognition').then(async (commands) => ({
      client: await traced(new commands.RekognitionClient({})),
      commands,
    }));
    return this.made;
  }

  private collectionId(ref: WatchlistRef): string {
    if (!this.collectionPrefix) throw new Error('FACE_COLLECTION_PREFIX is not configured for this function');
    return `${this.collectionPrefix}.${ref.tenantId}.${ref.watchlistId}`;
  }

  async detect(image: FaceImage): Promise<Detection> {
    // Rekognition's boxes are fractions of the image as displayed (after its EXIF orientation).
    const { width, height } = engineImage(image.bytes);
    const { client, commands } = await this.rekognition();
    const out = await client
      .send(new commands.DetectFacesCommand({ Image: { Bytes: image.bytes }, Attributes: ['DEFAULT', 'EYES_OPEN', 'SUNGLASSES'] }))
      .catch((err: unknown) => Promise.reject(refusal(err, true)));
    const faces = (out.FaceDetails ?? []).map((f) => ({
      box: { left: f.BoundingBox?.Left ?? 0, top: f.BoundingBox?.Top ?? 0, width: f.BoundingBox?.Width ?? 0, height: f.BoundingBox?.Height ?? 0 },
      confidence: Math.round((f.Confidence ?? 0) * 10) / 1000,
      pose: { yaw: f.Pose?.Yaw ?? 0, pitch: f.Pose?.Pitch ?? 0, roll: f.Pose?.Roll ?? 0 },
      quality: { brightness: f.Quality?.Brightness ?? 0, sharpness: f.Quality?.Sharpness ?? 0 },
      // Rekognition's two booleans with their confidence, as the probability that the eyes are open and bare.
      eyes: { open: likelihood(f.EyesOpen, true), visible: likelihood(f.Sunglasses, false) },
    }));
    faces.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
    return { width, height, faces };
  }

  /** The embedded model, in the function (its layer): Rekognition measures no eyes or mouth of a frame. */
  measureChallenge(still: FaceImage, frames: FaceImage[], frameMaxSide: number) {
    return analyseChallenge(still.bytes, frames.map((f) => f.bytes), frameMaxSide);
  }

  /** The embedded model, in the function (its layer): Rekognition hands out no template of a face. */
  async template(image: FaceImage) {
    const { faceCount, descriptor } = await faceDescriptor(image.bytes);
    return { faceCount, ...(descriptor ? { template: { model: 'human-faceres' as const, vector: descriptor } } : {}) };
  }

  async liveness(image: FaceImage) {
    const [face] = (await analyseImage(image.bytes, 'liveness')).faces;
    return { score: face ? livenessScore(face) : 0 };
  }

  async compare(source: FaceImage, target: FaceImage): Promise<Comparison> {
    engineImage(source.bytes);
    engineImage(target.bytes);
    const { client, commands } = await this.rekognition();
    try {
      const out = await client.send(
        new commands.CompareFacesCommand({ SourceImage: { Bytes: source.bytes }, TargetImage: { Bytes: target.bytes }, SimilarityThreshold: 0 }),
      );
      // The target's largest face, as the embedded engine compares.
      const matches = [...(out.FaceMatches ?? [])].sort(
        (a, b) => (b.Face?.BoundingBox?.Width ?? 0) * (b.Face?.BoundingBox?.Height ?? 0) - (a.Face?.BoundingBox?.Width ?? 0) * (a.Face?.BoundingBox?.Height ?? 0),
      );
      const [best] = matches;
      if (!best) return { noFace: 'target' };
      return { similarity: Math.round((best.Similarity ?? 0) * 100) / 10_000 };
    } catch (err) {
      // Rekognition refuses a source image in which it finds no face.
      if (nameOf(err) === 'InvalidParameterException') return { noFace: 'source' };
      throw refusal(err);
    }
  }

  async createWatchlist(ref: WatchlistRef) {
    const { client, commands } = await this.rekognition();
    await ignoring('ResourceAlreadyExistsException', client.send(new commands.CreateCollectionCommand({ CollectionId: this.collectionId(ref) })));
  }

  async deleteWatchlist(ref: WatchlistRef) {
    const { client, commands } = await this.rekognition();
    await ignoring('ResourceNotFoundException', client.send(new commands.DeleteCollectionCommand({ CollectionId: this.collectionId(ref) })));
  }

  async addMember(ref: WatchlistRef, memberId: string, image: FaceImage) {
    engineImage(image.bytes);
    const { client, commands } = await this.rekognition();
    const out = await client.send(
      new commands.IndexFacesCommand({
        CollectionId: this.collectionId(ref),
        Image: { Bytes: image.bytes },
        ExternalImageId: memberId,
        MaxFaces: 1,
        QualityFilter: 'AUTO',
        DetectionAttributes: [],
      }),
    ).catch((err: unknown) => Promise.reject(refusal(err, true)));
    const faceId = out.FaceRecords?.[0]?.Face?.FaceId;
    return faceId ? { faceId } : undefined;
  }

  async removeMember(ref: WatchlistRef, faceId: string) {
    const { client, commands } = await this.rekognition();
    await client.send(new commands.DeleteFacesCommand({ CollectionId: this.collectionId(ref), FaceIds: [faceId] }));
  }

  async search(ref: WatchlistRef, image: FaceImage, threshold: number, maxHits: number): Promise<WatchlistHit[] | { noFace: true }> {
    engineImage(image.bytes);
    const { client, commands } = await this.rekognition();
    try {
      const out = await client.send(
        new commands.SearchFacesByImageCommand({
          CollectionId: this.collectionId(ref),
          Image: { Bytes: image.bytes },
          FaceMatchThreshold: threshold * 100,
          MaxFaces: maxHits,
          QualityFilter: 'NONE',
        }),
      );
      return (out.FaceMatches ?? [])
        .filter((m) => m.Face?.ExternalImageId)
        .map((m) => ({ memberId: m.Face!.ExternalImageId!, similarity: Math.round((m.Similarity ?? 0) * 100) / 10_000 }))
        .sort((a, b) => b.similarity - a.similarity);
    } catch (err) {
      // No face in the searched image.
      if (nameOf(err) === 'InvalidParameterException') return { noFace: true };
      throw refusal(err);
    }
  }
}

let installed: FaceEngine | undefined;

/** The local runtime's engine (the embedded model), installed at start in place of Rekognition. */
export function installFaceEngine(engine: FaceEngine | undefined): void {
  installed = engine;
}

let rekognition: RekognitionFaceEngine | undefined;

function current(): FaceEngine {
  if (installed) return installed;
  rekognition ??= new RekognitionFaceEngine(getStoreConfig().FACE_COLLECTION_PREFIX);
  return rekognition;
}

/** The installed engine, or Rekognition. */
export const faceEngine: FaceEngine = {
  get name() {
    return current().name;
  },
  detect: (image) => current().detect(image),
  liveness: (image) => current().liveness(image),
  measureChallenge: (still, frames, frameMaxSide) => current().measureChallenge(still, frames, frameMaxSide),
  template: (image) => current().template(image),
  compare: (source, target) => current().compare(source, target),
  createWatchlist: (ref) => current().createWatchlist(ref),
  deleteWatchlist: (ref) => current().deleteWatchlist(ref),
  addMember: (ref, memberId, image) => current().addMember(ref, memberId, image),
  removeMember: (ref, faceId) => current().removeMember(ref, faceId),
  search: (ref, image, threshold, maxHits) => current().search(ref, image, threshold, maxHits),
};
