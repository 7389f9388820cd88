import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPagesHost, localPagesOrigin, pageKeyOf, pagesHostHandler, PAGE_CACHE_CONTROL } from '../../lib/local/pages-host.js';
import { localS3Client, mirrorToDisk, startLocalS3 } from '../../lib/local/s3.js';
import { startHttpServer } from '../../lib/local/server.js';
import { REPO_ROOT } from '../../lib/stack.js';

const PAGE = 'tenants/demo/custom-pages/0b7c6f55-6d2e-4c4b-9a77-5a1d3c0e9f10/6f1d0c2ab4e94f0a8d3b2c1e0f9a8b7c';

function get(port: number, path: string, opts: { host?: string; method?: string; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((ok, fail) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host: opts.host ?? `pages.localhost:${port}`, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', fail);
    req.end();
  });
}

describe('pageKeyOf', () => {
  it('takes a file of a custom page version, escapes decoded', () => {
    expect(pageKeyOf(`/${PAGE}/index.html`)).toBe(`${PAGE}/index.html`);
    expect(pageKeyOf(`/${PAGE}/assets/my%20font.woff2`)).toBe(`${PAGE}/assets/my font.woff2`);
  });
  it.each([
    ['the root', '/'],
    ['a version folder (no listing)', `/${PAGE}/`],
    ['a version without a file', `/${PAGE}`],
    ['another prefix of the bucket (uploads)', '/tenants/demo/custom-page-uploads/x/archive.zip'],
    ['images', '/tenants/demo/instances/i/selfie.jpg'],
    ['a climb', `/${PAGE}/../../../other/index.html`],
    ['an escaped climb', `/${PAGE}/%2e%2e/x.js`],
    ['an escaped slash', `/${PAGE}/a%2fb.js`],
    ['a backslash', `/${PAGE}/a%5cb.js`],
    ['a NUL', `/${PAGE}/a%00.js`],
    ['an empty segment', `/${PAGE}//index.html`],
    ['a bad escape', `/${PAGE}/%zz.js`],
  ])('refuses %s', (_what, path) => {
    expect(pageKeyOf(path)).toBeUndefined();
  });
});

describe('isPagesHost', () => {
  it('is the pages host, with or without a port, in any case', () => {
    expect(isPagesHost('pages.localhost:3000')).toBe(true);
    expect(isPagesHost('PAGES.localhost')).toBe(true);
    expect(isPagesHost('demo.fir.localhost:3000')).toBe(false);
    expect(isPagesHost('pages.localhost.evil:3000')).toBe(false);
    expect(isPagesHost(undefined)).toBe(false);
    expect(localPagesOrigin(3000)).toBe('http://pages.localhost:3000');
  });
});

describe('the pages host of the local runtime', () => {
  let dir: string;
  let s3: Awaited<ReturnType<typeof startLocalS3>>;
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let port: number;
  const html = '<!doctype html><title>p</title><script src="app.js"></script>';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'arthr-pages-host-'));
    s3 = await startLocalS3({ images: join(dir, 'images'), exports: join(dir, 'exports'), pages: join(dir, 'pages') });
    const client = localS3Client(s3.endpoint, s3.credentials);
    mirrorToDisk(client, s3.pagesBucket, join(dir, 'pages'));
    const put = (key: string, body: string | Buffer, type: string) =>
      client.send(new PutObjectCommand({ Bucket: s3.pagesBucket, Key: key, Body: typeof body === 'string' ? Buffer.from(body) : body, ContentType: type, CacheControl: PAGE_CACHE_CONTROL }));
    await put(`${PAGE}/index.html`, html, 'text/html; charset=utf-8');
    await put(`${PAGE}/app.js`, 'parent.postMessage({event:"READY"},"*")', 'text/javascript; charset=utf-8');
    await put(`${PAGE}/fonts/a.woff2`, Buffer.from([0x77, 0x4f, 0x46, 0x32]), 'font/woff2');
    await put('tenants/demo/custom-page-uploads/u1/archive', 'PK..', 'application/zip');
    server = await startHttpServer({
      routes: [],
      root: REPO_ROOT,
      host: '127.0.0.1',
      port: 0,
      jwks: async () => ({ keys: [] }),
      issuer: 'http://localhost',
      audience: 'arthr-api',
      pagesHost: pagesHostHandler(client, s3.pagesBucket),
    });
    port = server.port;
  });
  afterAll(async () => {
    await server?.close();
    await s3?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves each file without a token, with its type, nosniff, immutable caching and an ETag', async () => {
    const page = await get(port, `/${PAGE}/index.html`);
    expect(page.status).toBe(200);
    expect(page.body.toString()).toBe(html);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(page.headers.etag).toMatch(/^"[^"]+"$/);
    expect((await get(port, `/${PAGE}/app.js`)).headers['content-type']).toBe('text/javascript; charset=utf-8');
    const font = await get(port, `/${PAGE}/fonts/a.woff2`);
    expect(font.headers['content-type']).toBe('font/woff2');
    expect([...font.body]).toEqual([0x77, 0x4f, 0x46, 0x32]);
  });

  it('answers a matching If-None-Match with 304 and HEAD without a body', async () => {
    const first = await get(port, `/${PAGE}/index.html`);
    const again = await get(port, `/${PAGE}/index.html`, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await get(port, `/${PAGE}/index.html`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    const head = await get(port, `/${PAGE}/index.html`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(html)));
    expect(head.body.length).toBe(0);
  });

  it('serves nothing else: 404 for unknown files, folders, uploads and climbs; 405 for writes', async () => {
    for (const path of [`/${PAGE}/missing.js`, `/${PAGE}/`, '/tenants/demo/custom-page-uploads/u1/archive', `/${PAGE}/%2e%2e/index.html`, '/']) {
      const res = await get(port, path);
      expect(res.status, path).toBe(404);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    for (const method of ['PUT', 'POST', 'DELETE']) {
      const res = await get(port, `/${PAGE}/index.html`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
  });

  it('leaves every other host to the API (no page from a tenant host)', async () => {
    const res = await get(port, `/${PAGE}/index.html`, { host: `demo.fir.localhost:${port}` });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString()).code).toBe('ROUTE_NOT_FOUND');
  });

  it('serves a page again after a restart, with its type from its extension', async () => {
    const again = await startLocalS3({ images: join(dir, 'images'), exports: join(dir, 'exports'), pages: join(dir, 'pages') });
    try {
      const handler = pagesHostHandler(localS3Client(again.endpoint, again.credentials), again.pagesBucket);
      const other = await startHttpServer({ routes: [], root: REPO_ROOT, host: '127.0.0.1', port: 0, jwks: async () => ({ keys: [] }), issuer: 'x', audience: 'y', pagesHost: handler });
      try {
        const font = await get(other.port, `/${PAGE}/fonts/a.woff2`);
        expect(font.status).toBe(200);
        expect(font.headers['content-type']).toBe('font/woff2');
        expect((await get(other.port, `/${PAGE}/index.html`)).headers['content-type']).toBe('text/html; charset=utf-8');
      } finally {
        await other.close();
      }
    } finally {
      await again.stop();
    }
  });
});
