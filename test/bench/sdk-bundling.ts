/**
 * The AWS SDK bundled into each function (as deployed) against the same function leaving
 * `@aws-sdk/*` and `@smithy/*` to the Lambda runtime's own copy (as deployed before): bytes, and a
 * cold-start proxy, for a few representative functions. Informational, no budget: it is the figure
 * behind the choice written in docs/aws.md ("Which AWS SDK deploys").
 *
 * Each function is built four ways, all with the deployed settings but for the SDK:
 *  - handler, SDK external: the handler alone; the SDK clients it loads at first use (dynamic
 *    `import()`) are not loaded.
 *  - handler, SDK bundled: the same with the SDK inside; esbuild turns each `import()` of a bundled
 *    module into a wrapper evaluated on first call, so the SDK's bytes are parsed but not run.
 *  - handler + first use, either way: the handler with the SDK packages it loads at first use
 *    imported up front (`export * as` each), so the figure is the import plus what the first
 *    request that reaches AWS pays to load its clients. With the SDK external they come from
 *    node_modules, as on Lambda they come from the runtime's /var/runtime/node_modules.
 *
 * Timed like section 2 (cold-start.ts): a fresh node per run, interleaved rounds, the median of
 * CPU time (user + system) over `node -e 0`, wall-clock beside it.
 *
 * Run alone: `npm run bench:sdk` (BENCH_SDK_RUNS, 11 by default); `npm run bench` runs it too.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { routeList } from '../../functions/routes.js';
import { lambdaBuildOptions, LAMBDA_BUNDLING, SDK_PACKAGES } from '../../lib/bundling.js';
import { measureImportTimes, type ImportTiming } from './cold-start.js';
import { round, section, table } from './stats.js';

/** The functions measured: a status read, a token issue, and the activity function every Task state invokes. */
export const SDK_BENCH_FUNCTIONS: readonly { name: string; what: string; entry: string }[] = [
  { name: 'getProcessInstance', what: 'instance status read', entry: routeEntry('getProcessInstance') },
  { name: 'issueToken', what: 'token issue (DynamoDB + KMS Sign)', entry: routeEntry('issueToken') },
  // lib/constructs/journey-functions.ts deploys it from this entry.
  { name: 'activities', what: 'activity function (every activity type)', entry: 'functions/activities/lambda.ts' },
];

function routeEntry(operationId: string): string {
  const route = routeList.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  return route.handler;
}

/** What the functions left to the runtime before: the SDK packages, beside what they still leave out. */
export const SDK_EXTERNAL = [...new Set([...LAMBDA_BUNDLING.external, ...SDK_PACKAGES])];

const isSdk = (p: string) => SDK_PACKAGES.some((glob) => p.startsWith(glob.replace('*', '')));

type Variant = 'external' | 'bundled' | 'external+first-use' | 'bundled+first-use';
const VARIANTS: readonly Variant[] = ['external', 'bundled', 'external+first-use', 'bundled+first-use'];

export interface SdkBundlingFigure {
  name: string;
  what: string;
  entry: string;
  /** The SDK packages the handler loads at first use (its dynamic imports of `@aws-sdk/*`). */
  firstUse: string[];
  /** Bundle bytes with the SDK external and bundled (the handler alone: the deployed file). */
  bytes: { external: number; bundled: number };
  /** CPU ms over `node -e 0` (median) and wall-clock ms over it, per variant. */
  cpuOverBaselineMs: Partial<Record<Variant, number>>;
  wallOverBaselineMs: Partial<Record<Variant, number>>;
  errors: string[];
}

export interface SdkBundlingFigures {
  runs: number;
  baselineMs: number;
  baselineCpuMs: number;
  functions: SdkBundlingFigure[];
}

function sdkImports(meta: Metafile, kinds: string[]): string[] {
  const out = Object.values(meta.outputs)[0];
  return [...new Set((out?.imports ?? []).filter((i) => i.external && kinds.includes(i.kind) && isSdk(i.path)).map((i) => i.path))].sort();
}

async function buildVariant(root: string, dir: string, fn: { name: string; entry: string }, variant: Variant, firstUse: string[]) {
  const outfile = join(dir, `${fn.name}.${variant.replace('+', '-')}.mjs`);
  const external = variant.startsWith('external') ? SDK_EXTERNAL : [...LAMBDA_BUNDLING.external];
  const entry = resolve(root, fn.entry);
  const source = variant.endsWith('first-use')
    ? { stdin: { contents: [`export * from ${JSON.stringify(entry)};`, ...firstUse.map((p, i) => `export * as __firstUse${i} from ${JSON.stringify(p)};`)].join('\n'), resolveDir: root, sourcefile: `${fn.name}-first-use.mjs`, loader: 'js' as const } }
    : { entryPoints: [entry] };
  const res = await build({ ...lambdaBuildOptions(root, outfile), external, ...source });
  return { outfile, bytes: statSync(outfile).size, metafile: res.metafile };
}

