/**
 * The MRZ of a passport or identity card (ICAO 9303 TD1, TD2, TD3): located, read and judged by
 * its check digits. The `mrz` package parses and checks the lines (with its autocorrection of
 * letters and digits where a field takes only one kind); tesseract.js reads the characters.
 *
 * tesseract's English model reads OCR-B's letters and digits well but takes its filler `<` for
 * K, L or C, and runs of fillers for any number of them. The MRZ is printed at a fixed pitch, so
 * the line is cut into its characters (the glyphs, one connected shape each), their count must be
 * the format's (30, 36 or 44), and a chevron is told by its shape: its left end is a point at mid
 * height, its right end two strokes, top and bottom, with nothing between. Every other character
 * is the one tesseract read over that glyph.
 */
import { parse } from 'mrz';
import { PNG } from 'pngjs';
import type { Box, MrzReading, Rgba } from './model.js';
import { recognize, type OcrLine } from './ocr.js';

const LENGTHS: Record<number, readonly number[]> = { 30: [3], 36: [2], 44: [2] };

/** The lines judged: the format, the fields, and each check digit by the field it guards. */
export function judgeMrzLines(lines: readonly string[], box: Box = { left: 0, top: 0, width: 0, height: 0 }): MrzReading | undefined {
  let clean = lines.map((l) => l.replace(/\s+/g, '').toUpperCase());
  if (clean.length < 2 || clean.some((l) => !/^[A-Z0-9<]+$/.test(l))) return undefined;
  const n = clean[0]!.length;
  if (!LENGTHS[n]?.includes(clean.length) || clean.some((l) => l.length !== n)) return undefined;
  let result: ReturnType<typeof parse>;
  try {
    result = parse(clean, { autocorrect: true });
  } catch {
    return undefined;
  }
  if (result.format !== 'TD1' && result.format !== 'TD2' && result.format !== 'TD3') return undefined;
  // The lines as the parser corrected them (a 0 read where a state code wants the letter O).
  const corrected = clean.map((l) => [...l]);
  for (const d of result.details) for (const c of d.autocorrect ?? []) corrected[c.line]![c.column] = c.corrected;
  clean = corrected.map((l) => l.join(''));
  const checkDigits = result.details
    .filter((d) => typeof d.field === 'string' && d.field.endsWith('CheckDigit'))
    .map((d) => ({ field: (d.field as string).replace(/CheckDigit$/, ''), valid: d.valid }));
  // A state code the parser does not know (ICAO's own specimen state UTO among them) is no check
  // digit: the reading stays valid, and the code is kept as read.
  const structural = result.details.filter((d) => !d.valid && !(typeof d.field === 'string' && (d.field.endsWith('CheckDigit') || d.field === 'issuingState' || d.field === 'nationality')));
  const raw = (field: string) => {
    const d = result.details.find((x) => x.field === field);
    if (!d) return undefined;
    const text = clean[d.line]!.slice(d.start, d.end).replace(/<+$/g, '').replace(/</g, ' ').trim();
    return text === '' ? undefined : text;
  };
  const f = result.fields as Record<string, string | null>;
  const value = (field: string) => f[field] ?? raw(field) ?? undefined;
  const fields = Object.fromEntries(
    Object.entries({
      documentCode: value('documentCode'),
      issuingState: value('issuingState'),
      lastName: value('lastName'),
      firstName: value('firstName'),
      documentNumber: value('documentNumber'),
      nationality: value('nationality'),
      birthDate: value('birthDate'),
      sex: value('sex'),
      expirationDate: value('expirationDate'),
      optional1: value('personalNumber') ?? value('optional1'),
      optional2: value('optional2'),
    }).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return {
    format: result.format,
    lines: clean,
    valid: structural.length === 0 && checkDigits.length > 0 && checkDigits.every((d) => d.valid),
    fields,
    checkDigits,
    box,
  };
}

/** Luma of the pixels, one byte each. */
function lumaOf(img: Rgba): Uint8Array {
  const out = new Uint8Array(img.width * img.height);
  for (let p = 0, i = 0; p < out.length; p++, i += 4) out[p] = (img.data[i]! * 299 + img.data[i + 1]! * 587 + img.data[i + 2]! * 114) / 1000;
  return out;
}

/** Otsu's threshold of a luma histogram. */
function otsu(values: Uint8Array): number {
  const hist = new Float64Array(256);
  for (const v of values) hist[v]!++;
  const total = values.length;
  let sumAll = 0;
  for (let i = 0; i < 256; i++) sumAll += i * hist[i]!;
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!;
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t]!;
    const between = wB * wF * (sumB / wB - (sumAll - sumB) / wF) ** 2;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  return threshold;
}

