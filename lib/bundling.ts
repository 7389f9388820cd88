/**
 * How every Lambda entry is bundled, shared by the CDK stack (NodejsFunction) and the bundle
 * benchmark so that what is measured is what is deployed.
 *
 * The AWS SDK v3 is bundled (`@aws-sdk/*` and `@smithy/*`, SDK_PACKAGES), not left to the copy
 * the nodejs22.x runtime carries: the version package.json pins is the one the tests run, and
 * only a bundled copy makes it the one that deploys (the runtime's copy changes with the runtime,
 * which Lambda updates on its own). Its clients stay loaded at first use: esbuild turns each
 * `import()` of a bundled module into a wrapper that runs the module on its first call. The cost
 * in bytes and import time is measured by `npm run bench` (test/bench/sdk-bundling.ts) and
 * written down in docs/aws.md ("Which AWS SDK deploys").
 *
 * `LAYER_PACKAGES` stay external too: the functions that use them (routes naming them in
 * `layerPackages`) get them from a Lambda layer built from the repository's node_modules
 * (lib/constructs/package-layer.ts) and load them at first use. @simplewebauthn/server with its
 * attestation parsers (X.509, ASN.1) is about 380 KB minified, more than a handler's budget by
 * itself. quickjs-emscripten (the cloud function runner's sandbox) reads its WebAssembly file
 * from its package at run time, which a bundle would not carry. awesome-phonenumber
 * (libphonenumber with every region's metadata, 338 KB minified) is needed only by the routes
 * that judge a data form's phone field (functions/journey/phone-numbers.ts); bundled, it put the
 * journey page and both form submission routes far over their budget. pyodide (CPython 3.12 in
 * WebAssembly, about 14 MB with its standard library) is the runner's Python: its children read
 * its files from the package folder. tesseract.js (the embedded document engine) runs its OCR in a
 * worker thread from its package's files, with tesseract.js-core's WebAssembly and the English
 * model's data (about 60 MB with its companions).
 */
export const LAYER_PACKAGES = ['@simplewebauthn/server', 're2-wasm', 'quickjs-emscripten', '@vladmandic/human', 'awesome-phonenumber', 'pyodide', 'tesseract.js'] as const;
export type LayerPackage = (typeof LAYER_PACKAGES)[number];

/**
 * Packages a layer carries beside its own, which its package loads without declaring them:
 * the embedded face model (@vladmandic/human, its models read from its package folder at run
 * time) loads TensorFlow.js and its WebAssembly backend, whose .wasm files it reads likewise.
 */
export const LAYER_COMPANIONS: Partial<Record<LayerPackage, readonly string[]>> = {
  '@vladmandic/human': ['@tensorflow/tfjs-core', '@tensorflow/tfjs-converter', '@tensorflow/tfjs-backend-wasm'],
  // The embedded document engine: its worker runs tesseract.js-core's WebAssembly and reads the
  // English model from its data package; the worker's own dependencies come along.
  'tesseract.js': ['tesseract.js-core', '@tesseract.js-data/eng', 'bmp-js', 'zlibjs', 'wasm-feature-detect', 'is-url', 'node-fetch', 'whatwg-url', 'tr46', 'webidl-conversions', 'regenerator-runtime', 'idb-keyval'],
};

/**
 * Powertools Tracer with the X-Ray SDK (about 125 KB minified) stays external too: it is loaded
 * only when tracing is on (functions/observability/tracer.ts), from the layer the stack adds to
 * every function when it deploys with tracing.
 */
export const TRACER_PACKAGE = '@aws-lambda-powertools/tracer';

/** The AWS SDK v3 and the Smithy runtime it is built on: bundled, never external (see above). */
export const SDK_PACKAGES = ['@aws-sdk/*', '@smithy/*'] as const;

export const LAMBDA_BUNDLING = {
  format: 'esm' as const,
  platform: 'node' as const,
  target: 'node22',
  minify: true,
  sourcemap: false,
  mainFields: ['module', 'main'],
  external: [...LAYER_PACKAGES, '@tensorflow/*', TRACER_PACKAGE],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
};

/**
 * esbuild's options for one Lambda entry as NodejsFunction builds it: the shared settings, the
 * banner, one bundled entry, one file out (the bench and the bundle tests build the same).
 */
export function lambdaBuildOptions(root: string, outfile: string) {
  return {
    ...LAMBDA_BUNDLING,
    banner: { js: LAMBDA_BUNDLING.banner },
    bundle: true,
    outfile,
    absWorkingDir: root,
    write: true,
    metafile: true as const,
    logLevel: 'silent' as const,
  };
}
