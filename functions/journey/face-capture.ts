import { createHash, randomUUID } from 'node:crypto';
import { JPG } from 'image-size/types/jpg';
import { PNG } from 'image-size/types/png';
import { GOOD_FACE_IMAGE_SIDE, MAX_FACE_IMAGE_BYTES, MIN_FACE_IMAGE_SIDE } from './face-limits.js';
import type { CheckRecord, ImageRecord } from '../process-manager/model.js';

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

const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/**
 * What an uploaded image is, judged by its bytes alone (its name and the type the browser
 * claimed are ignored): a JPEG or PNG whose header parses, within the size limits.
 */
export function inspectFaceImage(given: Uint8Array): InspectedImage | { problem: ImageProblem } {
  // image-size reads through the underlying buffer, past the end of a view: it gets its own copy.
  const bytes = given.byteOffset === 0 && given.byteLength === given.buffer.byteLength ? given : new Uint8Array(given);
  if (bytes.length === 0) return { problem: 'missing' };
  if (bytes.length > MAX_FACE_IMAGE_BYTES) return { problem: 'tooLarge' };
  const kind = startsWith(bytes, JPEG_MAGIC) ? 'JPEG' : startsWith(bytes, PNG_MAGIC) ? 'PNG' : undefined;
  if (!kind) return { problem: 'notAnImage' };
  let size: { width: number; height: number; orientation?: number };
  try {
    const parser = kind === 'JPEG' ? JPG : PNG;
    if (!parser.validate(bytes)) return { problem: 'unreadable' };
    size = parser.calculate(bytes);
  } catch {
    return { problem: 'unreadable' };
  }
  if (!Number.isInteger(size.width) || !Number.isInteger(size.height) || size.width <= 0 || size.height <= 0) {
    return { problem: 'unreadable' };
  }
  const turned = size.orientation !== undefined && size.orientation >= 5 && size.orientation <= 8;
  const width = turned ? size.height : size.width;
  const height = turned ? size.width : size.height;
  if (Math.min(width, height) < MIN_FACE_IMAGE_SIDE) return { problem: 'tooSmall' };
  return kind === 'JPEG'
    ? { format: 'JPEG', contentType: 'image/jpeg', extension: 'jpg', width, height }
    : { format: 'PNG', contentType: 'image/png', extension: 'png', width, height };
}

/** The stored record of one capture: where its bytes are and what they are. */
export function faceImageRecord(input: {
  faceKey: string;
  image: InspectedImage;
  bytes: Uint8Array;
  objectKey: (captureId: string) => string;
  now: Date;
}): ImageRecord {
  const captureId = randomUUID();
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
 * The capture's check. It judges what can be judged from the image itself, honestly named:
 * a usable format and resolution. It does not detect a face or liveness (no model runs here);
 * face matching is a separate activity. PASS from GOOD_FACE_IMAGE_SIDE on the shorter side,
 * REVIEW below it (images below MIN_FACE_IMAGE_SIDE are refused before any check).
 */
export function faceCaptureCheck(faceKey: string, activityId: string, image: ImageRecord, now: Date): CheckRecord {
  const shorter = Math.min(image.width, image.height);
  const resolution = shorter >= GOOD_FACE_IMAGE_SIDE ? 'PASS' : 'REVIEW';
  return {
    checkId: faceKey,
    activityId,
    checkType: 'FACE_CAPTURE',
    result: resolution,
    displayName: 'Face image capture',
    description:
      resolution === 'PASS'
        ? `A ${image.format} image of ${image.width}×${image.height} pixels was captured.`
        : `A ${image.format} image of ${image.width}×${image.height} pixels was captured; its shorter side is under ${GOOD_FACE_IMAGE_SIDE} pixels, so it needs a person to review it.`,
    checkedAt: now.toISOString(),
    reports: [
      { name: 'format', result: 'PASS', description: `${image.format}, ${image.bytes} bytes, checked by its content.` },
      {
        name: 'resolution',
        result: resolution,
        description: `${image.width}×${image.height} pixels; ${GOOD_FACE_IMAGE_SIDE} or more on the shorter side passes.`,
      },
    ],
  };
}
