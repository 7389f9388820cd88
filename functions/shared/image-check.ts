/**
 * The one judgement of an image before anything decodes its pixels (the pages' check of a
 * capture, the watchlist routes, External Source Face Match v1, both face engines): a JPEG or PNG
 * by its signature, its header's size within a pixel cap, and its structure whole, walked segment
 * by segment or chunk by chunk without decoding or inflating anything.
 *
 * Why before the decode: a decoder allocates what the header claims before it reads the data
 * behind it, so a 40-byte header claiming 40 MP costs hundreds of MB and seconds before it fails;
 * and pure-JS decoders fail late and differently on a file cut short (jpeg-js, pngjs). What this
 * passes can still fail to decode (corrupt entropy data, a bad CRC): the engines turn that into the
 * same refusal (functions/faces/model.ts, FaceImageRefusedError).
 */
import { imageFormatOf, readImageHeader, type ImageHeader } from './image-header.js';

export type ImageCheckProblem = 'notAnImage' | 'unreadable' | 'tooLarge';

export interface ImageLimits {
  maxBytes: number;
  /** Width × height as the header stores them. */
  maxPixels: number;
}

/**
 * The most chunks a PNG may have. A PNG is IHDR, a few ancillary chunks and its IDATs, which
 * encoders write 8-64 KiB each (a 5 MiB PNG: 640 at most) or, the worst of them, one a row (a
 * 16 MP 4:3 image has 3,464 rows). Each chunk is a step of the decoder's state machine; 100,000
 * empty ones are an attack, not an image.
 */
export const MAX_PNG_CHUNKS = 4096;

/**
 * The most scans (SOS segments) a JPEG may have. A baseline JPEG has one, a progressive one about
 * ten (libjpeg's default script), mozjpeg's up to about twenty; every scan makes a progressive
 * decoder walk every block of the image again, so scans are the CPU bomb of the format (libjpeg-
 * turbo limits them for the same reason).
 */
export const MAX_JPEG_SCANS = 64;

/**
 * The image's header when it is a whole JPEG or PNG within the limits; otherwise why not:
 * `notAnImage` (neither signature), `tooLarge` (bytes or pixels over the limits), `unreadable`
 * (a header that does not parse, a structure cut short or out of bounds).
 */
export function checkImage(bytes: Uint8Array, limits: ImageLimits): { header: ImageHeader } | { problem: ImageCheckProblem } {
  if (bytes.length > limits.maxBytes) return { problem: 'tooLarge' };
  const format = imageFormatOf(bytes);
  if (!format) return { problem: 'notAnImage' };
  const header = readImageHeader(bytes);
  if (!header) return { problem: 'unreadable' };
  if (header.stored.width * header.stored.height > limits.maxPixels) return { problem: 'tooLarge' };
  const whole = format === 'JPEG' ? jpegIsWhole(bytes) : pngIsWhole(bytes);
  return whole ? { header } : { problem: 'unreadable' };
}

/**
 * Bytes a JPEG decode may take (jpeg-js's own accounting, its `maxMemoryUsageInMB`), for an image
 * of `maxPixels` in three components: jpeg-js keeps every block's 64 coefficients as 32-bit
 * integers (4 bytes a sample, 3 samples a pixel at worst: 4:4:4), then each component's samples
 * (3 bytes a pixel), their colour conversion (3) and the RGBA result (4): 22 bytes a pixel, and
 * room for the file's own tables. (A four-component CMYK JPEG needs 28: over about 12.5 MP it
 * is refused as too large.)
 */
export function jpegDecodeLimits(maxPixels: number): { maxResolutionInMP: number; maxMemoryUsageInMB: number } {
  return { maxResolutionInMP: maxPixels / 1e6, maxMemoryUsageInMB: Math.ceil((maxPixels * 22) / 2 ** 20) + 16 };
}

const isSof = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** Huffman-coded baseline, extended and progressive frames: what jpeg-js (and Rekognition) decode. */
const DECODABLE_SOF = new Set([0xc0, 0xc1, 0xc2]);

/**
 * Whether a JPEG's segments run, each within the bytes, from SOI through one frame header and at
 * least one scan to EOI (what follows EOI is not read: cameras append thumbnails and trailers).
 * Entropy-coded data is skipped to its next marker (0xFF followed by neither 0x00, a restart
 * marker nor a fill byte). One pass over the bytes.
 */
function jpegIsWhole(b: Uint8Array): boolean {
  let frames = 0;
  let scans = 0;
  let at = 2;
  for (;;) {
    // Bytes between segments are skipped as decoders do; running out before EOI is a file cut short.
    while (at < b.length && b[at] !== 0xff) at++;
    while (at + 1 < b.length && b[at + 1] === 0xff) at++;
    if (at + 1 >= b.length) return false;
    const marker = b[at + 1]!;
    at += 2;
    if (marker === 0xd9) return frames === 1 && scans > 0;
    if (marker === 0xd8) return false;
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue;
    if (at + 2 > b.length) return false;
    const length = (b[at]! << 8) | b[at + 1]!;
    if (length < 2 || at + length > b.length) return false;
    if (isSof(marker)) {
      frames++;
      if (frames > 1 || !DECODABLE_SOF.has(marker)) return false;
    }
    at += length;
    if (marker === 0xda) {
      scans++;
      if (frames !== 1 || scans > MAX_JPEG_SCANS) return false;
      while (at + 1 < b.length && !(b[at] === 0xff && b[at + 1] !== 0x00 && b[at + 1] !== 0xff && !(b[at + 1]! >= 0xd0 && b[at + 1]! <= 0xd7))) at++;
      if (at + 1 >= b.length) return false;
    }
  }
}

/**
 * Whether a PNG's chunks run, each within the bytes and at most MAX_PNG_CHUNKS of them, from IHDR
 * through at least one IDAT to IEND. CRCs and the compressed data are the decoder's to judge.
 */
function pngIsWhole(b: Uint8Array): boolean {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let chunks = 0;
  let idat = false;
  for (let at = 8; at + 12 <= b.length; ) {
    const length = view.getUint32(at);
    if (length > b.length - at - 12) return false;
    const type = String.fromCharCode(b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!);
    if (!/^[A-Za-z]{4}$/.test(type)) return false;
    if (++chunks > MAX_PNG_CHUNKS) return false;
    if (chunks === 1 && type !== 'IHDR') return false;
    if (type === 'IDAT') idat = true;
    if (type === 'IEND') return idat;
    at += 12 + length;
  }
  return false;
}
