/**
 * The document engines on specimen documents rendered here (test/support/specimens.ts): for each
 * check, what it detects, misses and raises falsely, and for the embedded engine the time per
 * page (its first read, which starts the OCR worker, and warm reads) and the peak memory of the
 * process reading them, beside the activity function's memory (lib/constructs/journey-functions.ts).
 * `npx tsx test/bench/documents.ts` prints the tables.
 *
 * The specimens are synthetic: a screen replay here is a page under a drawn display grid, a
 * black-and-white copy a grey rendering; real recaptures vary more, and these figures say what
 * the detectors do on these, not on the world's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { decodeImage } from '../../functions/documents/pixels.js';
import { blackAndWhiteCopy, documentRegion, expectedShape, judgeQuality, screenReplay } from '../../functions/documents/checks.js';
import { embeddedDocumentEngine } from '../../functions/documents/embedded-engine.js';
import { stopOcr } from '../../functions/documents/ocr.js';
import { mrzLines, PEOPLE, renderSpecimens, type MrzFormat, type SpecimenOptions } from '../support/specimens.js';
import { median, percentile, round, table, verdict, type Verdict } from './stats.js';

/** The activity function's memory where it reads documents (lib/constructs/journey-functions.ts). */
export const ACTIVITY_MEMORY_MB = 1024;

export interface CheckFigures {
  check: string;
  positives: number;
  detected: number;
  missed: number;
  negatives: number;
  falseAlarms: number;
}

export interface DocumentBench {
  checks: CheckFigures[];
  reading: { pages: number; readRight: number; brokenPages: number; brokenCaught: number; firstMs: number; warmMedianMs: number; warmP95Ms: number };
  analysisMs: { frame: string; medianMs: number };
  peakRssMb: number;
  memoryVerdict: Verdict;
}

const PEOPLE_KEYS = ['a', 'b', 'c'] as const;
const FORMATS: MrzFormat[] = ['TD3', 'TD2', 'TD1'];

/** 27 variations of a kind: three people, three formats, three poses (turned, further away). */
function variations(extra: SpecimenOptions): SpecimenOptions[] {
  const out: SpecimenOptions[] = [];
  for (const person of PEOPLE_KEYS) {
    for (const format of FORMATS) {
      out.push({ person, format, ...extra });
      out.push({ person, format, angle: person === 'b' ? -2 : 2, ...extra });
      out.push({ person, format, fill: 0.6, width: 1920, ...extra });
    }
  }
  return out;
}

const type = (o: SpecimenOptions) => ((o.format ?? 'TD3') === 'TD3' ? 'PASSPORT' : 'ID_CARD');

