import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import type { RouteDef } from '../../functions/http/route.js';
import { LAMBDA_BUNDLING, LAYER_PACKAGES, lambdaBuildOptions, SDK_PACKAGES, TRACER_PACKAGE } from '../../lib/bundling.js';

export const BUNDLE_LIMIT_BYTES = 250 * 1024;

export interface BundleResult {
  operationId: string;
  handler: string;
  /** Absolute path of the `.mjs` bundle, when the build succeeded. */
  file?: string;
  bytes?: number;
  /**
   * Bytes of the same bundle with the AWS SDK (`@aws-sdk/*`, `@smithy/*`) left out, as deployed
   * before it was bundled: the service's own code and its other dependencies, which the route's
   * budget judges. `bytes - ownBytes` is what the bundled SDK adds.
   */
  ownBytes?: number;
  /**
   * That build without the AWS SDK, written to `<root>/.bench/bundles-own/<operationId>.mjs`:
   * what the import-time budget judges (section 2 of `npm run bench`). Its `@aws-sdk/*` imports
   * resolve from the repository's node_modules, as they did from the runtime's copy before the
   * SDK was bundled; a dynamic `import()` of a client stays an `import()`, loaded at first use.
   */
  own?: {
    file: string;
    /** External packages it imports at load time (layer packages, and the SDK if any dependency imports it statically). */
    externals: string[];
    /** External packages it loads by dynamic `import()` at first use (the SDK clients, layer packages). */
    deferredExternals: string[];
    /** The AWS SDK packages among `externals`: loaded with the module, not at first use (none expected). */
    sdkAtLoad: string[];
  };
  /** The largest contributors to the bundle (packages, or `functions/` for our own code). */
  largest: { name: string; bytes: number }[];
  /** Bytes of each package in the bundle (for the observability and middleware figures). */
  owners?: Record<string, number>;
  /** Packages left out of the bundle (none but the layer packages) that it imports at load time. */
  externals: string[];
  /** External packages loaded by a dynamic `import()` at first use, not with the module. */
  deferredExternals: string[];
  /**
   * Layer packages the bundle finds by `require.resolve` at run time rather than importing (the
   * embedded face model loads its files from its package folder): no import for esbuild to see,
   * but the function needs the layer all the same.
   */
  resolvedLayerPackages?: string[];
  error?: string;
}

function resolvedLayerPackages(outfile: string): string[] {
  const code = readFileSync(outfile, 'utf8');
  return LAYER_PACKAGES.filter((p) => code.includes(`.resolve(${JSON.stringify(p)})`));
}

/** `node_modules/zod/v4/core/x.js` → `zod`; our own sources → their top folder. */
function owner(input: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (m) return m[1]!;
  return input.split('/').slice(0, 1).join('/') || input;
}

function outputOf(meta: Metafile, outfile: string) {
  return Object.entries(meta.outputs).find(([path]) => resolve(path) === outfile)?.[1];
}

/** Static imports only: a dynamic `import()` is not loaded with the module. */
function staticExternals(meta: Metafile, outfile: string): string[] {
  return externalsOfKind(meta, outfile, ['import-statement', 'require-call']);
}

/**
 * Dynamic `import()`s of external packages: loaded by the first request that needs them. Not
 * Powertools Tracer: it is loaded only in a deployment with tracing, and priced on its own.
 */
function dynamicExternals(meta: Metafile, outfile: string): string[] {
  return externalsOfKind(meta, outfile, ['dynamic-import']).filter((p) => p !== TRACER_PACKAGE);
}

function externalsOfKind(meta: Metafile, outfile: string, kinds: string[]): string[] {
  const out = outputOf(meta, outfile);
  const names = (out?.imports ?? [])
    .filter((i) => i.external && kinds.includes(i.kind) && !i.path.startsWith('node:'))
    .map((i) => i.path);
  return [...new Set(names)].sort();
}

function ownerBytes(meta: Metafile, outfile: string): Record<string, number> {
  const out = outputOf(meta, outfile);
  const byOwner: Record<string, number> = {};
  for (const [input, { bytesInOutput }] of Object.entries(out?.inputs ?? {})) byOwner[owner(input)] = (byOwner[owner(input)] ?? 0) + bytesInOutput;
  return byOwner;
}

function largestOwners(meta: Metafile, outfile: string): { name: string; bytes: number }[] {
  const out = outputOf(meta, outfile);
  if (!out) return [];
  const byOwner = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
    byOwner.set(owner(input), (byOwner.get(owner(input)) ?? 0) + bytesInOutput);
  }
  return [...byOwner.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 4);
}

/** The deployed externals plus the AWS SDK: the same bundle without the SDK, to price what it adds. */
const WITHOUT_SDK = [...new Set([...LAMBDA_BUNDLING.external, ...SDK_PACKAGES])];

