/**
 * What the embedded analysis measures on a photo of a document, in pure JavaScript (the same
 * locally and in Lambda, no model, no network): where the document is, how usable the photo is
 * (resolution, sharpness, glare, brightness), and two authenticity signals it can measure: a
 * black-and-white copy (no colour anywhere on the document) and a screen replay (a display's
 * pixel grid, a periodic pattern a few pixels long). Every figure goes into the check with the
 * threshold it was judged by; the thresholds were chosen on the specimen documents
 * (test/support/specimens.ts) and `npm run bench` prints what they detect, miss and raise falsely.
 */
import type { Box, DocumentType, Rgba } from './model.js';

export const QUALITY_ENGINE = 'embedded-analysis';
export const DETECTION_ENGINE = 'embedded-analysis';

/** The checks of the family's authenticity steps; only some have a detector here. */
export type DetectionCheck = 'screenReplay' | 'blackAndWhiteCopy' | 'colorCopy' | 'paperCopy' | 'portraitSubstitution' | 'photoSubstitution';

/** What shape the document is expected to have: width over height, with the slack allowed. */
export interface DocumentShape {
  aspectRatios: readonly number[];
  /** How far (as a fraction) the found box's aspect may be from one of them. */
  tolerance: number;
}

/** ID-1 cards (identity cards, driving licences) are 85.6 × 54 mm; a passport's data page (ID-3) 125 × 88 mm. */
const CARD = 85.6 / 53.98;
const PASSPORT = 125 / 88;

export function expectedShape(type: DocumentType | undefined): DocumentShape {
  if (type === 'PASSPORT') return { aspectRatios: [PASSPORT], tolerance: 0.12 };
  if (type === 'ID_CARD' || type === 'DRIVERS_LICENSE') return { aspectRatios: [CARD, 105 / 74], tolerance: 0.12 };
  return { aspectRatios: [CARD, PASSPORT], tolerance: 0.12 };
}

/** The thresholds every photo is judged by. */
export const QUALITY_THRESHOLDS = {
  /** The document's width in the photo, pixels: below, an MRZ character is under about 12 px wide. */
  minDocumentWidth: 600,
  /** The variance of the Laplacian on the document scaled to 800 px wide: a sharp print measures 150 to 900 on the specimens, a blurred one under 25. */
  minSharpness: 60,
  /** The share of the document burnt out (luma 250 or more, and 25 above its median): a light's reflection hides what is under it. */
  maxGlare: 0.02,
  /** The document's mean luma. */
  minBrightness: 60,
  maxBrightness: 235,
} as const;

/** The raw thresholds of the detectors; a detector's score is 0.5 at its raw threshold (see `normalised`). */
export const DETECTION_THRESHOLDS = {
  /** The 95th percentile of chroma (max - min of R, G, B) on the document: a colour document's portrait and print reach 40 and more, a grey copy stays under 12. */
  blackAndWhiteMaxChroma: 20,
  /** The strongest periodicity of the document's fine detail at 2 to 8 pixels (autocorrelation 0 to 1): a genuine print (its guilloche too) measures about 0.25, a display's grid 0.65 and more. */
  screenPeriodicity: 0.45,
} as const;

/** A raw figure mapped to a 0..1 score that is 0.5 exactly at `threshold` (linear on each side). */
function normalised(raw: number, threshold: number, max: number): number {
  const score = raw <= threshold ? (raw / threshold) * 0.5 : 0.5 + ((raw - threshold) / (max - threshold)) * 0.5;
  return Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000;
}

const luma = (d: Uint8Array, i: number) => 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;

/** The image scaled (box filter) so its width is at most `maxWidth`, as luma. */
function grey(img: Rgba, maxWidth: number): { width: number; height: number; data: Float32Array } {
  const step = Math.max(1, img.width / maxWidth);
  const width = Math.max(1, Math.floor(img.width / step));
  const height = Math.max(1, Math.floor(img.height / step));
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * step);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * step));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * step);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * step));
      let sum = 0;
      let n = 0;
      for (let yy = y0; yy < y1 && yy < img.height; yy++) {
        for (let xx = x0; xx < x1 && xx < img.width; xx++) {
          sum += luma(img.data, (yy * img.width + xx) * 4);
          n++;
        }
      }
      data[y * width + x] = n ? sum / n : 0;
    }
  }
  return { width, height, data };
}

