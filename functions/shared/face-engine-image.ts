/**
 * What a face engine takes, judged once before the embedded model decodes it or Rekognition is
 * sent it (functions/shared/image-check.ts): at most Rekognition's 5 MB of bytes, at most
 * MAX_FACE_IMAGE_PIXELS by its header, a whole JPEG or PNG. Anything else, and any decode that
 * fails after it, is a FaceImageRefusedError: the one error routes answer 400 FACE_IMAGE_UNUSABLE
 * and steps route as their template failure.
 */
import { checkImage, jpegDecodeLimits } from './image-check.js';
import type { ImageHeader } from './image-header.js';

/** Why an engine refused an image: over its bounds, or not an image it can decode. */
export type ImageRefusal = 'tooLarge' | 'unreadable';

/**
 * An engine's refusal of an image, whichever engine and whatever failed: over its bounds, not a
 * JPEG or PNG, cut short, a decode that threw or did not finish in time (the embedded model), or
 * Rekognition's InvalidImageFormatException and ImageTooLargeException. The client's fault, never
 * a 500: a route answers 400 FACE_IMAGE_UNUSABLE, a step raises its template failure. (Here, below
 * the store layer, because both engines throw it; the face engine port re-exports it.)
 */
export class FaceImageRefusedError extends Error {
  override readonly name = 'FaceImageRefusedError';
  constructor(
    readonly reason: ImageRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** The refusal's reason when `err` is an engine's refusal of the image. */
export function imageRefusal(err: unknown): ImageRefusal | undefined {
  return err instanceof FaceImageRefusedError ? err.reason : undefined;
}

/**
 * The largest image decoded, in pixels by its header, for a capture and for either face engine: a
 * header may claim any size, and a decoder allocates what it claims. 16 MP holds a 12 MP phone
 * photo (4032 × 3024) with room (the model looks at 1024 pixels, and the capture page sends at
 * most 1280). Decoding 16 MP (4:4:4) with jpeg-js takes about 4 s and 350 MB on this 2-core
 * machine (a 39.7 MP one: 5 s and 1.3 GB): more would be a bomb, not a face.
 */
export const MAX_FACE_IMAGE_PIXELS = 16_000_000;

/** Rekognition's limit on an image passed as bytes (the embedded engine holds to it too). */
export const ENGINE_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** jpeg-js's bounds for an image the engine takes: a decode past them throws, early, instead of allocating. */
export const ENGINE_JPEG_LIMITS = jpegDecodeLimits(MAX_FACE_IMAGE_PIXELS);

/** The image's header when a face engine takes it; a FaceImageRefusedError otherwise. */
export function engineImage(bytes: Uint8Array): ImageHeader {
  const checked = checkImage(bytes, { maxBytes: ENGINE_MAX_IMAGE_BYTES, maxPixels: MAX_FACE_IMAGE_PIXELS });
  if ('header' in checked) return checked.header;
  switch (checked.problem) {
    case 'tooLarge':
      throw new FaceImageRefusedError('tooLarge', `The image is over ${ENGINE_MAX_IMAGE_BYTES} bytes or ${MAX_FACE_IMAGE_PIXELS} pixels.`);
    case 'notAnImage':
      throw new FaceImageRefusedError('unreadable', 'The image is neither a JPEG nor a PNG.');
    default:
      throw new FaceImageRefusedError('unreadable', 'The image is cut short or malformed.');
  }
}

/** A decoder's failure as the engine's refusal (jpeg-js says when its bounds were what stopped it). */
export function undecodable(err: unknown): FaceImageRefusedError {
  if (err instanceof FaceImageRefusedError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const bounds = /maxMemoryUsageInMB|maxResolutionInMP/.test(message);
  return new FaceImageRefusedError(bounds ? 'tooLarge' : 'unreadable', `The image does not decode: ${message}`);
}
