/**
 * The bundle budget of every route, judged: 250 KB (BUNDLE_LIMIT_BYTES) each, but for the few
 * routes listed in ROUTE_BUNDLE_BUDGETS, whose job needs more and which hold a budget of their
 * own. Both `npm run bench` and the fast `npm run bench:bundles` (CI) judge with this module, and
 * a size is exact: any route over its budget fails them.
 */
import type { RouteDef } from '../../functions/http/route.js';
import { LAYER_PACKAGES } from '../../lib/bundling.js';
import { BUNDLE_LIMIT_BYTES, type BundleResult } from './bundles.js';
import { round, table } from './stats.js';

const KB = 1024;
const kb = (bytes: number) => round(bytes / KB, 1);

/**
 * Routes over 250 KB because of what they are for, each with its own budget (KB of 1,024 bytes;
 * the size of 2026-11-27 rounded up to the next 5 KB, so that any growth past that fails) and
 * why. The one place such an exception is written: a route not here is held to 250 KB, and an
 * entry its route no longer needs (under 250 KB) fails the check too, so that it is removed.
 * Raise a budget only with the reason, in the same commit as what made the route grow.
 */
export const ROUTE_BUNDLE_BUDGETS: Readonly<Record<string, { kb: number; why: string }>> = {
  addCloudFunction: {
    kb: 375,
    why:
      'unpacks an uploaded zip: the full @zip.js/zip.js reader with its own inflate (216 KB). Its core reader build would ' +
      'use the runtime\'s DecompressionStream instead (as createUserDataArchive uses the writer build): the way down, not yet judged safe',
  },
  createProcessDefinition: {
    kb: 350,
    why:
      'imports BPMN (bpmn-moddle with the Camunda descriptor) and validates and compiles the definition to ASL (statemachines/): its job. ' +
      'Raised from 340 KB when the stores gained cursor paging (store/ranges.ts, list views): a store is one object, so every route ' +
      'that writes definitions carries their list code too; splitting the stores\' list halves out is the way down',
  },
  submitFaceCapture: {
    kb: 280,
    why: 'decodes the captured JPEG or PNG (jpeg-js and pngjs, about 50 KB) to check the face in it: its job',
  },
  openapi: {
    kb: 280,
    why: 'builds the OpenAPI document from every route\'s zod schemas: the whole route table is its job (it grows with the API)',
  },
  getProcessDefinitionBpmn: {
    kb: 275,
    why: 'writes a definition back as BPMN (bpmn-moddle with the Camunda descriptor): its job',
  },
  submitPasscodeStep: {
    kb: 262,
    why:
      'judges a passcode screen: SRP (tssrp6a, 14 KB) and the data form it shows with its field checks (statemachines/forms.ts, ' +
      'jsep conditions, 20 KB). It crossed 250 KB when the tenant rate limit\'s leases came into every bundle (0.6 KB), and grew 7 KB ' +
      'more with the API key store\'s list views and cursor paging, which the wrapper\'s API key check brings into every route. The way ' +
      'down: stores are single objects (the instance store is 12.8 KB here), so a journey route carries list views and search it ' +
      'never uses; splitting their list halves out frees about 15 KB',
  },
  createUserDataArchive: {
    kb: 267,
    why: 'writes the AES-encrypted zip of the user data (zip.js\'s writer-only build, 100 KB): its job. Raised from 265 KB when the ' +
      'instance store\'s list reads came to merge their shards (store/shards.ts, about 1 KB): it carries the whole instance store',
  },
};

/**
 * The figures before the budgets failed (commit 3173541, 2026-11-27, esbuild 0.28.2): nine
 * routes over 250 KB, the journey page 630 KB, 338 KB of it libphonenumber. Printed beside
 * today's, so the change shows.
 */
export const BUNDLES_BEFORE = {
  commit: '3173541',
  kb: {
    showJourney: 630.4,
    submitPasscodeStep: 610.2,
    submitJourneyStep: 573.2,
    addCloudFunction: 371.1,
    createProcessDefinition: 335.1,
    submitFaceCapture: 294.8,
    openapi: 270.0,
    getProcessDefinitionBpmn: 262.7,
    createUserDataArchive: 262.1,
  } as Readonly<Record<string, number>>,
};

/** A route's budget in bytes: its own, or BUNDLE_LIMIT_BYTES. */
export function bundleBudgetBytes(operationId: string): number {
  const own = Object.hasOwn(ROUTE_BUNDLE_BUDGETS, operationId) ? ROUTE_BUNDLE_BUDGETS[operationId] : undefined;
  return own ? own.kb * KB : BUNDLE_LIMIT_BYTES;
}

export type JudgedBundle = BundleResult & { kb?: number; budgetKb: number; verdict: 'OK' | 'OVER' | 'ERROR' };

export function judgeBundles(bundles: readonly BundleResult[]): JudgedBundle[] {
  return bundles.map((b) => {
    const budget = bundleBudgetBytes(b.operationId);
    const verdict = b.error || b.bytes === undefined ? 'ERROR' : b.bytes <= budget ? 'OK' : 'OVER';
    return { ...b, ...(b.bytes !== undefined ? { kb: kb(b.bytes) } : {}), budgetKb: budget / KB, verdict };
  });
}