/** The pixels inside a box. */
export function crop(img: Rgba, box: Box): Rgba {
  const left = Math.max(0, Math.round(box.left));
  const top = Math.max(0, Math.round(box.top));
  const width = Math.min(img.width - left, Math.round(box.width));
  const height = Math.min(img.height - top, Math.round(box.height));
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) data.set(img.data.subarray(((top + y) * img.width + left) * 4, ((top + y) * img.width + left + width) * 4), y * width * 4);
  return { width, height, data };
}

export interface Located {
  found: boolean;
  /** The document's box in the photo's pixels (the whole photo when it is the document). */
  box: Box;
  aspectRatio: number;
  /** The box is the whole photo: the photo shows the document edge to edge. */
  wholePhoto: boolean;
}

/**
 * Where the document is: the photo's border is taken for the background (its median colour),
 * the pixels far from it for the document, and the rows and columns mostly of document make its
 * box. A box of the expected shape, at least a fifth of the photo, is the document; a photo whose
 * own shape is the document's, with no box inside it, is taken as the document edge to edge.
 */
export function locateDocument(img: Rgba, shape: DocumentShape): Located {
  const step = Math.max(1, img.width / 400);
  const w = Math.max(1, Math.floor(img.width / step));
  const h = Math.max(1, Math.floor(img.height / step));
  const at = (x: number, y: number) => (Math.min(img.height - 1, Math.floor(y * step)) * img.width + Math.min(img.width - 1, Math.floor(x * step))) * 4;
  const border: number[][] = [];
  const band = Math.max(1, Math.round(Math.min(w, h) * 0.03));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (x < band || y < band || x >= w - band || y >= h - band) {
        const i = at(x, y);
        border.push([img.data[i]!, img.data[i + 1]!, img.data[i + 2]!]);
      }
    }
  }
  const median = [0, 1, 2].map((c) => {
    const values = border.map((p) => p[c]!).sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] ?? 0;
  });
  const rows = new Float32Array(h);
  const cols = new Float32Array(w);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = at(x, y);
      const d = Math.abs(img.data[i]! - median[0]!) + Math.abs(img.data[i + 1]! - median[1]!) + Math.abs(img.data[i + 2]! - median[2]!);
      if (d > 60) {
        rows[y]! += 1 / w;
        cols[x]! += 1 / h;
      }
    }
  }
  const span = (profile: Float32Array) => {
    const peak = Math.max(...profile);
    const cut = peak * 0.5;
    let first = profile.findIndex((v) => v >= cut);
    let last = profile.length - 1 - [...profile].reverse().findIndex((v) => v >= cut);
    if (first < 0) [first, last] = [0, profile.length - 1];
    return { first, last, peak };
  };
  const r = span(rows);
  const c = span(cols);
  const box = { left: c.first * step, top: r.first * step, width: (c.last - c.first + 1) * step, height: (r.last - r.first + 1) * step };
  const fits = (aspect: number) => shape.aspectRatios.some((a) => Math.abs(aspect - a) / a <= shape.tolerance);
  const aspect = box.width / Math.max(1, box.height);
  const big = box.width * box.height >= img.width * img.height * 0.2;
  const strong = r.peak >= 0.3 && c.peak >= 0.3;
  if (strong && big && fits(aspect) && !(box.width >= img.width - 2 * step && box.height >= img.height - 2 * step)) {
    return { found: true, box: round(box), aspectRatio: round3(aspect), wholePhoto: false };
  }
  const photoAspect = img.width / img.height;
  const whole = { left: 0, top: 0, width: img.width, height: img.height };
  return { found: fits(photoAspect), box: whole, aspectRatio: round3(photoAspect), wholePhoto: true };
}

