/**
 * What an image's first bytes say: JPEG or PNG by their signature, and the size and EXIF
 * orientation its header declares (image-size). One reading for the pages' check of an upload,
 * the face model's decoding, and the Rekognition engine's box sizes.
 */
import { JPG } from 'image-size/types/jpg';
import { PNG } from 'image-size/types/png';

export type ImageFormat = 'JPEG' | 'PNG';

const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/** JPEG or PNG by the bytes' signature (whatever a name or a Content-Type claimed), or neither. */
export function imageFormatOf(bytes: Uint8Array): ImageFormat | undefined {
  return startsWith(bytes, JPEG_MAGIC) ? 'JPEG' : startsWith(bytes, PNG_MAGIC) ? 'PNG' : undefined;
}

export interface ImageHeader {
  format: ImageFormat;
  /** As stored, row by row. */
  stored: { width: number; height: number };
  /** As displayed: an EXIF orientation that turns it a quarter swaps the stored sides. */
  width: number;
  height: number;
  /** EXIF orientation, 1 (upright) to 8. */
  orientation: number;
}

/** The header of a JPEG or PNG, or undefined when it is neither or its header does not parse to a positive size. */
export function readImageHeader(given: Uint8Array): ImageHeader | undefined {
  // image-size reads through the underlying buffer, past the end of a view: it gets its own copy.
  const bytes = given.byteOffset === 0 && given.byteLength === given.buffer.byteLength ? given : new Uint8Array(given);
  const format = imageFormatOf(bytes);
  if (!format) return undefined;
  let size: { width: number; height: number; orientation?: number };
  try {
    const parser = format === 'JPEG' ? JPG : PNG;
    if (!parser.validate(bytes)) return undefined;
    size = parser.calculate(bytes);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(size.width) || !Number.isInteger(size.height) || size.width <= 0 || size.height <= 0) return undefined;
  const orientation = size.orientation ?? 1;
  const turned = orientation >= 5 && orientation <= 8;
  return {
    format,
    stored: { width: size.width, height: size.height },
    width: turned ? size.height : size.width,
    height: turned ? size.width : size.height,
    orientation,
  };
}
