/**
 * Images a face engine cannot decode, made from the small fixtures (no large files in the
 * repository): the shapes of an attack run that got 500s and process errors out of the service.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crc32 } from 'node:zlib';

export const JPEG_640 = readFileSync(resolve(import.meta.dirname, '../fixtures/face-640x480.jpg'));
export const PNG_320 = readFileSync(resolve(import.meta.dirname, '../fixtures/face-320x240.png'));

/** The first half of the JPEG: its entropy-coded data stops mid-scan, with no end-of-image marker. */
export const truncatedJpeg = () => JPEG_640.subarray(0, Math.floor(JPEG_640.length / 2));

/** The first half of the PNG: its last chunk cut mid-way, no IEND. */
export const truncatedPng = () => PNG_320.subarray(0, Math.floor(PNG_320.length / 2));

/** The JPEG with its frame header (SOF) claiming `width` × `height`: the bytes behind it are still 640 × 480's. */
export function jpegClaiming(width: number, height: number): Buffer {
  const out = Buffer.from(JPEG_640);
  for (let at = 2; at + 4 <= out.length; ) {
    const marker = out[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      out.writeUInt16BE(height, at + 5);
      out.writeUInt16BE(width, at + 7);
      return out;
    }
    at += 2 + out.readUInt16BE(at + 2);
  }
  throw new Error('the fixture has no frame header');
}

/** A PNG chunk with its CRC. */
export function pngChunk(type: string, data: Buffer = Buffer.alloc(0)): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The PNG with `count` empty private chunks after its IHDR (8 bytes of signature, 25 of IHDR). */
export function pngWithEmptyChunks(count: number): Buffer {
  const empty = pngChunk('prVt');
  return Buffer.concat([PNG_320.subarray(0, 33), Buffer.concat(Array.from({ length: count }, () => empty)), PNG_320.subarray(33)]);
}

/** The PNG, whole and well-formed chunk by chunk, with bytes in the middle of its image data changed (its CRC no longer matches). */
export function pngWithCorruptData(): Buffer {
  const out = Buffer.from(PNG_320);
  const idat = out.indexOf('IDAT', 8, 'latin1');
  const length = out.readUInt32BE(idat - 4);
  out.fill(0x55, idat + 4 + Math.floor(length / 3), idat + 4 + Math.floor(length / 3) + 64);
  return out;
}
