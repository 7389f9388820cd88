/**
 * A document image's pixels, for the reading (functions/documents/mrz.ts) and the analysis
 * (quality, authenticity): a JPEG or PNG judged whole and within bounds before a byte is decoded
 * (functions/shared/image-check.ts), decoded by the pure-JS decoders (the same locally and in
 * Lambda) and turned upright by its EXIF orientation, as a phone's photo is meant to be seen.
 */
import jpeg from 'jpeg-js';
import { PNG as PngDecoder } from 'pngjs';
import { checkImage, jpegDecodeLimits } from '../shared/image-check.js';
import { storedPixel } from '../shared/orientation.js';
import type { Rgba } from './model.js';

/**
 * The largest document image, in bytes: a capture page sends a 2560 × 1440 JPEG (1 to 2 MB);
 * an upload may be a phone's full photo (12 MP, 3 to 8 MB).
 */
export const MAX_DOCUMENT_IMAGE_BYTES = 10 * 1024 * 1024;
/** The largest document image, in pixels by its header (a 12 MP photo with room; more is a bomb). */
export const MAX_DOCUMENT_IMAGE_PIXELS = 16_000_000;

export type DocumentImageProblem = 'tooLarge' | 'notAnImage' | 'unreadable';

/** An image that is not a whole JPEG or PNG within the bounds, or does not decode. */
export class DocumentImageError extends Error {
  override readonly name = 'DocumentImageError';
  constructor(
    readonly problem: DocumentImageProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The pixels of a JPEG or PNG, RGBA and upright; a DocumentImageError when it cannot be decoded. */
export function decodeImage(bytes: Uint8Array): Rgba {
  const checked = checkImage(bytes, { maxBytes: MAX_DOCUMENT_IMAGE_BYTES, maxPixels: MAX_DOCUMENT_IMAGE_PIXELS });
  if ('problem' in checked) {
    const why = { tooLarge: 'over the size limits', notAnImage: 'neither a JPEG nor a PNG', unreadable: 'cut short or malformed' }[checked.problem];
    throw new DocumentImageError(checked.problem, `The document image is ${why}.`);
  }
  let decoded: { width: number; height: number; data: Uint8Array };
  try {
    decoded =
      checked.header.format === 'JPEG'
        ? jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, tolerantDecoding: false, ...jpegDecodeLimits(MAX_DOCUMENT_IMAGE_PIXELS) })
        : PngDecoder.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const bounds = /maxMemoryUsageInMB|maxResolutionInMP/.test(message);
    throw new DocumentImageError(bounds ? 'tooLarge' : 'unreadable', `The document image does not decode: ${message}`);
  }
  const pixels = { width: decoded.width, height: decoded.height, data: new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength) };
  return upright(pixels, checked.header.orientation);
}

/** The pixels turned by an EXIF orientation (1, upright, to 8). */
export function upright(src: Rgba, orientation: number): Rgba {
  if (orientation <= 1 || orientation > 8) return src;
  const { width: w, height: h, data } = src;
  const swap = orientation >= 5;
  const outW = swap ? h : w;
  const outH = swap ? w : h;
  const out = new Uint8Array(outW * outH * 4);
  // One pixel a 32-bit word (a copy when the bytes are not aligned to 4).
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  const view = new Uint32Array(aligned.buffer, aligned.byteOffset, w * h);
  const target = new Uint32Array(out.buffer);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      const [sx, sy] = storedPixel(orientation, x, y, w, h);
      target[y * outW + x] = view[sy * w + sx]!;
    }
  }
  return { width: outW, height: outH, data: out };
}
