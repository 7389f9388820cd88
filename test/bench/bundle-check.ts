/**
 * `npm run bench:bundles`: the bundle budgets alone, fast enough for every CI run (each route
 * bundled as deployed, about 20 s here; `npm run bench` measures everything else). Prints each
 * route's size against its budget (250 KB, or its own in bundle-budgets.ts) and the layer
 * packages check, then the budgets broken; exits 1 when there is any, so CI fails.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeList } from '../../functions/routes.js';
import { brokenBundleBudgets, bundleReport, checkLayerPackages, judgeBundles } from './bundle-budgets.js';
import { BUNDLE_LIMIT_BYTES, bundleRoutes } from './bundles.js';
import { section } from './stats.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const log = (text: string) => process.stdout.write(`${text}\n`);

const started = performance.now();
const bundles = judgeBundles(await bundleRoutes(ROOT, routeList));
log(section(`Bundle size of each route (esbuild, LAMBDA_BUNDLING; budget ${BUNDLE_LIMIT_BYTES / 1024} KB unless its own)`));
log(bundleReport(bundles));
const layers = checkLayerPackages(routeList, bundles);
const withLayers = layers.filter((l) => l.imported.length || l.declared.length);
log(`Layer packages: ${withLayers.map((l) => `${l.operationId} ${l.imported.join('+')} ${l.verdict}`).join(', ')}`);
const broken = brokenBundleBudgets(routeList, bundles, layers);
log(section('Budgets broken'));
log(broken.length ? broken.map((b) => `- ${b}`).join('\n') : 'none');
log(`${routeList.length} routes bundled in ${Math.round((performance.now() - started) / 1000)} s`);
process.exit(broken.length ? 1 : 0);