interface Glyph {
  left: number;
  right: number;
  top: number;
  bottom: number;
  area: number;
  ink: [number, number][];
}

/** The dark connected shapes of a line's box (8-connected), left to right, noise dropped. */
function glyphs(lum: Uint8Array, width: number, box: Box): Glyph[] {
  const x0 = Math.max(0, box.left);
  const y0 = Math.max(0, box.top);
  const w = Math.min(width - x0, box.width);
  const h = Math.min(lum.length / width - y0, box.height);
  const region = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) region[y * w + x] = lum[(y0 + y) * width + x0 + x]!;
  const t = otsu(region);
  const seen = new Uint8Array(w * h);
  const out: Glyph[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (seen[start] || region[start]! > t) continue;
    const g: Glyph = { left: w, right: 0, top: h, bottom: 0, area: 0, ink: [] };
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % w;
      const y = (p - x) / w;
      g.area++;
      g.ink.push([x, y]);
      if (x < g.left) g.left = x;
      if (x > g.right) g.right = x;
      if (y < g.top) g.top = y;
      if (y > g.bottom) g.bottom = y;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const q = ny * w + nx;
          if (!seen[q] && region[q]! <= t) {
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
    }
    out.push(g);
  }
  const heights = out.map((g) => g.bottom - g.top + 1).sort((a, b) => a - b);
  const tall = heights[Math.floor(heights.length * 0.75)] ?? 0;
  // Specks and the shapes of neighbouring lines cut by the box are no characters.
  const kept = out.filter((g) => g.bottom - g.top + 1 >= tall * 0.45 && g.area >= 6);
  return kept
    .sort((a, b) => a.left - b.left)
    .map((g) => ({ ...g, left: g.left + x0, right: g.right + x0, top: g.top + y0, bottom: g.bottom + y0, ink: g.ink.map(([x, y]) => [x + x0, y + y0] as [number, number]) }));
}

/**
 * Whether a glyph is OCR-B's chevron `<`: its leftmost quarter's ink spans little of its height
 * (a point), and its rightmost quarter has ink in the top and bottom thirds but none in the middle.
 */
function isChevron(g: Glyph, capHeight: number): boolean {
  const w = g.right - g.left + 1;
  const h = g.bottom - g.top + 1;
  if (h > capHeight * 0.95 || w < 3) return false;
  const leftEnd = g.left + w / 4;
  const rightStart = g.right - w / 4;
  let lTop = Infinity;
  let lBottom = -Infinity;
  const right = [0, 0, 0];
  for (const [x, y] of g.ink) {
    if (x <= leftEnd) {
      lTop = Math.min(lTop, y);
      lBottom = Math.max(lBottom, y);
    }
    if (x >= rightStart) right[Math.min(2, Math.floor(((y - g.top) / h) * 3))]!++;
  }
  const leftSpan = (lBottom - lTop + 1) / h;
  return leftSpan < 0.45 && right[0]! > 0 && right[2]! > 0 && right[1]! <= Math.max(1, (right[0]! + right[2]!) * 0.08);
}

/** A crop of the luma as a PNG, for tesseract. */
function pngOf(lum: Uint8Array, width: number, box: Box): Buffer {
  const png = new PNG({ width: box.width, height: box.height, colorType: 0, inputColorType: 0, inputHasAlpha: false });
  const data = Buffer.alloc(box.width * box.height);
  for (let y = 0; y < box.height; y++) data.set(lum.subarray((box.top + y) * width + box.left, (box.top + y) * width + box.left + box.width), y * box.width);
  png.data = data;
  return PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false, deflateLevel: 1 });
}