const round = (b: Box): Box => ({ left: Math.round(b.left), top: Math.round(b.top), width: Math.round(b.width), height: Math.round(b.height) });
const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The document cut out of the photo, when it was found there; the photo otherwise. */
export function documentRegion(photo: Rgba, shape: DocumentShape): { pixels: Rgba; box?: Box } {
  const located = locateDocument(photo, shape);
  if (!located.found || located.wholePhoto) return { pixels: photo, ...(located.found ? { box: located.box } : {}) };
  return { pixels: crop(photo, located.box), box: located.box };
}

/** The variance of the Laplacian (4-neighbour) of luma. */
function laplacianVariance(g: { width: number; height: number; data: Float32Array }): number {
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let y = 1; y < g.height - 1; y++) {
    for (let x = 1; x < g.width - 1; x++) {
      const i = y * g.width + x;
      const l = g.data[i - 1]! + g.data[i + 1]! + g.data[i - g.width]! + g.data[i + g.width]! - 4 * g.data[i]!;
      sum += l;
      sq += l * l;
      n++;
    }
  }
  return n ? sq / n - (sum / n) ** 2 : 0;
}

export type QualityProblem = 'documentNotFound' | 'lowResolution' | 'blurry' | 'glare' | 'tooDark' | 'tooBright';

export interface QualityVerdict {
  found: boolean;
  box?: Box;
  figures: { documentWidth: number; aspectRatio: number; sharpness: number; glare: number; brightness: number };
  thresholds: typeof QUALITY_THRESHOLDS & { aspectRatios: readonly number[]; aspectTolerance: number };
  problems: QualityProblem[];
}

/** The photo judged: the document found (and cut out when `cropImage`), then its figures against the thresholds. */
export function judgeQuality(photo: Rgba, shape: DocumentShape, cropImage: boolean): QualityVerdict {
  const located = locateDocument(photo, shape);
  const doc = cropImage && located.found && !located.wholePhoto ? crop(photo, located.box) : photo;
  const sharp = grey(doc, 800);
  // Glare is light burnt out above the page itself: luma at 250 or more and well above the
  // document's median (a white photocopy is bright all over, not glared).
  const pixels = doc.width * doc.height;
  const stride = Math.max(1, Math.floor(pixels / 400_000));
  const histogram = new Uint32Array(256);
  let total = 0;
  for (let p = 0; p < pixels; p += stride) {
    const l = Math.round(luma(doc.data, p * 4));
    histogram[l]!++;
    total += l;
  }
  const sampled = Math.ceil(pixels / stride);
  let seen = 0;
  let median = 0;
  for (let l = 0; l < 256; l++) {
    seen += histogram[l]!;
    if (seen >= sampled / 2) {
      median = l;
      break;
    }
  }
  let burnt = 0;
  for (let l = Math.max(250, median + 25); l < 256; l++) burnt += histogram[l]!;
  const samples = Math.ceil(pixels / stride);
  const figures = {
    documentWidth: located.found ? located.box.width : 0,
    aspectRatio: located.aspectRatio,
    sharpness: Math.round(laplacianVariance(sharp) * 10) / 10,
    glare: Math.round((burnt / samples) * 10_000) / 10_000,
    brightness: Math.round((total / samples) * 10) / 10,
  };
  const t = QUALITY_THRESHOLDS;
  const problems: QualityProblem[] = [];
  if (!located.found) problems.push('documentNotFound');
  else if (figures.documentWidth < t.minDocumentWidth) problems.push('lowResolution');
  if (figures.sharpness < t.minSharpness) problems.push('blurry');
  if (figures.glare > t.maxGlare) problems.push('glare');
  if (figures.brightness < t.minBrightness) problems.push('tooDark');
  else if (figures.brightness > t.maxBrightness) problems.push('tooBright');
  return {
    found: located.found,
    ...(located.found ? { box: located.box } : {}),
    figures,
    thresholds: { ...t, aspectRatios: shape.aspectRatios.map(round3), aspectTolerance: shape.tolerance },
    problems,
  };
}

export interface Detection {
  /** 0 to 1; 0.5 at the detector's raw threshold. */
  score: number;
  raw: number;
  rawThreshold: number;
}

