import { journeyRoutes } from '../../functions/journey/journey-routes.js';
import { FACE_LIVENESS_ASSET } from '../../functions/faces/liveness-service.js';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYTHON_ASSETS } from '../../functions/cloud-functions/python/engine.js';
import { routeList } from '../../functions/routes.js';
import { LAMBDA_BUNDLING } from '../../lib/bundling.js';
import { REPO_ROOT } from '../../lib/stack.js';
import { routeFunctionPath, type Resource } from './support.js';

/**
 * The one test that bundles every function, as `cdk deploy` does: through the CDK CLI, from
 * cdk.json. The template-only tests (stack.test.ts and the others) synthesize in process without
 * bundling; this one checks what the CLI wrote: the templates and each function's bundle.
 */
describe('cdk synth', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'arthr-synth-'));
  let result: SpawnSyncReturns<string>;
  /** Every Lambda function of the stack and its nested stacks, as the CLI wrote them. */
  let functions: Resource[];

  beforeAll(() => {
    // No credentials of any kind: synth must not need an account.
    const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: 'true' };
    for (const key of Object.keys(env)) {
      if (/^AWS_/.test(key) || key === 'CDK_DEFAULT_ACCOUNT' || key === 'CDK_DEFAULT_REGION') delete env[key];
    }
    env.AWS_CONFIG_FILE = path.join(outdir, 'no-config');
    env.AWS_SHARED_CREDENTIALS_FILE = path.join(outdir, 'no-credentials');
    env.AWS_EC2_METADATA_DISABLED = 'true';
    // CDK runs the project's esbuild once a function as `npx --no-install esbuild ...`: npm's own
    // start-up each time costs more than many a bundle on a loaded two-core machine. This `npx`
    // runs the same binary from node_modules/.bin directly (and hands anything else to npm's).
    const bin = path.join(outdir, 'bin');
    mkdirSync(bin);
    const realNpx = spawnSync('sh', ['-c', 'command -v npx'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(
      path.join(bin, 'npx'),
      `#!/bin/sh\nif [ "$1" = "--no-install" ] && [ -x "${REPO_ROOT}/node_modules/.bin/$2" ]; then shift; b="$1"; shift; exec "${REPO_ROOT}/node_modules/.bin/$b" "$@"; fi\nexec "${realNpx}" "$@"\n`,
    );
    chmodSync(path.join(bin, 'npx'), 0o755);
    env.PATH = `${bin}${path.delimiter}${env.PATH ?? ''}`;
    // Bundles every function as deployed, the AWS SDK inside (lib/bundling.ts): minutes on a loaded two-core machine.
    result = spawnSync(path.join(REPO_ROOT, 'node_modules/.bin/cdk'), ['synth', '--quiet', '-o', outdir], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 840_000 });
    functions = readdirSync(outdir)
      .filter((f) => f.endsWith('.template.json'))
      .flatMap((f) => Object.values((JSON.parse(readFileSync(path.join(outdir, f), 'utf8')) as { Resources: Record<string, Resource> }).Resources))
      .filter((r) => r.Type === 'AWS::Lambda::Function');
  }, 900_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('synthesizes the app from cdk.json with no AWS credentials, Docker or network', () => {
    // cdk-nag runs as a validation plugin in bin/app.ts: an unacknowledged finding fails here.
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stderr).not.toMatch(/AwsSolutions-/);
    const templatePath = path.join(outdir, 'ArthrStack.template.json');
    expect(existsSync(templatePath)).toBe(true);
    const template = JSON.parse(readFileSync(templatePath, 'utf8')) as { Resources: Record<string, { Type: string }> };
    expect(Object.values(template.Resources).some((r) => r.Type === 'AWS::ApiGatewayV2::Api')).toBe(true);
    // versionReporting is off in cdk.json: no metadata resource phoning home on deploy.
    expect(Object.values(template.Resources).some((r) => r.Type === 'AWS::CDK::Metadata')).toBe(false);
  });

  it('ships ESM bundles with the require shim, each from its own entry (the AWS SDK inside: aws-sdk.test.ts)', () => {
    expect(result.status).toBe(0);
    const at = (cdkPath: string) => {
      const f = functions.find((r) => r.Metadata?.['aws:cdk:path'] === `${cdkPath}/Resource`);
      expect(f, cdkPath).toBeDefined();
      return f!;
    };
    const bundleOf = (f: Resource) => {
      const bundle = path.join(outdir, f.Metadata!['aws:asset:path'] as string, 'index.mjs');
      expect(existsSync(bundle), f.Metadata!['aws:cdk:path']).toBe(true);
      const code = readFileSync(bundle, 'utf8');
      expect(code.startsWith(LAMBDA_BUNDLING.banner), f.Metadata!['aws:cdk:path']).toBe(true);
      return code;
    };
    for (const route of routeList) bundleOf(at(routeFunctionPath(route)));
    // The journeys' and events' functions, bundled from their own entries (a message only that entry has).
    expect(bundleOf(at('ArthrStack/Journeys/Activities/Function'))).toMatch(/This deployment has no runtime for the/);
    expect(bundleOf(at('ArthrStack/Journeys/ExecutionEnd/Function'))).toMatch(/execution end without an instance in its input/);
    // The runner: the Python engine's child, preload and Python modules travel beside its bundle, which finds them there.
    const runner = at('ArthrStack/Journeys/CloudFunctionRunner/Function');
    for (const file of PYTHON_ASSETS) expect(existsSync(path.join(outdir, runner.Metadata!['aws:asset:path'] as string, file)), file).toBe(true);
    // The Face Liveness capture's script, built beside its route's bundle (fir has Rekognition Face Liveness): Amazon's component in it.
    const livenessAsset = path.join(outdir, at(routeFunctionPath(journeyRoutes.getFaceLivenessAsset)).Metadata!['aws:asset:path'] as string, FACE_LIVENESS_ASSET);
    expect(existsSync(livenessAsset)).toBe(true);
    const livenessScript = readFileSync(livenessAsset, 'utf8');
    expect(livenessScript.length).toBeGreaterThan(1_000_000);
    expect(livenessScript).toContain('streaming-rekognition');
    expect(bundleOf(at('ArthrStack/Images/Cleanup/Function'))).toMatch(/expired instance images deleted/);
    expect(bundleOf(at('ArthrStack/Events/Relay/Function'))).toMatch(/a stream record names no outbox event/);
    expect(bundleOf(at('ArthrStack/Events/DeliveryWorker/Function'))).toMatch(/webhook delivery not attempted/);
  });
});
