/**
 * The face engine port: what the service asks of a face engine, whichever runs it. On AWS it is
 * Amazon Rekognition (functions/adapters/face-engine.ts) with the embedded anti-spoofing model for
 * liveness; locally the embedded model does all of it (lib/local/face-engine.ts). Both answer in
 * Rekognition's terms: boxes as fractions of the image, angles in degrees, quality and
 * similarity on fixed scales, so one set of rules (quality.ts) judges either.
 */

/** An image as the engine takes it: its bytes (JPEG or PNG, checked before they get here). */
export interface FaceImage {
  bytes: Uint8Array;
}

/** A box as fractions of the image's width and height (Rekognition's BoundingBox). */
export interface FaceBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface DetectedFace {
  box: FaceBox;
  /** That this is a face, 0 to 1. */
  confidence: number;
  /** Degrees; 0, 0, 0 is a face looking straight at the camera. */
  pose: { yaw: number; pitch: number; roll: number };
  /** 0 to 100, as Rekognition's Quality: the face's lighting, and how sharp it is. */
  quality: { brightness: number; sharpness: number };
  /**
   * The eyes, each on its engine's own scale (faces/quality.ts has the thresholds): `open`, how
   * open they are (the embedded model: lid to lid over corner to corner from its mesh, both eyes'
   * mean; Rekognition: the probability of EyesOpen); `visible`, how little covers them (the
   * embedded model: the eye region's mean luma over the cheeks'; Rekognition: the probability of
   * no Sunglasses).
   */
  eyes: { open: number; visible: number };
}

export interface Detection {
  /** The image as displayed (after its EXIF orientation), in pixels. */
  width: number;
  height: number;
  /** Largest first. */
  faces: DetectedFace[];
}

/** A passive, single-image anti-spoofing judgement of the image's largest face. */
export interface Liveness {
  /** 0 (a presentation attack: a printed photo, a screen) to 1 (a live person). */
  score: number;
}

/**
 * Two images compared: the similarity of the largest face of each (0 to 1), or which side has no
 * face a template can be made of.
 */
export type Comparison = { similarity: number } | { noFace: 'source' | 'target' };

/** An active challenge's prompts and colours (faces/challenge.ts draws and judges them). */
export type Prompt = 'turnLeft' | 'turnRight' | 'lookUp' | 'blink' | 'openMouth';
export type Colour = 'red' | 'green' | 'blue' | 'yellow' | 'magenta' | 'cyan';

export type Segment =
  | { kind: 'neutral'; from: number; to: number }
  | { kind: 'colour'; from: number; to: number; colour: Colour; rgb: readonly [number, number, number] }
  | { kind: 'prompt'; from: number; to: number; prompt: Prompt };

/** A challenge as the page gets it and the server keeps it. */
export interface ChallengePlan {
  nonce: string;
  issuedAt: string;
  /** The frames must be sent before this. */
  expiresAt: string;
  durationMs: number;
  frameMaxSide: number;
  segments: Segment[];
  /** When each frame is taken, in milliseconds from the camera's first frame, ascending. */
  frames: number[];
}

/** A challenge issued to a Capture Face Image step, kept in its instance's partition until it expires (its nonce by its SHA-256). */
export interface LivenessChallengeRecord {
  tenantId: string;
  instanceId: string;
  activityId: string;
  /** SHA-256 (base64url) of the nonce the page was given. */
  nonceHash: string;
  plan: Omit<ChallengePlan, 'nonce'>;
  /** TTL, epoch seconds: the plan's expiry. */
  expiresAt: number;
  /** When its frames were taken (once). */
  usedAt?: string;
}

export interface LivenessChallengeStore {
  put(record: LivenessChallengeRecord): Promise<void>;
  get(tenantId: string, instanceId: string, nonceHash: string, now: Date): Promise<LivenessChallengeRecord | undefined>;
  /**
   * Takes the challenge's frames, once: marks it used and remembers the frames' SHA-256 hashes
   * (tenant-wide, until `framesExpireAt`, epoch seconds). 'used' when it was taken already (or is
   * gone); else the hashes among `frames` that were remembered before (a replay).
   */
  consume(record: LivenessChallengeRecord, frames: string[], at: string, framesExpireAt: number): Promise<'used' | { seen: string[] }>;
}