/** A black-and-white copy: the 95th percentile of chroma over the document stays near zero. */
export function blackAndWhiteCopy(doc: Rgba): Detection {
  const histogram = new Uint32Array(256);
  const pixels = doc.width * doc.height;
  const stride = Math.max(1, Math.floor(pixels / 400_000));
  let n = 0;
  for (let p = 0; p < pixels; p += stride) {
    const i = p * 4;
    const r = doc.data[i]!;
    const g = doc.data[i + 1]!;
    const b = doc.data[i + 2]!;
    histogram[Math.max(r, g, b) - Math.min(r, g, b)]!++;
    n++;
  }
  let seen = 0;
  let p95 = 0;
  for (let c = 0; c < 256; c++) {
    seen += histogram[c]!;
    if (seen >= n * 0.95) {
      p95 = c;
      break;
    }
  }
  const t = DETECTION_THRESHOLDS.blackAndWhiteMaxChroma;
  // Less chroma is more likely a copy: the score grows as the percentile falls below the threshold.
  const score = p95 >= 2 * t ? 0 : normalised(2 * t - p95, t, 2 * t);
  return { score, raw: p95, rawThreshold: t };
}

/**
 * A screen replay: a display's pixel grid shows as fine detail that repeats every few pixels.
 * The detail (luma minus its 3 × 3 mean) is averaged along each column (and each row) of
 * 64-pixel bands, and the strongest normalised autocorrelation of those profiles at lags 2 to 8
 * is taken, the median over the bands: print's detail does not repeat, a grid's does.
 */
export function screenReplay(img: Rgba): Detection {
  const g = grey(img, 1600);
  const detail = new Float32Array(g.width * g.height);
  for (let y = 1; y < g.height - 1; y++) {
    for (let x = 1; x < g.width - 1; x++) {
      const i = y * g.width + x;
      let s = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) s += g.data[i + dy * g.width + dx]!;
      detail[i] = g.data[i]! - s / 9;
    }
  }
  const periodicity = (profile: Float32Array) => {
    let mean = 0;
    for (const v of profile) mean += v / profile.length;
    let energy = 0;
    for (const v of profile) energy += (v - mean) ** 2;
    if (energy <= 1e-6) return 0;
    // A repeat at lag L stands above the correlation at every shorter lag (a smooth, blurred
    // profile correlates most at the shortest lags and less after: no repeat).
    const ac = [1];
    for (let lag = 1; lag <= 8; lag++) {
      let c = 0;
      for (let i = lag; i < profile.length; i++) c += (profile[i]! - mean) * (profile[i - lag]! - mean);
      ac.push(c / energy);
    }
    let best = 0;
    for (let lag = 2; lag <= 8; lag++) best = Math.max(best, (ac[lag]! - Math.min(...ac.slice(1, lag))) / 2);
    return best;
  };
  const BAND = 64;
  const scores: number[] = [];
  for (let y0 = 1; y0 + BAND < g.height; y0 += BAND) {
    const profile = new Float32Array(g.width);
    for (let y = y0; y < y0 + BAND; y++) for (let x = 0; x < g.width; x++) profile[x]! += detail[y * g.width + x]! / BAND;
    scores.push(periodicity(profile));
  }
  for (let x0 = 1; x0 + BAND < g.width; x0 += BAND) {
    const profile = new Float32Array(g.height);
    for (let y = 0; y < g.height; y++) for (let x = x0; x < x0 + BAND; x++) profile[y]! += detail[y * g.width + x]! / BAND;
    scores.push(periodicity(profile));
  }
  scores.sort((a, b) => a - b);
  const raw = Math.round((scores[Math.floor(scores.length / 2)] ?? 0) * 1000) / 1000;
  const t = DETECTION_THRESHOLDS.screenPeriodicity;
  return { score: normalised(raw, t, 1), raw, rawThreshold: t };
}

/** The detectors this service has; a check without one can only run NOT_ASSESSED (or be bypassed). */
export const DETECTORS: Partial<Record<DetectionCheck, (image: Rgba) => Detection>> = {
  blackAndWhiteCopy,
  screenReplay,
};
