/** Face fixtures (test/fixtures/faces/README.md) and images made from them for the tests. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { decodeRgb, type RgbImage } from '../../functions/adapters/face-image.js';

export const FACES_DIR = resolve(import.meta.dirname, '../fixtures/faces');

export function face(name: string): Buffer {
  return readFileSync(resolve(FACES_DIR, name));
}

export function toJpeg(image: RgbImage, quality = 90): Buffer {
  const rgba = Buffer.alloc(image.width * image.height * 4);
  for (let i = 0, j = 0; i < image.data.length; i += 3, j += 4) {
    rgba[j] = image.data[i]!;
    rgba[j + 1] = image.data[i + 1]!;
    rgba[j + 2] = image.data[i + 2]!;
    rgba[j + 3] = 255;
  }
  return Buffer.from(jpeg.encode({ data: rgba, width: image.width, height: image.height }, quality).data);
}

export function toPng(image: RgbImage): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  for (let i = 0, j = 0; i < image.data.length; i += 3, j += 4) {
    png.data[j] = image.data[i]!;
    png.data[j + 1] = image.data[i + 1]!;
    png.data[j + 2] = image.data[i + 2]!;
    png.data[j + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** Every channel multiplied by `factor` (0.2: a dark room; 3: blown out). */
export function lit(name: string, factor: number): Buffer {
  const image = decodeRgb(face(name));
  const data = image.data.map((v) => Math.min(255, Math.round(v * factor)));
  return toJpeg({ ...image, data });
}

/** A box blur of `radius` pixels (motion or focus blur). */
export function blurred(name: string, radius: number): Buffer {
  const image = decodeRgb(face(name));
  const { width: w, height: h, data } = image;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        let n = 0;
        for (let dy = -radius; dy <= radius; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= h) continue;
          for (let dx = -radius; dx <= radius; dx++) {
            const xx = x + dx;
            if (xx < 0 || xx >= w) continue;
            sum += data[(yy * w + xx) * 3 + c]!;
            n++;
          }
        }
        out[(y * w + x) * 3 + c] = sum / n;
      }
    }
  }
  return toJpeg({ ...image, data: out });
}

/**
 * The fixture scaled to `scale` of its size and placed at (`left`, `top`) (fractions) on a grey
 * canvas of `width` × `height`: a face far from the camera, or a camera frame.
 */
export function placed(
  name: string,
  opts: { width: number; height: number; scale: number; left?: number; top?: number; oval?: { cx: number; cy: number; rx: number; ry: number } },
): RgbImage {
  const src = decodeRgb(face(name));
  // Outside the oval (in the source's pixels) the canvas stays grey.
  const inside = (x: number, y: number) => !opts.oval || ((x - opts.oval.cx) / opts.oval.rx) ** 2 + ((y - opts.oval.cy) / opts.oval.ry) ** 2 <= 1;
  const w = Math.round(src.width * opts.scale);
  const h = Math.round(src.height * opts.scale);
  const x0 = Math.round((opts.left ?? 0.5) * opts.width - w / 2);
  const y0 = Math.round((opts.top ?? 0.5) * opts.height - h / 2);
  const data = new Uint8Array(opts.width * opts.height * 3).fill(118);
  for (let y = 0; y < h; y++) {
    const ty = y0 + y;
    if (ty < 0 || ty >= opts.height) continue;
    const sy = Math.min(src.height - 1, Math.floor(y / opts.scale));
    for (let x = 0; x < w; x++) {
      const tx = x0 + x;
      if (tx < 0 || tx >= opts.width) continue;
      const sx = Math.min(src.width - 1, Math.floor(x / opts.scale));
      if (!inside(sx, sy)) continue;
      for (let c = 0; c < 3; c++) data[(ty * opts.width + tx) * 3 + c] = src.data[(sy * src.width + sx) * 3 + c]!;
    }
  }
  return { width: opts.width, height: opts.height, data };
}

/** Where the face is in the crops of group photos (pixels: left, top, side), as the embedded model boxes it. */
const FACE_BOXES = {
  'person-a-crop-bar55.jpg': [29, 39, 170],
  'person-b-crop-bar55.jpg': [13, 28, 176],
  'person-b-crop-bar55-2.jpg': [15, 29, 187],
} as const;

/**
 * A camera's view of one person: the crop's own face in an oval, everything else grey (the part
 * of a neighbour's face at the crop's edge is gone), on a 640×480 frame. person-b's two shots
 * match each other (about 0.78 with the embedded engine); person-a's does not match them.
 */
export function portrait(name: keyof typeof FACE_BOXES): RgbImage {
  const [left, top, side] = FACE_BOXES[name];
  return placed(name, { width: 640, height: 480, scale: 1.6, oval: { cx: left + side / 2, cy: top + side / 2, rx: side * 0.55, ry: side * 0.7 } });
}