/** The line's characters: one per glyph, a chevron by its shape, the others as tesseract read them over it. */
function lineText(line: OcrLine, lum: Uint8Array, width: number, offset: { left: number; top: number }): string | undefined {
  const pad = Math.round((line.box.height || 10) * 0.15);
  const box = {
    left: Math.max(0, offset.left + line.box.left - pad),
    top: Math.max(0, offset.top + line.box.top - pad),
    width: line.box.width + 2 * pad,
    height: line.box.height + 2 * pad,
  };
  const found = glyphs(lum, width, box);
  const n = [44, 36, 30].find((len) => found.length === len);
  if (n === undefined) return undefined;
  const heights = found.map((g) => g.bottom - g.top + 1).sort((a, b) => a - b);
  const cap = heights[Math.floor(heights.length * 0.9)]!;
  let text = '';
  for (const g of found) {
    if (isChevron(g, cap)) {
      text += '<';
      continue;
    }
    // The character tesseract read nearest this glyph (its runs of misread fillers shift its
    // boxes, so the nearest centre, not the first box that overlaps).
    const cx = (g.left + g.right) / 2 - offset.left;
    const pitch = (g.right - g.left + 1) * 1.5;
    let nearest: OcrLine['symbols'][number] | undefined;
    for (const s of line.symbols) {
      if (s.text === '<') continue;
      const d = Math.abs(s.box.left + s.box.width / 2 - cx);
      if (d <= pitch && (!nearest || d < Math.abs(nearest.box.left + nearest.box.width / 2 - cx))) nearest = s;
    }
    text += nearest?.text?.[0] ?? '?';
  }
  return text;
}

/**
 * Finds and reads the MRZ in a document image (the document cut out of its photo, or the whole
 * photo): its lowest lines that read as MRZ lines, first in the lower half, else anywhere.
 */
export async function readMrz(pixels: Rgba): Promise<MrzReading | undefined> {
  let lum = lumaOf(pixels);
  let turned = false;
  for (const part of [0.5, 0]) {
    const top = Math.floor(pixels.height * part);
    const region = { left: 0, top, width: pixels.width, height: pixels.height - top };
    const lines = await recognize(pngOf(lum, pixels.width, region));
    const reading = fromLines(lines, lum, pixels.width, region);
    if (reading) return reading;
    // A document turned a little: its lines' baselines say by how much; turned back, read again.
    const angle = turned ? 0 : skew(lines);
    if (Math.abs(angle) > 0.002) {
      lum = rotate(lum, pixels.width, pixels.height, -angle);
      turned = true;
      const again = await recognize(pngOf(lum, pixels.width, region));
      const read = fromLines(again, lum, pixels.width, region);
      if (read) return read;
    }
  }
  return undefined;
}

/** The median slope (radians) of the long lines' baselines. */
function skew(lines: OcrLine[]): number {
  const slopes = lines
    .filter((l) => l.baseline && l.baseline.x1 - l.baseline.x0 > 200)
    .map((l) => Math.atan2(l.baseline!.y1 - l.baseline!.y0, l.baseline!.x1 - l.baseline!.x0))
    .sort((a, b) => a - b);
  return slopes[Math.floor(slopes.length / 2)] ?? 0;
}

/** Luma turned by `angle` radians about its centre (bilinear; outside is white). */
function rotate(lum: Uint8Array, width: number, height: number, angle: number): Uint8Array {
  const out = new Uint8Array(lum.length).fill(255);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const cx = width / 2;
  const cy = height / 2;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sx = cos * (x - cx) + sin * (y - cy) + cx;
      const sy = -sin * (x - cx) + cos * (y - cy) + cy;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= width || y0 + 1 >= height) continue;
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * width + x0;
      out[y * width + x] = (lum[i]! * (1 - fx) + lum[i + 1]! * fx) * (1 - fy) + (lum[i + width]! * (1 - fx) + lum[i + width + 1]! * fx) * fy;
    }
  }
  return out;
}

function fromLines(lines: OcrLine[], lum: Uint8Array, width: number, region: Box): MrzReading | undefined {
  // Candidates: lines long enough to be an MRZ line, bottom first.
  const candidates = lines.filter((l) => l.text.replace(/\s/g, '').length >= 24).sort((a, b) => b.box.top - a.box.top);
  for (const count of [3, 2]) {
    for (let i = 0; i + count <= candidates.length; i++) {
      const group = candidates.slice(i, i + count).reverse();
      const texts = group.map((l) => lineText(l, lum, width, region) ?? l.text.replace(/\s/g, ''));
      const box = {
        left: region.left + Math.min(...group.map((l) => l.box.left)),
        top: region.top + group[0]!.box.top,
        width: Math.max(...group.map((l) => l.box.left + l.box.width)) - Math.min(...group.map((l) => l.box.left)),
        height: group.at(-1)!.box.top + group.at(-1)!.box.height - group[0]!.box.top,
      };
      const reading = judgeMrzLines(texts, box);
      if (reading) return reading;
    }
  }
  return undefined;
}