/** What the face model measured of one face in a frame. */
export interface FrameFace {
  box: FaceBox;
  confidence: number;
  /** Degrees: yaw above 0 is the end user's head turned to their right, pitch above 0 tilted down. */
  pose: { yaw: number; pitch: number; roll: number };
  /** The eyes' opening: lid to lid over corner to corner, both eyes' mean (about 0.3-0.45 open). */
  eyes: number;
  /** The mouth's opening: inner lip to inner lip over corner to corner (about 0.1 closed). */
  mouth: number;
  /** Similarity (0 to 1) to the still the end user sent with the frames (on the frames described: one in four, and the last). */
  similarity?: number;
}

/** One frame as measured: its faces (largest first) and the mean colour of the face's skin and of the background. */
/** (faces/challenge.ts judges these.) */
export interface FrameAnalysis {
  /** When the page says it took the frame, in milliseconds from the camera's first frame. */
  at: number;
  faces: FrameFace[];
  /** Mean RGB (0-255) of the largest face's cheeks and forehead, and of the picture's side strips. */
  colour?: { face: [number, number, number]; background: [number, number, number] };
}

/** An active challenge's still and frames as measured. */
export interface ChallengeMeasures {
  /** Faces found in the still. */
  stillFaces: number;
  frames: Omit<FrameAnalysis, 'at'>[];
}

/** A watchlist as the engine keeps it (a Rekognition collection on AWS). */
export interface WatchlistRef {
  tenantId: string;
  watchlistId: string;
}

export interface WatchlistHit {
  /** The member's id, as given when its face was added. */
  memberId: string;
  similarity: number;
}

export interface FaceEngine {
  /** Which engine answers: it goes into the checks, beside the thresholds it was judged by. */
  readonly name: 'rekognition' | 'embedded';
  detect(image: FaceImage): Promise<Detection>;
  liveness(image: FaceImage): Promise<Liveness>;
  compare(source: FaceImage, target: FaceImage): Promise<Comparison>;
  /** Makes the watchlist's collection (idempotent). */
  createWatchlist(ref: WatchlistRef): Promise<void>;
  /** Removes the collection and every face template in it (idempotent). */
  deleteWatchlist(ref: WatchlistRef): Promise<void>;
  /** Adds the image's largest face under the member's id; undefined when it has no face. */
  addMember(ref: WatchlistRef, memberId: string, image: FaceImage): Promise<{ faceId: string } | undefined>;
  removeMember(ref: WatchlistRef, faceId: string): Promise<void>;
  /**
   * Measures an active liveness challenge (faces/challenge.ts judges it): the still's faces, and
   * each frame's (pose, eyes, mouth, similarity to the still's face) and colours. The embedded
   * model does it on both engines: Rekognition has no such measurements of single frames.
   */
  measureChallenge(still: FaceImage, frames: FaceImage[], frameMaxSide: number): Promise<ChallengeMeasures>;
  /**
   * A template of the image's one face for later matching: the embedded model's descriptor on
   * both engines (Rekognition keeps its own templates only inside a collection). `faceCount`
   * says how many faces the image has; the template is of the largest.
   */
  template(image: FaceImage): Promise<{ faceCount: number; template?: FaceTemplate }>;
  /** Members whose face is at least `threshold` similar to the image's largest face, best first. */
  search(ref: WatchlistRef, image: FaceImage, threshold: number, maxHits: number): Promise<WatchlistHit[] | { noFace: true }>;
}

/** A face template: the recognition model's descriptor of one face, never its pixels. */
export interface FaceTemplate {
  /** The model that made it, and so the only one that can match against it. */
  model: 'human-faceres';
  vector: number[];
}

/** A tenant's face watchlist: its faces' templates are in the engine (a Rekognition collection), its members here. */
export interface WatchlistRecord {
  tenantId: string;
  /** A UUID, made at creation: what a Watchlist Match step names. */
  id: string;
  name: string;
  description: string;
  memberCount: number;
  createdDtm: string;
  createdBy: string;
}

/** A member: a labelled face. Its image is not kept, only what it was and the engine's template id. */
export interface WatchlistMemberRecord {
  tenantId: string;
  watchlistId: string;
  /** A UUID, made when added; the engine knows the face by it (Rekognition's ExternalImageId). */
  id: string;
  label: string;
  /** The engine's id of the face's template (Rekognition's FaceId). */
  faceId: string;
  image: { format: 'JPEG' | 'PNG'; width: number; height: number; bytes: number; sha256: string };
  createdDtm: string;
  createdBy: string;
}

