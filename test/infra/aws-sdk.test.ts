import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions, LAMBDA_BUNDLING, SDK_PACKAGES } from '../../lib/bundling.js';
import { ServiceFunction } from '../../lib/constructs/service-function.js';
import { REPO_ROOT } from '../../lib/stack.js';
import { synthesize, type Synthesized } from './support.js';

const isSdk = (specifier: string) => /^@(aws-sdk|smithy)\//.test(specifier);

/**
 * The AWS SDK the tests run is the one that deploys: every function bundles it (lib/bundling.ts;
 * docs/aws.md, "Which AWS SDK deploys"), so none may leave an `@aws-sdk/*` or `@smithy/*` import
 * to the copy the Lambda runtime carries, whose version changes with the runtime.
 */
describe('the AWS SDK in the functions', () => {
  let synth: Synthesized;
  let entries: Map<string, string>;
  let meta: Metafile;
  beforeAll(async () => {
    synth = synthesize({}, { bundle: false });
    const functions = synth.stack.node.findAll().filter((c): c is ServiceFunction => c instanceof ServiceFunction);
    // Every Lambda the stack bundles is a ServiceFunction, so this is every function that deploys.
    expect(synth.stack.node.findAll().filter((c) => c instanceof NodejsFunction)).toHaveLength(functions.length);
    entries = new Map(functions.map((f) => [f.node.path, f.entry]));
    // All entries in one build (each a whole bundle, as without splitting each is): esbuild reads each source once.
    const { outfile: _single, ...options } = lambdaBuildOptions(REPO_ROOT, path.join(synth.outdir, 'unused.mjs'));
    const res = await build({
      ...options,
      write: false,
      outExtension: { '.js': '.mjs' },
      outdir: path.join(synth.outdir, 'sdk-check'),
      entryPoints: Object.fromEntries([...new Set(entries.values())].map((entry) => [entry.replace(/\.ts$/, ''), path.join(REPO_ROOT, entry)])),
    });
    meta = res.metafile;
  }, 240_000);
  afterAll(() => rmSync(synth.outdir, { recursive: true, force: true }));

  it('is left out of no function: the deployed settings externalize no SDK package', () => {
    const matches = (pattern: string, name: string) => (pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name);
    for (const name of ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@smithy/core']) {
      expect(LAMBDA_BUNDLING.external.filter((p) => matches(p, name)), name).toEqual([]);
    }
    expect(SDK_PACKAGES).toEqual(['@aws-sdk/*', '@smithy/*']);
  });

  it('rejects a bundle that leaves an @aws-sdk or @smithy import to the runtime', () => {
    expect(entries.size).toBeGreaterThan(100);
    const outputs = Object.entries(meta.outputs).filter(([file]) => file.endsWith('.mjs'));
    expect(outputs).toHaveLength(new Set(entries.values()).size);
    const leftOut = outputs.flatMap(([file, out]) => out.imports.filter((i) => i.external && isSdk(i.path)).map((i) => `${file}: ${i.kind} ${i.path}`));
    expect(leftOut).toEqual([]);
    // And the SDK is in them: some client of it in every function but the cloud function runner,
    // which calls no AWS service (its role grants nothing).
    const without = outputs
      .filter(([, out]) => !Object.keys(out.inputs).some((input) => /node_modules\/@aws-sdk\/client-/.test(input)))
      .map(([file]) => file.slice(file.indexOf('/sdk-check/') + '/sdk-check/'.length));
    expect(without).toEqual(['functions/cloud-functions/runner-handler.mjs']);
  });

  it('keeps the SDK clients loaded at first use: the service imports them only by import(), which a bundle runs on first call', () => {
    const eager = Object.entries(meta.inputs)
      .filter(([input]) => !input.includes('node_modules/'))
      .flatMap(([input, { imports }]) => imports.filter((i) => isSdk(i.original ?? i.path) && i.kind !== 'dynamic-import').map((i) => `${input}: ${i.kind} ${i.original ?? i.path}`));
    expect(eager).toEqual([]);
  });

  it('bundles the SDK versions package.json pins, as installed (the versions the tests ran)', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const sdk = Object.entries(pkg.dependencies).filter(([name]) => isSdk(name));
    expect(sdk.length).toBeGreaterThan(0);
    for (const [name, pinned] of sdk) {
      // An exact pin: a range would let an install bundle a version no test ran.
      expect(pinned, name).toMatch(/^\d+\.\d+\.\d+$/);
      const installed = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      expect(installed, name).toBe(pinned);
    }
  });
});
