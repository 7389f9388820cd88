import { gzipSync } from 'node:zlib';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../support/zip.js';
import { configure } from '@zip.js/zip.js';
import tar from 'tar-stream';
import { adminToken, call, issueToken, keyWith } from './client.js';

configure({ useWebWorkers: false });

const BASE = '/api/theme-server/customPages';
let token: string;
let port: number;
beforeAll(async () => {
  token = await adminToken();
  const { inject } = await import('vitest');
  port = inject('port');
});

const fresh = () => `page-${Math.random().toString(36).slice(2, 10)}`;
const INDEX = '<!doctype html><html><head><link rel="stylesheet" href="css/app.css"><script src="js/app.js"></script></head><body>Hi</body></html>';


const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const pageZip = () => zipOf({ 'index.html': INDEX, 'css/app.css': 'body{color:#123}', 'js/app.js': 'window.parent.postMessage({event:"READY"},"*")', 'img/logo.png': PNG, 'fonts/a.woff2': 'x' });

/** The family's upload body: the archive as base64 in JSON. */
async function upload(name: string, archive: Buffer, extra: Record<string, unknown> = {}, as = token) {
  return call('POST', BASE, { token: as, body: { name, description: 'Consents', archive: archive.toString('base64'), creationOption: 'Save & Deploy', ...extra } });
}

