import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '../../functions/routes.js';
import { LAYER_PACKAGES } from '../../lib/bundling.js';
import { dependencyClosure } from '../../lib/constructs/package-layer.js';
import { asArray, ofType, refId, resourceAt, routeFunctionPath, synthesize, unacknowledgedNagFindings, type Synthesized } from './support.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('package layers', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({}, { bundle: false });
  });
  afterAll(() => rmSync(synth.outdir, { recursive: true, force: true }));

  it('hold each package with every dependency it resolves, as installed', () => {
    const closure = dependencyClosure(ROOT, ['@simplewebauthn/server']);
    const names = [...closure.keys()];
    expect(names).toContain('node_modules/@simplewebauthn/server');
    for (const dep of Object.keys(JSON.parse(readFileSync(join(ROOT, 'node_modules/@simplewebauthn/server/package.json'), 'utf8')).dependencies)) {
      expect(names.some((n) => n.endsWith(`node_modules/${dep}`)), dep).toBe(true);
    }
    expect(() => dependencyClosure(ROOT, ['not-a-package-here'])).toThrow('not installed');
  });

  it('are one arm64 nodejs22.x layer per package, whose asset has the package under nodejs/node_modules', () => {
    const layers = ofType(synth.template, 'AWS::Lambda::LayerVersion');
    expect(Object.keys(layers)).toHaveLength(LAYER_PACKAGES.length);
    const holding = (file: string) =>
      Object.values(layers).filter((layer) => existsSync(join(synth.outdir, layer.Metadata?.['aws:asset:path'] as string, 'nodejs/node_modules', file)));
    for (const layer of Object.values(layers)) {
      expect(layer.Properties).toMatchObject({ CompatibleRuntimes: ['nodejs22.x'], CompatibleArchitectures: ['arm64'] });
    }
    expect(holding('@simplewebauthn/server/package.json')).toHaveLength(1);
    expect(holding('@peculiar/x509/package.json')).toHaveLength(1);
    // RE2's WebAssembly travels beside its loader, which reads it from its own folder; so does QuickJS's.
    expect(holding('re2-wasm/build/wasm/re2.wasm')).toHaveLength(1);
    expect(holding('@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm')).toHaveLength(1);
    // CPython's WebAssembly and its standard library, beside pyodide's loader.
    expect(holding('pyodide/pyodide.asm.wasm')).toHaveLength(1);
    expect(holding('pyodide/python_stdlib.zip')).toHaveLength(1);
  });

  it('go to exactly the functions whose routes name them, and QuickJS to the cloud function runner alone', () => {
    const layers = ofType(synth.template, 'AWS::Lambda::LayerVersion');
    const layerOf = (pkg: string) => Object.keys(layers).find((id) => String(layers[id]!.Properties.Description).startsWith(`${pkg} `))!;
    for (const pkg of LAYER_PACKAGES) expect(layerOf(pkg), pkg).toBeDefined();
    // The runner's packages, and the document reader the activity function alone carries.
    const routePackages = LAYER_PACKAGES.filter((p) => p !== 'quickjs-emscripten' && p !== 'pyodide' && p !== 'tesseract.js');
    for (const pkg of routePackages) expect(routeList.filter((r) => (r.layerPackages as readonly string[] | undefined)?.includes(pkg)).length, pkg).toBeGreaterThan(0);
    const withQuickjs = Object.values(ofType(synth.template, 'AWS::Lambda::Function')).filter((f) => asArray(f.Properties.Layers).map(refId).includes(layerOf('quickjs-emscripten')));
    expect(withQuickjs.map((f) => f.Properties.FunctionName)).toEqual(['arthr-fir-cloud-function-runner']);
    const withPyodide = Object.values(ofType(synth.template, 'AWS::Lambda::Function')).filter((f) => asArray(f.Properties.Layers).map(refId).includes(layerOf('pyodide')));
    expect(withPyodide.map((f) => f.Properties.FunctionName)).toEqual(['arthr-fir-cloud-function-runner']);
    const withTesseract = Object.values(ofType(synth.template, 'AWS::Lambda::Function')).filter((f) => asArray(f.Properties.Layers).map(refId).includes(layerOf('tesseract.js')));
    expect(withTesseract.map((f) => f.Properties.FunctionName)).toEqual(['arthr-fir-activities']);
    // The face model: the capture route, and the activity function (Face Template Generation).
    const withHuman = Object.values(ofType(synth.template, 'AWS::Lambda::Function')).filter((f) => asArray(f.Properties.Layers).map(refId).includes(layerOf('@vladmandic/human')));
    expect(withHuman.map((f) => f.Properties.FunctionName)).toContain('arthr-fir-activities');
    for (const route of routeList) {
      const [, fn] = resourceAt(synth.template, 'AWS::Lambda::Function', routeFunctionPath(route));
      const attached = asArray(fn.Properties.Layers).map(refId).sort();
      expect(attached, route.operationId).toEqual((route.layerPackages ?? []).map(layerOf).sort());
    }
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});