/** Builds the four variants of each function under `<root>/.bench/bundles/sdk/` and times their imports. */
export async function measureSdkBundling(root: string, runs: number): Promise<SdkBundlingFigures> {
  const dir = join(root, '.bench', 'bundles', 'sdk');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const figures: SdkBundlingFigure[] = [];
  const timed: { operationId: string; file: string; externals: string[] }[] = [];
  for (const fn of SDK_BENCH_FUNCTIONS) {
    const errors: string[] = [];
    const external = await buildVariant(root, dir, fn, 'external', []);
    const firstUse = sdkImports(external.metafile, ['dynamic-import']);
    const eager = sdkImports(external.metafile, ['import-statement', 'require-call']);
    if (eager.length) errors.push(`imports the SDK at load, not at first use: ${eager.join(', ')}`);
    const bytes = { external: external.bytes, bundled: 0 };
    for (const variant of VARIANTS) {
      const built = variant === 'external' ? external : await buildVariant(root, dir, fn, variant, firstUse);
      if (variant === 'bundled') {
        bytes.bundled = built.bytes;
        const left = sdkImports(built.metafile, ['import-statement', 'require-call', 'dynamic-import']);
        if (left.length) errors.push(`bundled, still leaves out ${left.join(', ')}`);
      }
      timed.push({ operationId: `${fn.name}|${variant}`, file: built.outfile, externals: [] });
    }
    figures.push({ ...fn, firstUse, bytes, cpuOverBaselineMs: {}, wallOverBaselineMs: {}, errors });
  }
  const timings = measureImportTimes(timed, runs, dir);
  const byKey = new Map<string, ImportTiming>(timings.handlers.map((h) => [h.operationId, h]));
  for (const f of figures) {
    for (const variant of VARIANTS) {
      const t = byKey.get(`${f.name}|${variant}`);
      if (!t || t.error) {
        f.errors.push(`${variant}: ${t?.error ?? 'not timed'}`);
        continue;
      }
      f.cpuOverBaselineMs[variant] = round(t.cpuOverBaselineMs);
      f.wallOverBaselineMs[variant] = round(t.overBaselineMs);
    }
  }
  return { runs, baselineMs: round(timings.baseline.medianMs), baselineCpuMs: round(timings.baseline.cpuMedianMs), functions: figures };
}

export function printSdkBundling(figures: SdkBundlingFigures, log: (text: string) => void): void {
  const kb = (b: number) => round(b / 1024, 1);
  const ms = (f: SdkBundlingFigure, v: Variant) => {
    const cpu = f.cpuOverBaselineMs[v];
    return cpu === undefined ? '-' : `${cpu} (${f.wallOverBaselineMs[v]})`;
  };
  log(
    table([
      ['function', 'what', 'KB, SDK external', 'KB, SDK bundled', 'SDK loaded at first use', 'import ms, external', 'import ms, bundled', 'import + first use ms, external', 'import + first use ms, bundled'],
      ...figures.functions.map((f) => [
        f.name,
        f.what,
        kb(f.bytes.external),
        kb(f.bytes.bundled),
        f.firstUse.map((p) => p.replace('@aws-sdk/', '')).join(', ') || 'none',
        ms(f, 'external'),
        ms(f, 'bundled'),
        ms(f, 'external+first-use'),
        ms(f, 'bundled+first-use'),
      ]),
    ]),
  );
  log(
    `ms: CPU over \`node -e 0\` (${figures.baselineCpuMs} CPU ms; ${figures.baselineMs} ms wall-clock), median of ${figures.runs} fresh processes, ` +
      'wall-clock over it in brackets. "import" is the cold start proper (Lambda\'s INIT); "+ first use" adds loading the SDK clients the ' +
      'first request that reaches AWS needs: external, from node_modules (on Lambda, the runtime\'s copy); bundled, running their code already in the file.',
  );
  for (const f of figures.functions) for (const e of f.errors) log(`ERROR ${f.name}: ${e}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '../../..');
  const runs = Number(process.env.BENCH_SDK_RUNS ?? 11);
  process.stdout.write(`${section(`AWS SDK bundled or the runtime's: bytes and import time (median of ${runs})`)}\n`);
  const figures = await measureSdkBundling(root, runs);
  printSdkBundling(figures, (t) => process.stdout.write(`${t}\n`));
  process.exit(figures.functions.some((f) => f.errors.length) ? 1 : 0);
}
