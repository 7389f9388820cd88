import { createHash, randomUUID } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { checkImage, jpegDecodeLimits } from '../shared/image-check.js';
import { PNG as PngDecoder } from 'pngjs';
import { MAX_FACE_IMAGE_BYTES, MAX_FACE_IMAGE_PIXELS, MIN_FACE_IMAGE_SIDE } from './face-limits.js';
import type { CheckRecord, ImageRecord } from '../process-manager/model.js';
import type { DetectedFace, FaceEngine } from '../faces/model.js';
import { livenessResult, type FaceThresholds } from '../faces/quality.js';

/** Why an image was refused; the page words each in the end user's language. */
export type ImageProblem = 'missing' | 'tooLarge' | 'notAnImage' | 'unreadable' | 'tooSmall';

export interface InspectedImage {
  format: 'JPEG' | 'PNG';
  contentType: 'image/jpeg' | 'image/png';
  extension: 'jpg' | 'png';
  /** As displayed: a JPEG's EXIF orientation that turns it a quarter swaps the stored sides. */
  width: number;
  height: number;
}

/**
 * What an uploaded image is, judged by its bytes alone (its name and the type the browser
 * claimed are ignored): a whole JPEG or PNG (functions/shared/image-check.ts: its structure walked
 * to its end, nothing decoded) within the size limits.
 */
export function inspectFaceImage(given: Uint8Array, maxBytes = MAX_FACE_IMAGE_BYTES, decode = true): InspectedImage | { problem: ImageProblem } {
  if (given.length === 0) return { problem: 'missing' };
  const checked = checkImage(given, { maxBytes, maxPixels: MAX_FACE_IMAGE_PIXELS });
  if ('problem' in checked) return checked;
  const { format: kind, width, height } = checked.header;
  if (Math.min(width, height) < MIN_FACE_IMAGE_SIDE) return { problem: 'tooSmall' };
  // The header alone proves nothing: a 97-byte PNG header may claim 100000 x 100000 pixels with
  // no pixel data behind it. The whole image must decode, to the size its header claims.
  // Without `decode` (an image only the face engine reads: Rekognition on AWS, which refuses what
  // does not decode), the structure is judged alone, and the function needs no memory for the pixels.
  if (decode && !decodesFully(kind, given, checked.header.stored)) return { problem: 'unreadable' };
  return kind === 'JPEG'
    ? { format: 'JPEG', contentType: 'image/jpeg', extension: 'jpg', width, height }
    : { format: 'PNG', contentType: 'image/png', extension: 'png', width, height };
}

/** Whether every pixel decodes (pure-JS decoders, bounded by MAX_FACE_IMAGE_PIXELS) and the result has the header's size. */
function decodesFully(kind: 'JPEG' | 'PNG', bytes: Uint8Array, size: { width: number; height: number }): boolean {
  try {
    const decoded =
      kind === 'JPEG'
        ? jpeg.decode(bytes, { useTArray: true, tolerantDecoding: false, ...jpegDecodeLimits(MAX_FACE_IMAGE_PIXELS) })
        : PngDecoder.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (kind === 'PNG' && !pngHasAllRows(bytes)) return false;
    return decoded.width === size.width && decoded.height === size.height && decoded.data.length >= size.width * size.height * 4;
  } catch {
    return false;
  }
}

/**
 * Whether a PNG's compressed data inflates to every row its header claims. pngjs fills what is
 * missing with zeros (an empty IDAT decodes to a black image of any size), so the rows are
 * counted here: per Adam7 pass when interlaced, each row a filter byte and its pixels.
 */
function pngHasAllRows(bytes: Uint8Array): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const [bitDepth, colorType, , , interlace] = [buf[24]!, buf[25]!, buf[26]!, buf[27]!, buf[28]!];
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  if (!channels) return false;
  const rowBytes = (w: number) => (w === 0 ? 0 : 1 + Math.ceil((w * channels * bitDepth) / 8));
  const passes = interlace
    ? [
        [0, 0, 8, 8],
        [4, 0, 8, 8],
        [0, 4, 4, 8],
        [2, 0, 4, 4],
        [0, 2, 2, 4],
        [1, 0, 2, 2],
        [0, 1, 1, 2],
      ].map(([x0, y0, dx, dy]) => ({ w: Math.ceil((width - x0!) / dx!), h: Math.ceil((height - y0!) / dy!) }))
    : [{ w: width, h: height }];
  const expected = passes.reduce((sum, p) => sum + (p.w > 0 && p.h > 0 ? p.h * rowBytes(p.w) : 0), 0);
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') idat.push(buf.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') break;
    at += 12 + length;
  }
  try {
    return inflateSync(Buffer.concat(idat), { maxOutputLength: expected + 1 }).length >= expected;
  } catch {
    return false;
  }
}

