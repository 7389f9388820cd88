import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/stack.js';

describe('cdk synth', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'arthr-synth-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('synthesizes the app from cdk.json with no AWS credentials, Docker or network', () => {
    // No credentials of any kind: synth must not need an account.
    const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: 'true' };
    for (const key of Object.keys(env)) {
      if (/^AWS_/.test(key) || key === 'CDK_DEFAULT_ACCOUNT' || key === 'CDK_DEFAULT_REGION') delete env[key];
    }
    env.AWS_CONFIG_FILE = path.join(outdir, 'no-config');
    env.AWS_SHARED_CREDENTIALS_FILE = path.join(outdir, 'no-credentials');
    env.AWS_EC2_METADATA_DISABLED = 'true';

    const result = spawnSync('npx', ['cdk', 'synth', '--quiet', '-o', outdir], {
      cwd: REPO_ROOT,
      env,
      encoding: 'utf8',
      timeout: 420_000,
    });
    // cdk-nag runs as a validation plugin in bin/app.ts: an unacknowledged finding fails here.
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stderr).not.toMatch(/AwsSolutions-/);
    const templatePath = path.join(outdir, 'ArthrStack.template.json');
    expect(existsSync(templatePath)).toBe(true);
    const template = JSON.parse(readFileSync(templatePath, 'utf8')) as { Resources: Record<string, { Type: string }> };
    expect(Object.values(template.Resources).some((r) => r.Type === 'AWS::ApiGatewayV2::Api')).toBe(true);
    // versionReporting is off in cdk.json: no metadata resource phoning home on deploy.
    expect(Object.values(template.Resources).some((r) => r.Type === 'AWS::CDK::Metadata')).toBe(false);
  }, 450_000);
});