const isSdk = (p: string) => SDK_PACKAGES.some((glob) => p.startsWith(glob.replace('*', '')));

/**
 * Bundles every route's entry exactly as deployed (`LAMBDA_BUNDLING`) into
 * `<root>/.bench/bundles/<operationId>.mjs`; inside the repository so that the external imports
 * (layer packages) resolve from its node_modules, as the layers provide them. Each is built a
 * second time with the AWS SDK left out, into `<root>/.bench/bundles-own/<operationId>.mjs`
 * (`ownBytes`, `own`): the own-code build the size and import-time budgets judge.
 */
export async function bundleRoutes(root: string, routes: readonly RouteDef[]): Promise<BundleResult[]> {
  const dir = join(root, '.bench', 'bundles');
  const ownDir = join(root, '.bench', 'bundles-own');
  for (const d of [dir, ownDir]) {
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
  }
  // Every route in one build of each kind: each entry is still a whole bundle of its own (no
  // splitting), as one build a route makes it, and esbuild reads each source once. A build that
  // fails (a route that does not bundle) is done again route by route, to say which.
  const all = await Promise.all([routeBuild(root, routes, dir, {}), routeBuild(root, routes, ownDir, { external: WITHOUT_SDK })]).catch(() => undefined);
  const results: BundleResult[] = [];
  for (const route of routes) {
    const outfile = join(dir, `${route.operationId}.mjs`);
    const ownFile = join(ownDir, `${route.operationId}.mjs`);
    try {
      const res = all?.[0] ?? (await build({ ...lambdaBuildOptions(root, outfile), entryPoints: [resolve(root, route.handler)] }));
      const own = all?.[1] ?? (await build({ ...lambdaBuildOptions(root, ownFile), external: WITHOUT_SDK, entryPoints: [resolve(root, route.handler)] }));
      const ownExternals = staticExternals(own.metafile, ownFile);
      results.push({
        operationId: route.operationId,
        handler: route.handler,
        file: outfile,
        bytes: statSync(outfile).size,
        ownBytes: statSync(ownFile).size,
        own: {
          file: ownFile,
          externals: ownExternals,
          deferredExternals: dynamicExternals(own.metafile, ownFile),
          sdkAtLoad: ownExternals.filter(isSdk),
        },
        largest: largestOwners(res.metafile, outfile),
        owners: ownerBytes(res.metafile, outfile),
        externals: staticExternals(res.metafile, outfile),
        deferredExternals: dynamicExternals(res.metafile, outfile),
        resolvedLayerPackages: resolvedLayerPackages(outfile),
      });
    } catch (err) {
      results.push({ operationId: route.operationId, handler: route.handler, largest: [], externals: [], deferredExternals: [], error: (err as Error).message });
    }
  }
  return results;
}

/** One build of every route's entry into `outdir/<operationId>.mjs`, with the deployed settings (and `extra`). */
function routeBuild(root: string, routes: readonly RouteDef[], outdir: string, extra: { external?: string[] }) {
  const { outfile: _one, ...options } = lambdaBuildOptions(root, join(outdir, 'unused.mjs'));
  return build({
    ...options,
    ...extra,
    outdir,
    outExtension: { '.js': '.mjs' },
    entryPoints: Object.fromEntries(routes.map((r) => [r.operationId, resolve(root, r.handler)])),
  });
}

/** What the HTTP chain and Powertools bring into a bundle: these packages and what they pull in. */
export const OBSERVABILITY_PACKAGES = ['@middy/core', '@aws-lambda-powertools/logger', '@aws-lambda-powertools/commons', '@aws/lambda-invoke-store', '@aws-lambda-powertools/metrics'];

/**
 * One package alone, bundled as a handler would be (everything it exports kept), to price it:
 * its bytes, and (timed like the handlers) its import. Nothing stays external, so a package a
 * handler leaves to a layer is priced whole here (and the AWS SDK, bundled as deployed).
 */
export async function bundleProbe(root: string, name: string, pkg: string): Promise<BundleResult & { file: string; bytes: number }> {
  const outfile = join(root, '.bench', 'bundles', `probe-${name}.mjs`);
  mkdirSync(join(root, '.bench', 'bundles'), { recursive: true });
  const res = await build({
    ...lambdaBuildOptions(root, outfile),
    external: [],
    stdin: { contents: `export * as probe from '${pkg}';`, resolveDir: root, sourcefile: `probe-${name}.mjs`, loader: 'js' },
  });
  return {
    operationId: `(${pkg} alone)`,
    handler: pkg,
    file: outfile,
    bytes: statSync(outfile).size,
    largest: largestOwners(res.metafile, outfile),
    externals: staticExternals(res.metafile, outfile),
    deferredExternals: dynamicExternals(res.metafile, outfile),
  };
}
