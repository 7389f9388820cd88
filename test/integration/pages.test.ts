import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { call } from './client.js';

const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

describe('GET / and GET /docs', () => {
  for (const path of ['/', '/docs']) {
    it(`${path}: a page with its own strict CSP on the tenant's host and on a bare one, 304 on its ETag`, async () => {
      for (const tenant of ['demo', null]) {
        const res = await call('GET', path, { tenant });
        expect(res.status, `${path} ${tenant}`).toBe(200);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        const csp = String(res.headers['content-security-policy']);
        expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; /);
        expect(csp).not.toMatch(/script-src|unsafe/);
        expect(res.text).not.toMatch(/<script/i);
        const etag = String(res.headers.etag);
        const again = await call('GET', path, { tenant, headers: { 'if-none-match': etag } });
        expect(again.status).toBe(304);
        expect(again.text).toBe('');
        expect(again.headers['content-security-policy']).toBe(csp);
      }
    });
  }

  it('/docs lists every operation of /openapi.json, each with its anchor, and every event', async () => {
    const [doc, page] = await Promise.all([call('GET', '/openapi.json', { tenant: null }), call('GET', '/docs', { tenant: null })]);
    const operationIds = Object.values(doc.json.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(operationIds).toContain('getApiReference');
    const missing = operationIds.filter((id) => !page.text.includes(`<section class="op" id="op-${id}"`) || !page.text.includes(`href="#op-${id}"`));
    expect(missing).toEqual([]);
    for (const event of Object.keys(doc.json.webhooks)) expect(page.text.includes(`id="event-${event}"`), event).toBe(true);
  });

  it('refuses other methods with 405, as every route does', async () => {
    for (const path of ['/', '/docs']) {
      const res = await call('POST', path, { body: {} });
      expect(res.status, path).toBe(405);
      expect(res.headers.allow).toContain('GET');
    }
  });

  it("the home page's first call runs as shown: it issues a token and lists the tenant's keys", async () => {
    const home = await call('GET', '/', { tenant: null });
    const block = unescape(/<pre><code>([\s\S]*?)<\/code><\/pre>/.exec(home.text)![1]!);
    const { stdout } = await promisify(execFile)('bash', ['-c', `set -euo pipefail\n${block}`], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: { ...process.env, LOCAL_DIR: inject('localDir') },
    });
    const listed = JSON.parse(stdout);
    expect(listed.content.length).toBeGreaterThan(0);
    expect(listed.content[0]).toMatchObject({ id: expect.any(String), status: expect.any(String) });
  });
});
