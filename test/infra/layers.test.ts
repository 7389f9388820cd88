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
    for (const layer of Object.values(layers)) {
      expect(layer.Properties).toMatchObject({ CompatibleRuntimes: ['nodejs22.x'], CompatibleArchitectures: ['arm64'] });
      const assetPath = layer.Metadata?.['aws:asset:path'] as string;
      expect(existsSync(join(synth.outdir, assetPath, 'nodejs/node_modules/@simplewebauthn/server/package.json'))).toBe(true);
      expect(existsSync(join(synth.outdir, assetPath, 'nodejs/node_modules/@peculiar/x509/package.json'))).toBe(true);
    }
  });

  it('go to exactly the functions whose routes name them', () => {
    const [layerId] = Object.keys(ofType(synth.template, 'AWS::Lambda::LayerVersion'));
    const withLayer = routeList.filter((r) => r.layerPackages?.length).map((r) => r.operationId);
    expect(withLayer.length).toBeGreaterThan(0);
    for (const route of routeList) {
      const [, fn] = resourceAt(synth.template, 'AWS::Lambda::Function', routeFunctionPath(route));
      const layers = asArray(fn.Properties.Layers).map(refId);
      expect(layers, route.operationId).toEqual(withLayer.includes(route.operationId) ? [layerId] : []);
    }
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});