/** The stored record of one capture: where its bytes are and what they are. */
export function faceImageRecord(input: {
  faceKey: string;
  image: InspectedImage;
  bytes: Uint8Array;
  objectKey: (captureId: string) => string;
  now: Date;
  /** An image already named (an external upload's capture key); a new capture gets a new id. */
  captureId?: string;
}): ImageRecord {
  const captureId = input.captureId ?? randomUUID();
  return {
    imageKey: input.faceKey,
    captureId,
    kind: 'FACE',
    format: input.image.format,
    contentType: input.image.contentType,
    width: input.image.width,
    height: input.image.height,
    bytes: input.bytes.length,
    sha256: createHash('sha256').update(input.bytes).digest('hex'),
    objectKey: input.objectKey(captureId),
    capturedAt: input.now.toISOString(),
  };
}

/**
 * The capture's check, from what the face engine saw: the image passed the quality rules before
 * it got here (one face, large, frontal, eyes open and bare, sharp and lit enough), so the result is the liveness
 * judgement: PASS at or above the engine's pass score, FAIL below its fail score, REVIEW between.
 * `moreinfo` holds the measurements and the thresholds they were judged by, as JSON.
 */
export function faceCaptureCheck(input: {
  faceKey: string;
  activityId: string;
  image: ImageRecord;
  engine: FaceEngine['name'];
  thresholds: FaceThresholds;
  face: DetectedFace;
  liveness: number;
  now: Date;
}): CheckRecord {
  const { image, face, thresholds: t } = input;
  const liveness = livenessResult(input.liveness, t);
  const facePixels = Math.round(Math.min(face.box.width * image.width, face.box.height * image.height));
  const pose = `yaw ${face.pose.yaw}°, pitch ${face.pose.pitch}°, roll ${face.pose.roll}°`;
  return {
    checkId: input.faceKey,
    activityId: input.activityId,
    checkType: 'FACE_CAPTURE',
    result: liveness,
    displayName: 'Face image capture',
    description:
      liveness === 'PASS'
        ? `One face was found, usable and judged live (liveness ${input.liveness}).`
        : liveness === 'FAIL'
          ? `One usable face was found, but it was judged a presentation attack such as a printed photo or a screen (liveness ${input.liveness}, below ${t.liveness.fail}).`
          : `One usable face was found; its liveness (${input.liveness}) is between ${t.liveness.fail} and ${t.liveness.pass}, so it needs a person to review it.`,
    moreinfo: JSON.stringify({
      engine: input.engine,
      faceCount: 1,
      face: { box: face.box, pixels: facePixels, confidence: face.confidence, pose: face.pose, quality: face.quality, eyes: face.eyes },
      liveness: { score: input.liveness, result: liveness, pass: t.liveness.pass, fail: t.liveness.fail },
      thresholds: {
        minFacePixels: t.minFacePixels,
        minFaceShare: t.minFaceShare,
        maxYaw: t.maxYaw,
        maxPitch: t.maxPitch,
        maxRoll: t.maxRoll,
        minEyesOpen: t.minEyesOpen,
        minEyesVisible: t.minEyesVisible,
        minSharpness: t.minSharpness,
        brightness: [t.minBrightness, t.maxBrightness],
      },
    }),
    checkedAt: input.now.toISOString(),
    reports: [
      { name: 'format', result: 'PASS', description: `${image.format}, ${image.width}×${image.height} pixels, ${image.bytes} bytes, checked by its content.` },
      { name: 'face', result: 'PASS', description: `Exactly one face, ${facePixels} pixels across (${t.minFacePixels} or more passes).` },
      { name: 'pose', result: 'PASS', description: `${pose}; within ${t.maxYaw}°, ${t.maxPitch}° and ${t.maxRoll}°.` },
      {
        name: 'eyes',
        result: 'PASS',
        description: `Eyes open ${face.eyes.open} (${t.minEyesOpen} or more), uncovered ${face.eyes.visible} (${t.minEyesVisible} or more).`,
      },
      {
        name: 'quality',
        result: 'PASS',
        description: `Sharpness ${face.quality.sharpness} (${t.minSharpness} or more), brightness ${face.quality.brightness} (${t.minBrightness} to ${t.maxBrightness}).`,
      },
      { name: 'liveness', result: liveness, description: `Passive liveness ${input.liveness}: ${t.liveness.pass} or more passes, under ${t.liveness.fail} fails.` },
    ],
  };
}
