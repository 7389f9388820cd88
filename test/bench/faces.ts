/**
 * The face engine on this machine: milliseconds per detect, liveness, compare and template with the local
 * engine (the embedded model in its worker thread, as `npm start` runs it), and the memory the
 * AWS functions that run the embedded model need: a fresh Node process that loads it as the
 * capture route's Lambda does (liveness only; Rekognition does the rest on AWS) and analyses
 * camera-sized images, its peak resident memory against the 1024 MB the route is given.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalFaceEngine } from '../../lib/local/face-engine.js';
import { face, portrait, toJpeg } from '../support/face-images.js';
import { round } from './stats.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

export interface FaceFigures {
  operations: { operation: string; runs: number; medianMs: number; p95Ms: number; maxMs: number }[];
  firstAnalysisMs: number;
  memory?: { peakRssMb: number; configuredMb: number; verdict: string } | { error: string };
}

const IMAGES = () => [
  toJpeg(portrait('person-b-crop-bar55.jpg')),
  toJpeg(portrait('person-b-crop-bar55-2.jpg')),
  face('eileen-collins.jpg'),
  face('person-a-1.jpg'),
  face('person-c-crop-qtlogo.jpg'),
];

function stats(operation: string, ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { operation, runs: ms.length, medianMs: round(at(0.5)), p95Ms: round(at(0.95)), maxMs: round(sorted.at(-1)!) };
}

/** A fresh copy: the local engine keeps one analysis per buffer, and each timed call must analyse. */
const fresh = (b: Buffer) => Buffer.from(b);

export async function measureFaces(rounds = 4, configuredMb = 1024): Promise<FaceFigures> {
  const engine = startLocalFaceEngine();
  const images = IMAGES();
  try {
    let started = performance.now();
    await engine.detect({ bytes: fresh(images[0]!) });
    const firstAnalysisMs = round(performance.now() - started);
    const detect: number[] = [];
    const liveness: number[] = [];
    const compare: number[] = [];
    const template: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const [i, image] of images.entries()) {
        started = performance.now();
        await engine.detect({ bytes: fresh(image) });
        detect.push(performance.now() - started);
        started = performance.now();
        await engine.liveness({ bytes: fresh(image) });
        liveness.push(performance.now() - started);
        started = performance.now();
        await engine.compare({ bytes: fresh(image) }, { bytes: fresh(images[(i + 1) % images.length]!) });
        compare.push(performance.now() - started);
        started = performance.now();
        await engine.template({ bytes: fresh(image) });
        template.push(performance.now() - started);
      }
    }
    return {
      operations: [
        stats('detect (one image)', detect),
        stats('liveness (one image)', liveness),
        stats('compare (two images, both analysed)', compare),
        stats('template (one image)', template),
      ],
      firstAnalysisMs,
      memory: lambdaMemory(configuredMb),
    };
  } finally {
    await engine.stop();
  }
}

/** The embedded model as the capture route's Lambda runs it, in a fresh process: its peak RSS. */
function lambdaMemory(configuredMb: number): FaceFigures['memory'] {
  const script = `
    import { analyseImage } from './functions/adapters/embedded-face-model.ts';
    import { readFileSync } from 'node:fs';
    let peak = process.memoryUsage().rss;
    const files = ['eileen-collins.jpg', 'person-a-1.jpg', 'person-a-2.jpg', 'person-b-sunglasses.jpg', 'recapture-phone-person-a.jpg'];
    for (let i = 0; i < 3; i++) for (const f of files) {
      await analyseImage(new Uint8Array(readFileSync('test/fixtures/faces/' + f)), 'liveness');
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    console.log(JSON.stringify({ peak }));
  `;
  const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  const line = out.stdout.trim().split('\n').at(-1) ?? '';
  try {
    const peakRssMb = round(JSON.parse(line).peak / 1024 / 1024);
    return { peakRssMb, configuredMb, verdict: peakRssMb * 1.25 <= configuredMb ? 'OK' : 'TOO LITTLE' };
  } catch {
    return { error: (out.stderr || line || 'no output').slice(0, 300) };
  }
}
