import jpeg from 'jpeg-js';
import { storedPixel } from '../shared/orientation.js';
import { PNG as PngDecoder } from 'pngjs';
import { ENGINE_JPEG_LIMITS, engineImage, undecodable } from '../shared/face-engine-image.js';

/** An image's pixels as the face model reads them: RGB, one byte a channel, row by row. */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The largest side the model is given: more only costs time (its detector looks at 256 × 256). */
export const MODEL_MAX_SIDE = 1024;

/**
 * The pixels of a JPEG or PNG, turned upright by its EXIF orientation and scaled down (by
 * averaging) to at most `maxSide` on its longer side. The image is judged whole and within the
 * engine's bounds before a byte is decoded; what is refused there, or fails to decode after, is
 * a FaceImageRefusedError.
 */
export function decodeRgb(bytes: Uint8Array, maxSide = MODEL_MAX_SIDE): RgbImage {
  const header = engineImage(bytes);
  let rgba: { width: number; height: number; data: Uint8Array };
  try {
    rgba =
      header.format === 'JPEG'
        ? jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, ...ENGINE_JPEG_LIMITS })
        : PngDecoder.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    throw undecodable(err);
  }
  const upright = orient({ width: rgba.width, height: rgba.height, data: rgba.data as Uint8Array }, header.orientation);
  return downscale(upright, maxSide);
}

/**
 * A small JPEG of a JPEG or PNG, upright (by its EXIF orientation) and at most `maxSide` on its
 * longer side, at `quality` (1 to 100): what a journey page shows of a capture, inline. The image
 * is judged and decoded as decodeRgb does; one that does not decode is a FaceImageRefusedError.
 */
export function jpegThumbnail(bytes: Uint8Array, maxSide: number, quality: number): { jpeg: Buffer; width: number; height: number } {
  const rgb = decodeRgb(bytes, maxSide);
  const rgba = Buffer.alloc(rgb.width * rgb.height * 4, 255);
  for (let i = 0, j = 0; i < rgb.data.length; i += 3, j += 4) {
    rgba[j] = rgb.data[i]!;
    rgba[j + 1] = rgb.data[i + 1]!;
    rgba[j + 2] = rgb.data[i + 2]!;
  }
  return { jpeg: Buffer.from(jpeg.encode({ data: rgba, width: rgb.width, height: rgb.height }, quality).data), width: rgb.width, height: rgb.height };
}

/** RGBA in, RGB out, turned by an EXIF orientation (1 to 8). */
function orient(src: { width: number; height: number; data: Uint8Array }, orientation: number): RgbImage {
  const { width: w, height: h, data } = src;
  const swap = orientation >= 5 && orientation <= 8;
  const outW = swap ? h : w;
  const outH = swap ? w : h;
  const out = new Uint8Array(outW * outH * 3);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      const [sx, sy] = storedPixel(orientation, x, y, w, h);
      const s = (sy * w + sx) * 4;
      const d = (y * outW + x) * 3;
      out[d] = data[s]!;
      out[d + 1] = data[s + 1]!;
      out[d + 2] = data[s + 2]!;
    }
  }
  return { width: outW, height: outH, data: out };
}

/** Scaled so its longer side is at most `maxSide`, each output pixel the mean of the ones it covers. */
export function downscale(src: RgbImage, maxSide: number): RgbImage {
  const scale = Math.max(src.width, src.height) / maxSide;
  if (scale <= 1) return src;
  const outW = Math.max(1, Math.round(src.width / scale));
  const outH = Math.max(1, Math.round(src.height / scale));
  const out = new Uint8Array(outW * outH * 3);
  for (let y = 0; y < outH; y++) {
    const y0 = Math.floor((y * src.height) / outH);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * src.height) / outH));
    for (let x = 0; x < outW; x++) {
      const x0 = Math.floor((x * src.width) / outW);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * src.width) / outW));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let yy = y0; yy < y1; yy++) {
        for (let xx = x0; xx < x1; xx++) {
          const s = (yy * src.width + xx) * 3;
          r += src.data[s]!;
          g += src.data[s + 1]!;
          b += src.data[s + 2]!;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const d = (y * outW + x) * 3;
      out[d] = r / n;
      out[d + 1] = g / n;
      out[d + 2] = b / n;
    }
  }
  return { width: outW, height: outH, data: out };
}

/**
 * Brightness and sharpness of a region (fractions of the image), 0 to 100 each, on Rekognition's
 * scale in spirit: brightness is the mean luma; sharpness is the variance of the Laplacian of the
 * region scaled to 112 × 112 (so it does not depend on the face's size in pixels), mapped to
 * 0-100 by 100 · (1 − e^(−variance / 300)): sharp faces in the fixtures measure 950-6400 (96-100),
 * the same faces blurred by a box of 1/40 of their width 13-111 (4-31).
 */
export function regionQuality(image: RgbImage, box: { left: number; top: number; width: number; height: number }): { brightness: number; sharpness: number } {
  const x0 = clamp(Math.floor(box.left * image.width), 0, image.width - 1);
  const y0 = clamp(Math.floor(box.top * image.height), 0, image.height - 1);
  const x1 = clamp(Math.ceil((box.left + box.width) * image.width), x0 + 1, image.width);
  const y1 = clamp(Math.ceil((box.top + box.height) * image.height), y0 + 1, image.height);
  const N = 112;
  const luma = new Float64Array(N * N);
  let sum = 0;
  for (let y = 0; y < N; y++) {
    const sy = Math.min(y1 - 1, y0 + Math.floor(((y + 0.5) * (y1 - y0)) / N));
    for (let x = 0; x < N; x++) {
      const sx = Math.min(x1 - 1, x0 + Math.floor(((x + 0.5) * (x1 - x0)) / N));
      const s = (sy * image.width + sx) * 3;
      const l = 0.299 * image.data[s]! + 0.587 * image.data[s + 1]! + 0.114 * image.data[s + 2]!;
      luma[y * N + x] = l;
      sum += l;
    }
  }
  let lapSum = 0;
  let lapSq = 0;
  let n = 0;
  for (let y = 1; y < N - 1; y++) {
    for (let x = 1; x < N - 1; x++) {
      const i = y * N + x;
      const lap = luma[i - N]! + luma[i + N]! + luma[i - 1]! + luma[i + 1]! - 4 * luma[i]!;
      lapSum += lap;
      lapSq += lap * lap;
      n++;
    }
  }
  const variance = lapSq / n - (lapSum / n) ** 2;
  return {
    brightness: round1((sum / (N * N) / 255) * 100),
    sharpness: round1(100 * (1 - Math.exp(-variance / 300))),
  };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const round1 = (v: number) => Math.round(v * 10) / 10;

/** The mean luma (0 to 255) of a rectangle in the image's pixels, clipped to the image (0 when nothing of it is inside). */
export function meanLuma(image: RgbImage, x0: number, y0: number, x1: number, y1: number): number {
  const left = clamp(Math.round(x0), 0, image.width - 1);
  const right = clamp(Math.round(x1), 0, image.width - 1);
  const top = clamp(Math.round(y0), 0, image.height - 1);
  const bottom = clamp(Math.round(y1), 0, image.height - 1);
  let sum = 0;
  let n = 0;
  for (let y = top; y <= bottom; y++) {
    for (let x = left; x <= right; x++) {
      const s = (y * image.width + x) * 3;
      sum += 0.299 * image.data[s]! + 0.587 * image.data[s + 1]! + 0.114 * image.data[s + 2]!;
      n++;
    }
  }
  return n > 0 ? sum / n : 0;
}