export async function measureDocuments(): Promise<DocumentBench> {
  const kinds = {
    genuine: variations({}),
    blackAndWhite: variations({ variant: 'blackAndWhite' }),
    screen: variations({ variant: 'screen' }),
    blur: variations({ variant: 'blur' }).slice(0, 9),
    glare: variations({ variant: 'glare' }).slice(0, 9),
    broken: variations({}).map((o, i) => ({ ...o, broken: (['documentNumber', 'birthDate', 'expirationDate', 'composite'] as const)[i % 4] })),
  };
  const all = Object.entries(kinds).flatMap(([kind, list]) => list.map((options) => ({ kind, options })));
  const rendered = await renderSpecimens(all.map((s) => s.options));
  const pages = all.map((s, i) => ({ ...s, pixels: decodeImage(rendered[i]!), bytes: rendered[i]! }));

  const flagged = (check: (p: (typeof pages)[number]) => boolean, positive: string[], negative: string[], name: string): CheckFigures => {
    const pos = pages.filter((p) => positive.includes(p.kind));
    const neg = pages.filter((p) => negative.includes(p.kind));
    const detected = pos.filter(check).length;
    return { check: name, positives: pos.length, detected, missed: pos.length - detected, negatives: neg.length, falseAlarms: neg.filter(check).length };
  };
  const region = (p: (typeof pages)[number]) => documentRegion(p.pixels, expectedShape(type(p.options))).pixels;
  const quality = (p: (typeof pages)[number]) => judgeQuality(p.pixels, expectedShape(type(p.options)), true).problems;
  const checks = [
    flagged((p) => blackAndWhiteCopy(region(p)).score >= 0.5, ['blackAndWhite'], ['genuine', 'screen', 'glare', 'blur'], 'Black and White Copy Detection'),
    flagged((p) => screenReplay(p.pixels).score >= 0.5, ['screen'], ['genuine', 'blackAndWhite', 'blur', 'glare'], 'Screen Replay Detection'),
    flagged((p) => quality(p).includes('blurry'), ['blur'], ['genuine', 'blackAndWhite', 'screen'], 'Quality: blurry'),
    flagged((p) => quality(p).includes('glare'), ['glare'], ['genuine', 'blackAndWhite', 'screen'], 'Quality: glare'),
    flagged((p) => quality(p).length > 0, [], ['genuine', 'blackAndWhite', 'screen'], 'Quality: any problem'),
  ];

  // Reading: every genuine page, then the broken ones; the first read starts the worker.
  const times: number[] = [];
  let readRight = 0;
  for (const p of pages.filter((x) => x.kind === 'genuine')) {
    const started = performance.now();
    const reading = await embeddedDocumentEngine.read({ bytes: p.bytes, pixels: region(p) });
    times.push(performance.now() - started);
    const expected = mrzLines(p.options.format ?? 'TD3', PEOPLE[p.options.person ?? 'a']);
    if (reading.mrz?.valid && reading.mrz.lines.join() === expected.join()) readRight++;
  }
  const broken = pages.filter((x) => x.kind === 'broken');
  let brokenCaught = 0;
  for (const p of broken) {
    const reading = await embeddedDocumentEngine.read({ bytes: p.bytes, pixels: region(p) });
    if (reading.mrz && !reading.mrz.valid) brokenCaught++;
  }
  checks.push({ check: 'Document Processor: MRZ read right and valid', positives: times.length, detected: readRight, missed: times.length - readRight, negatives: 0, falseAlarms: 0 });
  checks.push({ check: 'Document Processor: broken check digit failed', positives: broken.length, detected: brokenCaught, missed: broken.length - brokenCaught, negatives: 0, falseAlarms: 0 });
  await stopOcr();

  // The analysis of a camera's full frame: 2560 x 1440.
  const [frame] = await renderSpecimens([{ width: 2560 }]);
  const big = decodeImage(frame!);
  const analysis: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    judgeQuality(big, expectedShape('PASSPORT'), true);
    blackAndWhiteCopy(documentRegion(big, expectedShape('PASSPORT')).pixels);
    screenReplay(big);
    analysis.push(performance.now() - started);
  }
  // The peak memory of one step as the activity function runs it: a fresh process that decodes
  // the frame, judges it and reads its MRZ (this process holds every specimen at once).
  const dir = mkdtempSync(join(tmpdir(), 'arthr-doc-bench-'));
  let peakRssMb = Number.NaN;
  try {
    writeFileSync(join(dir, 'frame.jpg'), frame!);
    const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--one', join(dir, 'frame.jpg')], { encoding: 'utf8', timeout: 120_000 });
    peakRssMb = Number(/peakRssMb=(\d+)/.exec(child.stdout)?.[1] ?? Number.NaN);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    checks,
    reading: {
      pages: times.length,
      readRight,
      brokenPages: broken.length,
      brokenCaught,
      firstMs: round(times[0] ?? Number.NaN),
      warmMedianMs: round(median(times.slice(1))),
      warmP95Ms: round(percentile(times.slice(1), 95)),
    },
    analysisMs: { frame: '2560 x 1440', medianMs: round(median(analysis)) },
    peakRssMb,
    // Lambda's memory with a quarter of headroom over the peak, as the face model's is judged.
    memoryVerdict: verdict(peakRssMb * 1.25, ACTIVITY_MEMORY_MB),
  };
}

export function printDocuments(b: DocumentBench, log: (line: string) => void): void {
  log(table([['check', 'positives', 'detected', 'missed', 'negatives', 'false alarms'], ...b.checks.map((c) => [c.check, c.positives, c.detected, c.missed, c.negatives, c.falseAlarms])]));
  log(
    `Embedded MRZ reading: ${b.reading.readRight}/${b.reading.pages} genuine pages read right; ${b.reading.brokenCaught}/${b.reading.brokenPages} broken check digits failed. ` +
      `First read ${b.reading.firstMs} ms (starts the OCR worker), then ${b.reading.warmMedianMs} ms a page (p95 ${b.reading.warmP95Ms} ms).`,
  );
  log(`Analysis of a ${b.analysisMs.frame} frame (quality, black-and-white, screen replay): ${b.analysisMs.medianMs} ms.`);
  log(`Peak RSS of one step on a 2560 x 1440 frame (decode, quality, detections, MRZ read) in a fresh process: ${b.peakRssMb} MB; the activity function has ${ACTIVITY_MEMORY_MB} MB (${b.memoryVerdict}: needs x1.25 headroom).`);
}

/** One step's work on one frame, in this fresh process: its peak RSS. */
async function oneFrame(file: string): Promise<void> {
  const bytes = readFileSync(file);
  const photo = decodeImage(bytes);
  const shape = expectedShape('PASSPORT');
  judgeQuality(photo, shape, true);
  const doc = documentRegion(photo, shape).pixels;
  blackAndWhiteCopy(doc);
  screenReplay(photo);
  await embeddedDocumentEngine.read({ bytes, pixels: doc });
  await stopOcr();
  console.log(`peakRssMb=${Math.round(process.resourceUsage().maxRSS / 1024)}`);
}

if (process.argv[1] === import.meta.filename) {
  if (process.argv[2] === '--one') await oneFrame(process.argv[3]!);
  else printDocuments(await measureDocuments(), console.log);
}