export interface WatchlistStore {
  /** Adds the watchlist and counts it on the tenant, in one transaction: 'full' when the tenant has `maxWatchlists`. */
  create(record: WatchlistRecord, maxWatchlists: number): Promise<'created' | 'full'>;
  get(tenantId: string, id: string): Promise<WatchlistRecord | undefined>;
  list(tenantId: string): Promise<WatchlistRecord[]>;
  /** Removes the watchlist's members' items (the watchlist stays, so a failed delete can be done again). */
  delete(tenantId: string, id: string): Promise<void>;
  /** Removes the watchlist's item, uncounting it (once: false when it was already gone). */
  deleteRecord(tenantId: string, id: string): Promise<boolean>;
  /**
   * Adds the member and counts it on its watchlist, in one transaction, only while the watchlist
   * exists and has fewer than `maxMembers`: 'full' or 'gone' otherwise.
   */
  addMember(member: WatchlistMemberRecord, maxMembers: number): Promise<'added' | 'full' | 'gone'>;
  getMember(tenantId: string, watchlistId: string, memberId: string): Promise<WatchlistMemberRecord | undefined>;
  listMembers(tenantId: string, watchlistId: string): Promise<WatchlistMemberRecord[]>;
  /** Removes the member and uncounts it; false when it was not there. */
  removeMember(tenantId: string, watchlistId: string, memberId: string): Promise<boolean>;
}

/** An engine's refusal of an image (both engines throw it, so it sits in shared/, below the store layer). */
export { FaceImageRefusedError, imageRefusal, type ImageRefusal } from '../shared/face-engine-image.js';

/** The watchlist's collection is not there (deleted meanwhile). */
export function isMissingCollection(err: unknown): boolean {
  return (err as { name?: unknown } | undefined)?.name === 'ResourceNotFoundException';
}

/** Rekognition Face Liveness's two challenges: head movement with the screen's light, or movement alone (no flashing). */
export type FaceLivenessChallenge = 'FaceMovementAndLightChallenge' | 'FaceMovementChallenge';

/** Short-lived AWS credentials a browser may use for one call: starting the session's stream. */
export interface BrowserCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  /** ISO 8601. */
  expiration: string;
}

/**
 * A Face Liveness session's outcome as the capture step judges it: scored (Rekognition's
 * confidence 0 to 1, with the reference image it took and its audit images), not done yet, or
 * unusable (failed, expired, unknown to Rekognition, or scored without a reference image).
 */
export type FaceLivenessResult =
  | { outcome: 'scored'; confidence: number; reference: Uint8Array; audit: Uint8Array[]; challenge?: string }
  | { outcome: 'pending'; status: 'CREATED' | 'IN_PROGRESS' }
  | { outcome: 'unusable'; reason: 'failed' | 'expired' | 'notFound' | 'noReference' };

/**
 * Amazon Rekognition Face Liveness (AWS only; functions/adapters/face-liveness.ts): a session per
 * check, created by the service, streamed to by the end user's browser with credentials good for
 * that call only, its result read back by the service once the browser says it is done.
 */
/** A Face Liveness session a capture step created, kept in its instance's partition until it can no longer be answered. */
export interface FaceLivenessSessionRecord {
  tenantId: string;
  instanceId: string;
  activityId: string;
  sessionId: string;
  challenge: FaceLivenessChallenge;
  createdAt: string;
  /** TTL, epoch seconds: well past the session's 3 minutes, so that a late answer is told it expired. */
  expiresAt: number;
  /** When its result was taken (once). */
  usedAt?: string;
}

export interface FaceLivenessSessionStore {
  /**
   * Counts one more session for the step, refused (false) when it has had `max` already: each
   * session is a paid check, and each gives the browser credentials.
   */
  reserve(tenantId: string, instanceId: string, activityId: string, max: number, expiresAt: number): Promise<boolean>;
  put(record: FaceLivenessSessionRecord): Promise<void>;
  get(tenantId: string, instanceId: string, sessionId: string, now: Date): Promise<FaceLivenessSessionRecord | undefined>;
  /** Marks its result taken, once: false when it was taken already. */
  use(record: FaceLivenessSessionRecord, at: string): Promise<boolean>;
}

export interface FaceLivenessService {
  createSession(input: { clientToken: string; challenge: FaceLivenessChallenge; auditImages: number }): Promise<{ sessionId: string }>;
  browserCredentials(sessionId: string): Promise<BrowserCredentials>;
  sessionResult(sessionId: string): Promise<FaceLivenessResult>;
}