/** Asks for a pre-signed upload and PUTs the archive to it, as a client with a big bundle does. */
async function presignedUpload(archive: Buffer): Promise<string> {
  const started = await call('POST', `${BASE}/uploads`, { token });
  expect(started.status, started.text).toBe(201);
  const { uploadId, uploadUrl, uploadHeaders } = started.json;
  const put = await new Promise<number>((ok, fail) => {
    const u = new URL(uploadUrl);
    const req = request({ host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method: 'PUT', headers: { ...uploadHeaders, 'content-length': archive.length } }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end(archive);
  });
  expect(put).toBe(200);
  return uploadId as string;
}

/** A GET of the pages origin (another host on the runtime's port), without any token. */
function fromPagesOrigin(url: string, headers: Record<string, string> = {}) {
  const u = new URL(url);
  expect(u.hostname).toBe('pages.localhost');
  return call('GET', u.pathname, { host: u.host, headers });
}

describe('custom pages as the family uploads, reads and activates them', () => {
  it('uploads base64 JSON, lists versions, reads by name/version and id, activates, serves files without a token', async () => {
    const name = fresh();
    const first = await upload(name, await pageZip());
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({ name, version: 1, status: 'EDITABLE', creationOption: 'Save & Deploy', description: 'Consents' });
    const second = await upload(name, await pageZip(), { unknownMember: true, tenantId: 'demo' });
    expect(second.status, second.text).toBe(201);
    expect(second.json.version).toBe(2);
    expect(second.json.id).not.toBe(first.json.id);

    const versions = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?sort=version,desc&page=0&size=1`, { token });
    expect(versions.status, versions.text).toBe(200);
    expect(versions.json.content).toEqual([expect.objectContaining({ id: second.json.id, version: 2, status: 'EDITABLE' })]);
    expect(versions.json.last).toBe(false);

    const byVersion = await call('GET', `${BASE}/${encodeURIComponent(name)}/1`, { token });
    expect(byVersion.status).toBe(200);
    expect(byVersion.json.id).toBe(first.json.id);

    const byId = await call('GET', `${BASE}/${second.json.id}`, { token });
    expect(byId.status).toBe(200);
    expect(byId.json.archiveEntries).toEqual([{ path: '/css/app.css' }, { path: '/fonts/a.woff2' }, { path: '/img/logo.png' }, { path: '/index.html' }, { path: '/js/app.js' }]);
    expect(byId.json.previewUrl).toMatch(new RegExp(`^http://pages\\.localhost:${port}/tenants/demo/custom-pages/${second.json.id}/[0-9a-f]{32}/index\\.html$`));
    expect(byId.json.previewUrl).not.toBe(first.json.previewUrl);

    const all = await call('GET', `${BASE}?size=1000`, { token });
    expect(all.status).toBe(200);
    expect(all.json.content.filter((p: { name: string }) => p.name === name).map((p: { version: number }) => p.version)).toEqual([1, 2]);

    // Activate with each body variant the family's clients send.
    const none = await call('POST', `${BASE}/${second.json.id}/status/DEPLOYED_ACTIVE`, { token });
    expect(none.status, none.text).toBe(200);
    expect(none.json).toMatchObject({ status: 'DEPLOYED_ACTIVE', previewUrl: byId.json.previewUrl });
    const empty = await call('POST', `${BASE}/${second.json.id}/status/DEPLOYED_ACTIVE`, { token, body: {} });
    expect(empty.status).toBe(200);
    const object = await call('POST', `${BASE}/${first.json.id}/status/DEPLOYED_ACTIVE`, { token, body: first.json });
    expect(object.status, object.text).toBe(200);
    expect(object.json.status).toBe('DEPLOYED_ACTIVE');

    // The preview and every file, without a token, from the pages origin.
    const types: Record<string, string> = { '/index.html': 'text/html', '/css/app.css': 'text/css', '/js/app.js': 'text/javascript', '/img/logo.png': 'image/png', '/fonts/a.woff2': 'font/woff2' };
    const baseUrl = byId.json.baseUrl as string;
    expect(baseUrl.endsWith('/')).toBe(true);
    for (const { path } of byId.json.archiveEntries as { path: string }[]) {
      const file = await fromPagesOrigin(`${baseUrl}${path.slice(1)}`);
      expect(file.status, path).toBe(200);
      expect(String(file.headers['content-type'])).toContain(types[path]);
      expect(file.headers['x-content-type-options']).toBe('nosniff');
      expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const index = await fromPagesOrigin(byId.json.previewUrl);
    expect(index.text).toBe(INDEX);
    expect((await fromPagesOrigin(byId.json.previewUrl, { 'if-none-match': String(index.headers.etag) })).status).toBe(304);
  });

  it('takes a .tar.gz and a page that names a base app URL', async () => {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise((ok) => pack.on('end', ok));
    pack.entry({ name: 'index.html' }, INDEX);
    pack.finalize();
    await ended;
    const tgz = await upload(fresh(), gzipSync(Buffer.concat(chunks)));
    expect(tgz.status, tgz.text).toBe(201);
    expect(tgz.json.archiveEntries).toEqual([{ path: '/index.html' }]);

    const app = await call('POST', BASE, { token, body: { name: fresh(), baseAppUrl: 'https://pages.example.com/consent' } });
    expect(app.status, app.text).toBe(201);
    expect(app.json).toMatchObject({ baseAppUrl: 'https://pages.example.com/consent', previewUrl: 'https://pages.example.com/consent', archiveEntries: [] });
    const http = await call('POST', BASE, { token, body: { name: fresh(), baseAppUrl: 'http://pages.example.com/' } });
    expect(http.status).toBe(400);
  });

  it('uploads through a pre-signed URL, once', async () => {
    const uploadId = await presignedUpload(await pageZip());
    const name = fresh();
    const created = await call('POST', BASE, { token, body: { name, description: 'big', uploadId } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.archiveEntries).toHaveLength(5);
    expect((await fromPagesOrigin(created.json.previewUrl)).text).toBe(INDEX);
    const again = await call('POST', BASE, { token, body: { name, uploadId } });
    expect(again.status).toBe(400);
    expect(again.json.code).toBe('CUSTOM_PAGE_UPLOAD_UNUSABLE');
  });

  it('refuses every bundle rule with its own code', async () => {
    const cases: [string, Buffer][] = [
      ['BUNDLE_FILE_TYPE', await zipOf({ 'index.html': INDEX, 'run.sh': 'x' })],
      ['BUNDLE_NO_INDEX', await zipOf({ 'main.html': INDEX })],
      ['BUNDLE_UNSAFE_PATH', await zipOf({ 'index.html': INDEX, '../x.js': 'x' })],
      ['BUNDLE_BOMB', await zipOf({ 'index.html': INDEX, 'zeros.txt': new Uint8Array(3 * 1024 * 1024) })],
      ['BUNDLE_UNREADABLE', Buffer.from('garbage')],
      ['BUNDLE_EMPTY', await zipOf({})],
    ];
    for (const [code, archive] of cases) {
      const res = await upload(fresh(), archive);
      expect(res.status, code).toBe(400);
      expect(res.json.code).toBe(code);
    }
    const neither = await call('POST', BASE, { token, body: { name: fresh() } });
    expect(neither.json.code).toBe('CUSTOM_PAGE_CONTENT');
    const over = await call('POST', BASE, { token, body: { name: fresh(), archive: 'A'.repeat(6_100_000) } });
    expect(over.status).toBe(413);
    expect(over.json.code).toBe('CUSTOM_PAGE_BODY_TOO_LARGE');
    expect(over.json.message).toContain(`${BASE}/uploads`);
  });

  it('deletes the archive (the record stays), then the page; the files go', async () => {
    const created = await upload(fresh(), await pageZip());
    const preview = created.json.previewUrl as string;
    const cleared = await call('DELETE', `${BASE}/${created.json.id}/archive`, { token });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.json).toMatchObject({ archiveEntries: [], previewUrl: null });
    expect((await fromPagesOrigin(preview)).status).toBe(404);
    expect((await call('GET', `${BASE}/${created.json.id}`, { token })).status).toBe(200);
    expect((await call('DELETE', `${BASE}/${created.json.id}`, { token })).status).toBe(204);
    expect((await call('GET', `${BASE}/${created.json.id}`, { token })).json.code).toBe('CUSTOM_PAGE_NOT_FOUND');
  });

  it('deletes a page with its files at once', async () => {
    const created = await upload(fresh(), await pageZip());
    expect((await fromPagesOrigin(created.json.previewUrl)).status).toBe(200);
    expect((await call('DELETE', `${BASE}/${created.json.id}`, { token })).status).toBe(204);
    expect((await fromPagesOrigin(created.json.previewUrl)).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${created.json.id}`, { token })).status).toBe(404);
  });

  it('previews a bundle without a version, from base64 and from an upload', async () => {
    const fromBody = await call('POST', `${BASE}/previews`, { token, body: { name: 'ignored', archive: (await pageZip()).toString('base64') } });
    expect(fromBody.status, fromBody.text).toBe(201);
    expect(fromBody.json.archiveEntries).toHaveLength(5);
    expect((await fromPagesOrigin(fromBody.json.previewUrl)).text).toBe(INDEX);
    const fromUpload = await call('POST', `${BASE}/previews`, { token, body: { uploadId: await presignedUpload(await zipOf({ 'index.html': 'p' })) } });
    expect(fromUpload.status, fromUpload.text).toBe(201);
    expect((await fromPagesOrigin(fromUpload.json.previewUrl)).text).toBe('p');
    const refused = await call('POST', `${BASE}/previews`, { token, body: { archive: (await zipOf({ 'a.html': 'x' })).toString('base64') } });
    expect(refused.json.code).toBe('BUNDLE_NO_INDEX');
  });

  it('updates the description, and the content of a draft only', async () => {
    const created = await upload(fresh(), await pageZip());
    const updated = await call('POST', `${BASE}/${created.json.id}`, { token, body: { ...created.json, description: 'new', archive: (await zipOf({ 'index.html': 'v2' })).toString('base64') } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ description: 'new', archiveEntries: [{ path: '/index.html' }] });
    expect((await fromPagesOrigin(updated.json.previewUrl)).text).toBe('v2');
    expect((await fromPagesOrigin(created.json.previewUrl)).status).toBe(404);
    const viaUpload = await call('POST', `${BASE}/${created.json.id}`, { token, body: { uploadId: await presignedUpload(await zipOf({ 'index.html': 'v2b' })) } });
    expect(viaUpload.status, viaUpload.text).toBe(200);
    expect((await fromPagesOrigin(viaUpload.json.previewUrl)).text).toBe('v2b');
    await call('POST', `${BASE}/${created.json.id}/status/DEPLOYED_ACTIVE`, { token });
    const locked = await call('POST', `${BASE}/${created.json.id}`, { token, body: { archive: (await zipOf({ 'index.html': 'v3' })).toString('base64') } });
    expect(locked.status).toBe(400);
    expect(locked.json.code).toBe('INVALID_STATUS_TRANSITION');
  });

  it('keeps tenants apart and checks each permission', async () => {
    const created = await upload(fresh(), await pageZip());
    const other = await issueToken((await import('vitest')).inject('otherKey'), 'other');
    expect((await call('GET', `${BASE}/${created.json.id}`, { tenant: 'other', token: other })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${created.json.id}`, { tenant: 'other', token: other })).status).toBe(404);
    expect((await call('POST', `${BASE}/${created.json.id}/status/DEPLOYED_ACTIVE`, { tenant: 'other', token: other })).status).toBe(404);

    const reader = await issueToken((await keyWith(['ThemeServer:getCustomPages'])).secret);
    expect((await call('GET', `${BASE}/${created.json.id}`, { token: reader })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, { name: fresh(), baseAppUrl: 'https://a.example.com' }],
      ['POST', `${BASE}/uploads`, undefined],
      ['POST', `${BASE}/previews`, { baseAppUrl: 'https://a.example.com' }],
      ['POST', `${BASE}/${created.json.id}/status/DEPLOYED_ACTIVE`, undefined],
      ['POST', `${BASE}/${created.json.id}`, { description: 'x' }],
      ['DELETE', `${BASE}/${created.json.id}/archive`, undefined],
      ['DELETE', `${BASE}/${created.json.id}`, undefined],
    ] as const) {
      const res = await call(method, path, { token: reader, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    const writer = await issueToken((await keyWith(['ThemeServer:addCustomPage'])).secret);
    expect((await call('GET', `${BASE}/${created.json.id}`, { token: writer })).status).toBe(403);
  });

  it('serves nothing else from the pages origin', async () => {
    const created = await upload(fresh(), await pageZip());
    const u = new URL(created.json.baseUrl);
    expect((await call('GET', u.pathname, { host: u.host })).status).toBe(404);
    expect((await call('GET', `${u.pathname}nope.js`, { host: u.host })).status).toBe(404);
    expect((await call('GET', u.pathname.replace(/[0-9a-f]{32}/, '0'.repeat(32)) + 'index.html', { host: u.host })).status).toBe(404);
    // The API is not on the pages origin, and the pages are not on a tenant's.
    expect((await call('GET', BASE, { host: u.host, token })).status).toBe(404);
    expect((await call('GET', `${u.pathname}index.html`, { token })).status).toBe(404);
  });
});
