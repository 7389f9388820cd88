/**
 * `npm run bench`: the performance budgets of the issue, measured.
 *
 *  1. bundle size of every route's Lambda (esbuild with LAMBDA_BUNDLING)    ≤ 250 KB each
 *  2. cold import time of every bundle in a fresh node, over `node -e 0`    ≤ 40 ms each
 *  3. network calls made while importing a bundle                          = 0 each
 *  4. AWS calls per operation, counted on DynamoDB Local                   token issue ≤ 1, key read 1
 *  5. in-process latency of token issue and key read (informational)
 *
 * Prints a table per figure with OK/OVER against its target and writes the same figures to
 * `.bench/results.json`. Exits 0 whatever the figures are; non-zero only if the bench crashed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeList } from '../../functions/routes.js';
import { measureAwsCalls, type AwsCallResults } from './aws-calls.js';
import { BUNDLE_LIMIT_BYTES, bundleRoutes, type BundleResult } from './bundles.js';
import {
  checkNetworkAtImport,
  measureImportTimes,
  probeSelfCheck,
  type ImportTimings,
  type NetworkCheck,
} from './cold-start.js';
import { round, section, table, verdict } from './stats.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const OUT_DIR = join(ROOT, '.bench');
const IMPORT_LIMIT_MS = 40;
const IMPORT_RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 11);
const COUNT_REPS = 20;
const LATENCY_RUNS = 50;

const kb = (bytes: number) => round(bytes / 1024, 1);
const log = (text: string) => process.stdout.write(`${text}\n`);

interface Results {
  startedAt: string;
  machine: { node: string; platform: string; cpus: number; cpuModel: string; loadAverageAtStart: number[] };
  targets: Record<string, unknown>;
  bundles?: (BundleResult & { kb?: number; verdict: string })[];
  importTime?: Omit<ImportTimings, 'handlers'> & { handlers: (ImportTimings['handlers'][number] & { verdict: string })[] };
  network?: { probeSelfCheck: ReturnType<typeof probeSelfCheck>; handlers: (NetworkCheck & { verdict: string })[] };
  awsCalls?: AwsCallResults;
  errors: string[];
  durationMs?: number;
}

function writeResults(results: Results): void {
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
}

async function main(): Promise<number> {
  const t0 = performance.now();
  const results: Results = {
    startedAt: new Date().toISOString(),
    machine: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '',
      loadAverageAtStart: loadavg().map((l) => round(l, 2)),
    },
    targets: {
      bundleBytesMax: BUNDLE_LIMIT_BYTES,
      importOverBaselineMsMax: IMPORT_LIMIT_MS,
      networkCallsAtImport: 0,
      issueTokenDynamoDbCallsMax: 1,
      getApiKeyDynamoDbCalls: 1,
    },
    errors: [],
  };
  log(`arthr bench — node ${process.version}, ${cpus().length} CPU(s), ${routeList.length} routes`);

  try {
    // 1. Bundle sizes --------------------------------------------------------------------------
    const bundles = await bundleRoutes(ROOT, routeList);
    results.bundles = bundles.map((b) => ({ ...b, ...(b.bytes !== undefined ? { kb: kb(b.bytes) } : {}), verdict: verdict(b.bytes, BUNDLE_LIMIT_BYTES) }));
    log(section(`1. Bundle size (esbuild, LAMBDA_BUNDLING; target ≤ ${BUNDLE_LIMIT_BYTES / 1024} KB)`));
    log(
      table([
        ['operation', 'handler', 'KB', 'bytes', 'result', 'largest parts (KB)'],
        ...results.bundles.map((b) => [
          b.operationId,
          b.handler,
          b.kb ?? '-',
          b.bytes ?? '-',
          b.error ? `ERROR ${b.error.split('\n')[0]}` : b.verdict,
          b.largest.map((l) => `${l.name} ${kb(l.bytes)}`).join(', '),
        ]),
      ]),
    );
    const built = bundles.filter((b): b is BundleResult & { file: string } => !!b.file);
    const bundleDir = join(OUT_DIR, 'bundles');

    // 3. Network at import (run before the timings: it is quick and it validates each bundle) ---
    const selfCheck = probeSelfCheck(bundleDir);
    const network = built.map((b) => {
      const check = checkNetworkAtImport(b, bundleDir);
      return { ...check, verdict: check.error && check.count === undefined ? 'ERROR' : verdict(check.count, 0) };
    });
    results.network = { probeSelfCheck: selfCheck, handlers: network };

    // 2. Import time -------------------------------------------------------------------------------
    const timings = measureImportTimes(built, IMPORT_RUNS, bundleDir);
    results.importTime = {
      ...timings,
      handlers: timings.handlers.map((h) => ({ ...h, verdict: h.error ? 'ERROR' : verdict(h.overBaselineMs, IMPORT_LIMIT_MS) })),
    };
    log(section(`2. Import time in a fresh node, over \`node -e 0\` (median of ${IMPORT_RUNS}; target ≤ ${IMPORT_LIMIT_MS} ms)`));
    const spread = (s: number[]) => (s.length ? `${round(Math.min(...s))}–${round(Math.max(...s))}` : '-');
    const load = loadavg()[0] ?? 0;
    log(
      table([
        ['operation', 'median ms', 'over baseline ms', 'range ms', 'result', 'of which its @aws-sdk imports alone, over baseline ms', 'deferred to first use: @aws-sdk dynamic imports alone, ms'],
        ['(baseline: node -e 0)', round(timings.baseline.medianMs), 0, spread(timings.baseline.samplesMs), '', '', ''],
        ['(empty ES module, same way)', round(timings.emptyEsm.medianMs), round(timings.emptyEsm.overBaselineMs), spread(timings.emptyEsm.samplesMs), 'info', '', ''],
        ...results.importTime.handlers.map((h) => [
          h.operationId,
          h.error ? '-' : round(h.medianMs),
          h.error ? '-' : round(h.overBaselineMs),
          spread(h.samplesMs),
          h.error ? `ERROR ${h.error}` : h.verdict,
          h.externalsOnly ? `${round(h.externalsOnly.overBaselineMs)} (${h.externalsOnly.packages.join(', ')})` : 'none imported',
          h.deferredOnly ? `${round(h.deferredOnly.overBaselineMs)} (${h.deferredOnly.packages.map((p) => p.replace('@aws-sdk/', '')).join(', ')})` : '-',
        ]),
      ]),
    );
    log(
      'The DynamoDB and KMS SDKs load at the first request that needs them (dynamic import), so a cold start that ' +
        'reaches the table pays the last column once, after the import.',
    );
    if (load > cpus().length) {
      log(`note: load average ${round(load, 2)} on ${cpus().length} CPU(s) — other work is running; wall-clock figures are inflated and noisy.`);
    }

    log(section('3. Network calls while importing each bundle (target 0)'));
    log(
      `probe self-check: ${selfCheck.ok ? 'OK' : 'FAILED'} — a script using net, net.Socket, tls, https, fetch, dns, ` +
        `dns/promises and UDP was counted ${selfCheck.count} call(s) of kinds ${selfCheck.kinds.join(', ')}`,
    );
    log(
      table([
        ['operation', 'calls', 'exports its handler', 'result', 'calls seen'],
        ...network.map((n) => [
          n.operationId,
          n.count ?? '-',
          n.exportsHandler ? 'yes' : 'NO',
          n.error ? `${n.verdict} ${n.error}` : n.verdict,
          n.calls.map((c) => `${c.kind}(${c.target}) at ${c.stack[0] ?? '?'}`).join('; '),
        ]),
      ]),
    );
    writeResults(results);

    // 4 + 5. AWS calls and latency on DynamoDB Local ----------------------------------------------
    log(section('4. AWS calls per operation (real handlers, in process, DynamoDB Local)'));
    log('starting DynamoDB Local ...');
    const aws = await measureAwsCalls({ reps: COUNT_REPS, latencyRuns: LATENCY_RUNS, warmup: 5 });
    results.awsCalls = aws;
    log(`DynamoDB Local at ${aws.dynamodbLocal.endpoint} (ready in ${aws.dynamodbLocal.startMs} ms)`);
    const fmt = (c: Record<string, number>) =>
      Object.entries(c)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none';
    log(
      table([
        ['operation', 'calls', 'DynamoDB per call (by command)', 'total', 'min–max', 'first call', 'HTTP req/call', 'target', 'result'],
        ...aws.operations.map((o) => [
          o.operation,
          o.invocations,
          fmt(o.perCall.dynamodb),
          o.perCall.dynamodbTotal,
          `${o.perCall.dynamodbTotalMin}–${o.perCall.dynamodbTotalMax}`,
          `${o.firstCall.dynamodbTotal} (${fmt(o.firstCall.dynamodb)})`,
          o.perCall.httpRequests,
          o.operation === 'issueToken' ? `≤ ${o.target.dynamodbPerCallMax}` : `${o.target.dynamodbPerCallMax}`,
          o.verdict,
        ]),
      ]),
    );
    log(
      table([
        ['operation', 'signature operations (KMS Sign on AWS) per call', 'KMS calls made here'],
        ...aws.operations.map((o) => [o.operation, o.perCall.signatures, o.perCall.kmsCallsLocal]),
      ]),
    );
    log(
      'Locally the signing key is a PEM file, so no KMS call is made; on AWS each signature operation above is one\n' +
        'KMS Sign call: a token issue costs its DynamoDB call(s) plus one KMS Sign.',
    );

    log(section('5. In-process latency against DynamoDB Local (informational)'));
    log(
      table([
        ['operation', 'runs', 'median ms', 'p95 ms', 'min ms', 'max ms'],
        ...aws.latency.map((l) => [l.operation, l.runs, l.medianMs, l.p95Ms, l.minMs, l.maxMs]),
      ]),
    );
  } catch (err) {
    results.errors.push((err as Error).stack ?? String(err));
    results.durationMs = Math.round(performance.now() - t0);
    writeResults(results);
    process.stderr.write(`\nBENCH FAILED: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }

  results.durationMs = Math.round(performance.now() - t0);
  writeResults(results);
  const over = [
    ...(results.bundles ?? []).filter((b) => b.verdict !== 'OK').map((b) => `bundle ${b.operationId} ${b.verdict}`),
    ...(results.importTime?.handlers ?? []).filter((h) => h.verdict !== 'OK').map((h) => `import ${h.operationId} ${h.verdict}`),
    ...(results.network?.handlers ?? []).filter((n) => n.verdict !== 'OK').map((n) => `network ${n.operationId} ${n.verdict}`),
    ...(results.awsCalls?.operations ?? []).filter((o) => o.verdict !== 'OK').map((o) => `AWS calls ${o.operation} ${o.verdict}`),
  ];
  log(section('Summary'));
  log(over.length ? `${over.length} figure(s) not within target: ${over.join('; ')}` : 'every figure within its target');
  log(`results: ${join(OUT_DIR, 'results.json')} (${round(results.durationMs / 1000)} s)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`\nBENCH CRASHED: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
