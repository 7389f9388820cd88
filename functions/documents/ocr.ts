/**
 * tesseract.js for the MRZ: one worker per process (a worker thread running tesseract's
 * WebAssembly), made at first use and kept, with the English LSTM model read from the installed
 * `@tesseract.js-data/eng` package (never fetched: the machine and Lambda reach no CDN), nothing
 * cached on disk, and its characters limited to the MRZ's (A-Z, 0-9 and `<`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Box } from './model.js';

export interface OcrSymbol {
  text: string;
  box: Box;
}

export interface OcrLine {
  text: string;
  box: Box;
  symbols: OcrSymbol[];
  /** Where tesseract found the line's baseline (its ends). */
  baseline?: { x0: number; y0: number; x1: number; y1: number };
}

type Worker = import('tesseract.js').Worker;

let made: Promise<Worker> | undefined;

/** Where the English model is: the data package's best integer model (`eng.traineddata.gz`). */
export function modelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

async function worker(): Promise<Worker> {
  made ??= (async () => {
    const tesseract = await import('tesseract.js');
    const w = await tesseract.createWorker('eng', tesseract.OEM.LSTM_ONLY, { langPath: modelPath(), cacheMethod: 'none', gzip: true });
    await w.setParameters({ tessedit_char_whitelist: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<', tessedit_pageseg_mode: tesseract.PSM.SINGLE_BLOCK });
    return w;
  })().catch((err: unknown) => {
    made = undefined;
    throw err;
  });
  return made;
}

const boxOf = (b: { x0: number; y0: number; x1: number; y1: number }): Box => ({ left: b.x0, top: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0 });

/** The lines tesseract reads in an image (PNG or JPEG bytes), with each character's box. */
export async function recognize(image: Buffer): Promise<OcrLine[]> {
  const w = await worker();
  const { data } = await w.recognize(image, {}, { text: true, blocks: true });
  const lines: OcrLine[] = [];
  for (const block of data.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        lines.push({
          text: line.text.trim(),
          box: boxOf(line.bbox),
          baseline: { x0: line.baseline.x0, y0: line.baseline.y0, x1: line.baseline.x1, y1: line.baseline.y1 },
          symbols: line.words.flatMap((word) => word.symbols.map((s) => ({ text: s.text, box: boxOf(s.bbox) }))),
        });
      }
    }
  }
  return lines;
}

/** Ends the worker (the local runtime's stop, a test's end). */
export async function stopOcr(): Promise<void> {
  const w = made;
  made = undefined;
  if (w) await (await w).terminate();
}
