import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../../functions/config.js';
import { handler as page } from '../../../functions/console/get-console-page.js';
import { handler as script } from '../../../functions/console/get-console-script.js';
import { handler as styles } from '../../../functions/console/get-console-styles.js';
import { GENERATED_CONSOLE_ASSETS, generatedConsoleAssetsModule } from '../../../lib/assets.js';

beforeAll(() => {
  Object.assign(process.env, {
    TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example',
    TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'ERROR',
  });
  resetConfigForTests();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  ({
    version: '2.0',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'acme.fir.example.com', ...headers },
    isBase64Encoded: false,
    requestContext: { requestId: 'r1', domainName: 'acme.fir.example.com', http: { method: 'GET', path } },
  }) as unknown as APIGatewayProxyEventV2;

describe('getConsolePage', () => {
  it('serves the page with a CSP that allows no inline script, no eval, no inline style and no other origin for scripts', async () => {
    const res = await page(get('/console'));
    expect(res.statusCode).toBe(200);
    expect(res.headers!['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers!['content-security-policy']);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    // Not the journey pages' policy, which allows inline styles and the camera.
    expect(res.headers!['permissions-policy']).toContain('camera=()');
    expect(res.body).toContain('<script src="/console/console.js" defer></script>');
    expect(res.body).toContain('<link rel="stylesheet" href="/console/console.css">');
    expect(res.body).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/);
  });

  it('answers 304 to the ETag of the copy the browser holds, and the page again to any other', async () => {
    const first = await page(get('/console'));
    const etag = String(first.headers!.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(first.headers!['cache-control']).toBe('no-cache');
    const again = await page(get('/console', { 'if-none-match': etag }));
    expect(again.statusCode).toBe(304);
    expect(again.body).toBeUndefined();
    // A browser applies a 304's headers to the copy it holds: the page's own CSP, not the default.
    expect(again.headers!['content-security-policy']).toBe(first.headers!['content-security-policy']);
    expect((await page(get('/console', { 'if-none-match': '"stale"' }))).statusCode).toBe(200);
  });
});

describe('getConsoleScript and getConsoleStyles', () => {
  it('serve the bundled script and style sheet with their types, the strict default CSP and nosniff', async () => {
    const js = await script(get('/console/console.js'));
    expect(js.statusCode).toBe(200);
    expect(js.headers!['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers!['x-content-type-options']).toBe('nosniff');
    expect(js.headers!['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(js.body).toContain('/api/arthr/apiKeys/issue');
    // No eval of any kind in what the CSP would have to allow.
    expect(js.body).not.toMatch(/\beval\(|new Function\(/);
    const css = await styles(get('/console/console.css'));
    expect(css.statusCode).toBe(200);
    expect(css.headers!['content-type']).toBe('text/css; charset=utf-8');
    // The BPMN viewer's styles are in it (no other origin to load them from).
    expect(css.body).toContain('.djs-container');
    const cached = await styles(get('/console/console.css', { 'if-none-match': String(css.headers!.etag) }));
    expect(cached.statusCode).toBe(304);
  });

  it('are bundled from their sources as they are now (npm run build:assets)', async () => {
    const root = resolve(import.meta.dirname, '../../..');
    expect(readFileSync(join(root, GENERATED_CONSOLE_ASSETS), 'utf8')).toBe(await generatedConsoleAssetsModule(root));
  }, 30_000);
});
