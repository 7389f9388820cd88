/**
 * The active liveness challenge on this machine: challenges drawn as the server draws them (a
 * seeded draw, so runs compare), a genuine answer and each attack of test/support/liveness-frames.ts
 * for each, judged as the capture route judges them; attacks stopped and genuine answers passed,
 * by kind, with the reasons. Then, in a fresh process that loads the model as the capture route's
 * Lambda does, the time the server takes per challenge (per 15 frames, and for a whole one) and
 * its peak resident memory. `npm run bench:liveness` runs it alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyseChallenge } from '../../functions/adapters/embedded-face-model.js';
import { drawChallenge, FRAME_MAX_SIDE, judgeChallenge } from '../../functions/faces/challenge.js';
import { attacks, genuine, loadFace, type Sequence } from '../support/liveness-frames.js';
import { round } from './stats.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

export interface LivenessFigures {
  rows: { kind: string; tried: number; asExpected: number; reasons: string }[];
  server?: { msPer15Frames: number; msPerChallenge: number; frames: number; peakRssMb: number; configuredMb: number } | { error: string };
}

/** A small seeded generator, for draws that are the same from run to run. */
function seeded(seed: number) {
  let s = seed >>> 0 || 1;
  return (max: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % max;
  };
}

export async function measureLiveness(challenges = 3, configuredMb = 1024): Promise<LivenessFigures> {
  const faces = [await loadFace('person-a-1.jpg'), await loadFace('eileen-collins.jpg')];
  const tally = new Map<string, { tried: number; asExpected: number; reasons: Map<string, number> }>();
  const note = (kind: string, ok: boolean, reason: string) => {
    const row = tally.get(kind) ?? { tried: 0, asExpected: 0, reasons: new Map() };
    row.tried++;
    if (ok) row.asExpected++;
    row.reasons.set(reason, (row.reasons.get(reason) ?? 0) + 1);
    tally.set(kind, row);
  };
  const random = seeded(31);
  let sample: Sequence | undefined;
  for (let c = 0; c < challenges; c++) {
    const plan = drawChallenge(new Date('2026-11-28T10:00:00Z'), random, `bench-${c}`);
    const person = faces[c % 2]!;
    const other = faces[(c + 1) % 2]!;
    const sequences: [string, Sequence][] = [['genuine', genuine(person, plan, c + 1)], ...Object.entries(attacks({ person, other }, plan))];
    for (const [kind, sequence] of sequences) {
      const measured = await analyseChallenge(sequence.still, sequence.frames.map((f) => f.bytes), FRAME_MAX_SIDE);
      const verdict = judgeChallenge(plan, measured.frames.map((f, i) => ({ ...f, at: sequence.frames[i]!.at })), { replayed: [], nearMiss: 'FAIL', elapsedMs: plan.durationMs });
      const failed = verdict.measurements.filter((m) => m.result !== 'PASS').map((m) => m.name);
      note(kind, kind === 'genuine' ? verdict.result === 'PASS' : verdict.result === 'FAIL', failed.join('+') || 'passed');
      if (kind === 'genuine' && !sample) sample = sequence;
    }
  }
  const rows = [...tally].map(([kind, r]) => ({
    kind: kind === 'genuine' ? 'genuine (passed)' : `${kind} (stopped)`,
    tried: r.tried,
    asExpected: r.asExpected,
    reasons: [...r.reasons].map(([reason, n]) => `${reason} ×${n}`).join(', '),
  }));
  return { rows, server: sample ? serverFigures(sample, configuredMb) : { error: 'no sequence' } };
}

/** The capture route's share of a challenge, in a fresh process with only the model loaded: time and peak RSS. */
function serverFigures(sequence: Sequence, configuredMb: number): LivenessFigures['server'] {
  const dir = mkdtempSync(join(tmpdir(), 'liveness-'));
  try {
    writeFileSync(join(dir, 'still.jpg'), sequence.still);
    sequence.frames.forEach((f, i) => writeFileSync(join(dir, `${String(i).padStart(3, '0')}.jpg`), f.bytes));
    const script = `
      import { analyseChallenge } from './functions/adapters/embedded-face-model.ts';
      import { readdirSync, readFileSync } from 'node:fs';
      const dir = ${JSON.stringify(dir)};
      const still = new Uint8Array(readFileSync(dir + '/still.jpg'));
      const frames = readdirSync(dir).filter((f) => f !== 'still.jpg').sort().map((f) => new Uint8Array(readFileSync(dir + '/' + f)));
      let peak = process.memoryUsage().rss;
      await analyseChallenge(still, frames.slice(0, 2), ${FRAME_MAX_SIDE});
      const runs = [];
      for (let i = 0; i < 3; i++) {
        let t = performance.now();
        await analyseChallenge(still, frames.slice(0, 15), ${FRAME_MAX_SIDE});
        const fifteen = performance.now() - t;
        t = performance.now();
        await analyseChallenge(still, frames, ${FRAME_MAX_SIDE});
        runs.push([fifteen, performance.now() - t]);
        peak = Math.max(peak, process.memoryUsage().rss);
      }
      runs.sort((a, b) => a[0] - b[0]);
      console.log(JSON.stringify({ fifteen: runs[1][0], whole: runs[1][1], frames: frames.length, peak }));
    `;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    const line = out.stdout.trim().split('\n').at(-1) ?? '';
    try {
      const r = JSON.parse(line) as { fifteen: number; whole: number; frames: number; peak: number };
      return { msPer15Frames: round(r.fifteen), msPerChallenge: round(r.whole), frames: r.frames, peakRssMb: round(r.peak / 1024 / 1024), configuredMb };
    } catch {
      return { error: (out.stderr || line || 'no output').slice(0, 300) };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figures = await measureLiveness();
  for (const r of figures.rows) console.log(`${r.kind}: ${r.asExpected}/${r.tried} (${r.reasons})`);
  console.log(JSON.stringify(figures.server));
}
