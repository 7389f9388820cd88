/**
 * How a face image is judged, whichever engine looked at it: what makes a capture usable (one
 * face, large, frontal, sharp and lit enough), how live it must score, and how alike two faces
 * must be to match. The thresholds are per engine, side by side (docs/faces.md, "Thresholds"), since the two
 * engines score on scales of their own; each was chosen on the fixtures in test/fixtures/faces.
 */
import type { Detection, DetectedFace } from './model.js';

export interface FaceThresholds {
  /** The shorter side of the face's box, in the image's pixels. */
  minFacePixels: number;
  /** The face's box width as a share of the image's width (a face far from the camera). */
  minFaceShare: number;
  maxYaw: number;
  maxPitch: number;
  maxRoll: number;
  minSharpness: number;
  minBrightness: number;
  maxBrightness: number;
  /** The eyes' `open` and `visible` (DetectedFace.eyes), each on its engine's scale. */
  minEyesOpen: number;
  minEyesVisible: number;
  /** Liveness at or above `pass` passes; below `fail` fails; between, a person reviews it. */
  liveness: { pass: number; fail: number };
  /** Similarity at or above which two faces are taken for the same person. */
  match: number;
  /**
   * The same, for a document's portrait against a live face (Document to Face Matching): a
   * printed portrait, small in the photo of the document, scores lower against a selfie than two
   * selfies do (docs/documents.md, "Document to face").
   */
  documentMatch: number;
  /** Similarity at or above which a watchlist member is a hit. */
  watchlist: number;
}

/** What both engines judge alike: the face's size and pose, and liveness (the embedded model's on both). */
const COMMON = {
  minFacePixels: 96,
  minFaceShare: 0.15,
  maxYaw: 25,
  maxPitch: 25,
  maxRoll: 25,
  minBrightness: 25,
  // Liveness on AWS is the embedded model's score (Rekognition has no single-image liveness).
  liveness: { pass: 0.3, fail: 0.2 },
} as const;

export const THRESHOLDS: Record<'rekognition' | 'embedded', FaceThresholds> = {
  embedded: {
    ...COMMON,
    minSharpness: 35,
    // The mean luma of the face's box: clipped highlights cap it, so an overexposed face
    // measures about 76 (the fixtures' faces measure 37-60, one outdoors 72).
    maxBrightness: 75,
    // Lid to lid over corner to corner: open eyes in the fixtures 0.24-0.43, closed 0.10-0.13.
    minEyesOpen: 0.18,
    // The eyes' luma over the cheeks': bare eyes in the fixtures 0.62-1.0, dark sunglasses 0.27.
    minEyesVisible: 0.45,
    match: 0.5,
    // Measured on the specimen documents (test/support/specimens.ts; docs/documents.md has the
    // table): persons A's and C's portraits score 0.45 to 0.68 against their own photos and 0.24
    // to 0.41 against others'. Person B's (a dim crop) scores 0.42 to 0.56 against others: the
    // embedded model is no verification-grade matcher, which Rekognition on AWS is.
    documentMatch: 0.42,
    watchlist: 0.5,
  },
  rekognition: {
    ...COMMON,
    minSharpness: 20,
    maxBrightness: 90,
    // Probabilities from EyesOpen and Sunglasses: more likely than not.
    minEyesOpen: 0.5,
    minEyesVisible: 0.5,
    match: 0.9,
    documentMatch: 0.9,
    watchlist: 0.9,
  },
};

/** What is wrong with a capture, for the end user to fix; the page words each in their language. */
export type FaceProblem = 'noFace' | 'manyFaces' | 'faceTooSmall' | 'notFrontal' | 'eyesCovered' | 'eyesClosed' | 'blurry' | 'tooDark' | 'tooBright';

export interface QualityVerdict {
  /** Empty when the capture is usable; otherwise the first thing to fix comes first. */
  problems: FaceProblem[];
  /** The face judged (the largest), when there is one. */
  face?: DetectedFace;
  faceCount: number;
}

/** Whether a detection shows exactly one usable face, and if not, what to fix first. */
export function judgeQuality(detection: Detection, t: FaceThresholds): QualityVerdict {
  const [face] = detection.faces;
  const faceCount = detection.faces.length;
  if (!face) return { problems: ['noFace'], faceCount };
  if (faceCount > 1) return { problems: ['manyFaces'], face, faceCount };
  const problems: FaceProblem[] = [];
  const facePixels = Math.min(face.box.width * detection.width, face.box.height * detection.height);
  if (facePixels < t.minFacePixels || face.box.width < t.minFaceShare) problems.push('faceTooSmall');
  if (Math.abs(face.pose.yaw) > t.maxYaw || Math.abs(face.pose.pitch) > t.maxPitch || Math.abs(face.pose.roll) > t.maxRoll) {
    problems.push('notFrontal');
  }
  // Covered eyes (sunglasses, a hand) first: their lids cannot be judged.
  if (face.eyes.visible < t.minEyesVisible) problems.push('eyesCovered');
  else if (face.eyes.open < t.minEyesOpen) problems.push('eyesClosed');
  if (face.quality.brightness < t.minBrightness) problems.push('tooDark');
  else if (face.quality.brightness > t.maxBrightness) problems.push('tooBright');
  if (face.quality.sharpness < t.minSharpness) problems.push('blurry');
  return { problems, face, faceCount };
}

export type CheckResult = 'PASS' | 'FAIL' | 'REVIEW';

/** The liveness score judged against the engine's band. */
export function livenessResult(score: number, t: FaceThresholds): CheckResult {
  if (score >= t.liveness.pass) return 'PASS';
  return score < t.liveness.fail ? 'FAIL' : 'REVIEW';
}
