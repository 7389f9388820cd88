import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../lib/bundling.js';
import { REPO_ROOT } from '../../lib/stack.js';
import { SPECS } from '../../functions/activities/specs/index.generated.js';

const event = {
  version: '2.0',
  rawPath: '/openapi.json',
  rawQueryString: '',
  headers: { host: 'localhost' },
  requestContext: { http: { method: 'GET' }, domainName: 'localhost', requestId: 'r' },
} as unknown as APIGatewayProxyEventV2;

/**
 * The activity index names each module's exports one by one, so a bundle keeps only the parts it
 * uses; and package.json declares the service's modules free of side effects (but those listed),
 * so esbuild also drops a module none of whose exports a bundle uses. These check both: that a
 * Lambda bundle still does what the source does, and that a definition route carries the specs
 * and not the run functions or screens.
 */
describe('Lambda bundles', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'arthr-bundles-'));
  const saved = { ...process.env };
  Object.assign(process.env, {
    TABLE_NAME: 'arthr',
    SERVICE_REGION: 'fir',
    SERVICE_DOMAIN: 'localhost',
    TOKEN_ISSUER: 'http://demo.fir.localhost',
    TOKEN_AUDIENCE: 'arthr-api',
    SIGNING_KEY: 'file:/nonexistent',
    LOG_LEVEL: 'SILENT',
  });
  afterAll(() => {
    process.env = saved;
    rmSync(outdir, { recursive: true, force: true });
  });

  const bundle = async (entry: string, name: string) => {
    const outfile = path.join(outdir, `${name}.mjs`);
    await build({ ...lambdaBuildOptions(REPO_ROOT, outfile), entryPoints: [path.join(REPO_ROOT, entry)] });
    return outfile;
  };

  it('serve the same OpenAPI document bundled as from the sources (no schema registration is dropped)', async () => {
    const file = await bundle('functions/platform/openapi.ts', 'openapi');
    const bundled = (await import(pathToFileURL(file).href)) as { handler: (e: APIGatewayProxyEventV2) => Promise<{ statusCode: number; body?: string }> };
    const source = await import('../../functions/platform/openapi.js');
    const [a, b] = [await bundled.handler(event), await source.handler(event)];
    expect(a.statusCode).toBe(200);
    expect(JSON.parse(a.body!)).toEqual(JSON.parse(b.body!));
  }, 60_000);

  it('keep the activity specs but not their run functions or screens in a definition route', async () => {
    const file = await bundle('functions/process-manager/definitions/create-process-definition.ts', 'create-definition');
    const code = await import('node:fs').then((fs) => fs.readFileSync(file, 'utf8'));
    for (const spec of SPECS) expect(code, spec.type).toContain(spec.type);
    // Strings only the run functions and the screens hold are not in it.
    expect(code).not.toContain('The External ID is empty.');
    expect(code).not.toContain('No passcode registration is kept under');
    expect(code).not.toContain('data-max-bytes');
  }, 60_000);
});