/** What each route leaves to a layer, against what it asks the stack for (its `layerPackages`). */
export interface LayerCheck {
  operationId: string;
  imported: string[];
  declared: string[];
  verdict: 'OK' | 'MISMATCH';
}

/**
 * The layer packages each bundle imports (statically or at first use) must be exactly its
 * route's `layerPackages`: one missing is a function that fails on AWS at its first use of the
 * package, one too many a layer for nothing. A package the bundle only finds by resolving its
 * folder at run time (the embedded face model) counts for a route that declares it, without
 * being required of one that does not: the text is in every bundle that holds the local face
 * engine, the watchlist routes' included, which on AWS run Rekognition and never that code.
 */
export function checkLayerPackages(routes: readonly RouteDef[], bundles: readonly BundleResult[]): LayerCheck[] {
  const isLayer = (p: string) => (LAYER_PACKAGES as readonly string[]).includes(p);
  return routes.map((route) => {
    const bundle = bundles.find((b) => b.operationId === route.operationId);
    const declared: string[] = [...(route.layerPackages ?? [])].sort();
    const resolved = (bundle?.resolvedLayerPackages ?? []).filter((p) => declared.includes(p));
    const imported = [...new Set([...(bundle?.externals ?? []), ...(bundle?.deferredExternals ?? []), ...resolved].filter(isLayer))].sort();
    return { operationId: route.operationId, imported, declared, verdict: imported.join() === declared.join() ? 'OK' : 'MISMATCH' };
  });
}

/** The bundle and layer budgets broken, one line each (empty when every one holds). */
export function brokenBundleBudgets(routes: readonly RouteDef[], judged: readonly JudgedBundle[], layers: readonly LayerCheck[]): string[] {
  const broken: string[] = [];
  for (const b of judged) {
    if (b.verdict === 'ERROR') broken.push(`bundle of ${b.operationId}: did not build (${(b.error ?? 'no size').split('\n')[0]})`);
    else if (b.verdict === 'OVER') broken.push(`bundle of ${b.operationId}: ${b.kb} KB, over its budget of ${b.budgetKb} KB`);
  }
  const operationIds = new Set(routes.map((r) => r.operationId));
  for (const [operationId, own] of Object.entries(ROUTE_BUNDLE_BUDGETS)) {
    const b = judged.find((j) => j.operationId === operationId);
    if (!operationIds.has(operationId)) broken.push(`ROUTE_BUNDLE_BUDGETS names ${operationId}, which is no route: remove it`);
    else if (b?.bytes !== undefined && b.bytes <= BUNDLE_LIMIT_BYTES) {
      broken.push(`ROUTE_BUNDLE_BUDGETS keeps ${own.kb} KB for ${operationId}, now ${b.kb} KB, within ${BUNDLE_LIMIT_BYTES / KB} KB: remove its entry`);
    }
  }
  for (const l of layers) {
    if (l.verdict !== 'OK') broken.push(`layer packages of ${l.operationId}: bundle imports ${l.imported.join(', ') || 'none'}, route declares ${l.declared.join(', ') || 'none'}`);
  }
  return broken;
}

/** The bundle table (with the size before beside each), the before/after line and the routes with budgets of their own. */
export function bundleReport(judged: readonly JudgedBundle[]): string {
  const overDefault = judged.filter((b) => (b.bytes ?? 0) > BUNDLE_LIMIT_BYTES);
  const largest = [...judged].sort((a, b) => (b.bytes ?? 0) - (a.bytes ?? 0))[0];
  const page = judged.find((b) => b.operationId === 'showJourney');
  const before = Object.entries(BUNDLES_BEFORE.kb);
  return [
    table([
      ['operation', 'handler', 'KB', 'bytes', 'budget KB', `KB at ${BUNDLES_BEFORE.commit}`, 'result', 'largest parts (KB)'],
      ...judged.map((b) => [
        b.operationId,
        b.handler,
        b.kb ?? '-',
        b.bytes ?? '-',
        b.budgetKb,
        Object.hasOwn(BUNDLES_BEFORE.kb, b.operationId) ? BUNDLES_BEFORE.kb[b.operationId]! : '',
        b.error ? `ERROR ${b.error.split('\n')[0]}` : b.verdict,
        b.largest.map((l) => `${l.name} ${kb(l.bytes)}`).join(', '),
      ]),
    ]),
    '',
    `Before (commit ${BUNDLES_BEFORE.commit}): ${before.length} of ${judged.length} routes over ${BUNDLE_LIMIT_BYTES / KB} KB, the journey page ` +
      `(showJourney) ${BUNDLES_BEFORE.kb.showJourney} KB. Now: ${overDefault.length} over ${BUNDLE_LIMIT_BYTES / KB} KB, each within a budget of its own; ` +
      `showJourney ${page?.kb ?? '-'} KB; the largest ${largest?.operationId} ${largest?.kb ?? '-'} KB.`,
    `Budgets of their own (test/bench/bundle-budgets.ts, ROUTE_BUNDLE_BUDGETS):`,
    ...Object.entries(ROUTE_BUNDLE_BUDGETS).map(([op, own]) => {
      const b = judged.find((j) => j.operationId === op);
      return `  ${op}: ${own.kb} KB (now ${b?.kb ?? '-'} KB): ${own.why}`;
    }),
  ].join('\n');
}
