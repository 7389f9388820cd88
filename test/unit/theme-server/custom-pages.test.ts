import { beforeEach, describe, expect, it, vi } from 'vitest';
import { TextReader, Uint8ArrayWriter, ZipWriter, configure } from '@zip.js/zip.js';
import { addCustomPage, decodeBase64, startCustomPageUpload, updateCustomPage } from '../../../functions/theme-server/custom-pages.js';
import { customPageUrls, findCustomPage } from '../../../functions/theme-server/custom-page-reader.js';
import type { CustomPageRecord, CustomPageStore, CustomPageUpload, PageFileStore } from '../../../functions/theme-server/model.js';

configure({ useWebWorkers: false });

async function zipB64(files: Record<string, string>): Promise<string> {
  const w = new ZipWriter(new Uint8ArrayWriter(), { useWebWorkers: false });
  for (const [n, c] of Object.entries(files)) await w.add(n, new TextReader(c));
  return Buffer.from(await w.close()).toString('base64');
}

/** In-memory stand-ins with the stores' contracts (a name + version once; uploads taken once). */
function fakes() {
  const records = new Map<string, CustomPageRecord>();
  const uploads = new Map<string, CustomPageUpload>();
  const pages = {
    create: vi.fn(async (r: CustomPageRecord) => {
      if ([...records.values()].some((x) => x.name === r.name && x.version === r.version)) return false;
      records.set(r.id, r);
      return true;
    }),
    get: async (_t: string, id: string) => records.get(id),
    getVersion: async (_t: string, name: string, version: number) => [...records.values()].find((r) => r.name === name && r.version === version),
    latestVersion: async (_t: string, name: string) => Math.max(0, ...[...records.values()].filter((r) => r.name === name).map((r) => r.version)) || undefined,
    versionsOf: (_t: string, name: string) => ({
      read: async (o: { descending: boolean }) => {
        const rows = [...records.values()].filter((r) => r.name === name).sort((a, b) => (o.descending ? b.version - a.version : a.version - b.version));
        return { rows: rows.map((record) => ({ record, at: String(record.version) })), done: true };
      },
      isPosition: () => true,
      count: async () => ({ count: records.size, capped: false }),
    }),
    replace: vi.fn(async (r: CustomPageRecord, expected: string) => {
      const now = records.get(r.id);
      if (!now) return { outcome: 'gone' as const };
      if (now.lastUpdatedDtm !== expected) return { outcome: 'changed' as const };
      records.set(r.id, r);
      return { outcome: 'updated' as const };
    }),
    remove: vi.fn(async (r: { id: string }) => records.delete(r.id)),
    putUpload: async (u: CustomPageUpload) => void uploads.set(u.uploadId, u),
    takeUpload: async (_t: string, id: string) => {
      const u = uploads.get(id);
      uploads.delete(id);
      return u;
    },
  } as unknown as CustomPageStore & { create: ReturnType<typeof vi.fn>; remove: ReturnType<typeof vi.fn> };
  const files = {
    putFiles: vi.fn(async () => undefined),
    deleteFiles: vi.fn(async () => 0),
    deleteNamed: vi.fn(async () => undefined),
    deleteFolder: vi.fn(async () => 0),
    uploadUrl: vi.fn(async () => ({ url: 'https://bucket.example/u', headers: { 'Content-Type': 'application/octet-stream' } })),
    takeUploadedArchive: vi.fn(async (): Promise<Buffer | 'tooLarge' | undefined> => undefined),
  } satisfies PageFileStore;
  return { pages, files, records };
}

const ctx = (now = new Date('2026-03-14T09:00:00Z')) => ({ tenantId: 'demo', actor: 'apikey:k', now });

beforeEach(() => {
  process.env.PAGES_ORIGIN = 'https://pages.example.net';
  process.env.TABLE_NAME ??= 'unit';
});

describe('addCustomPage', () => {
  it('numbers versions, gives each a new id and folder, and writes its files', async () => {
    const deps = fakes();
    const archive = await zipB64({ 'index.html': 'x' });
    const a = await addCustomPage(deps, { name: 'Consents', archive }, ctx());
    const b = await addCustomPage(deps, { name: 'Consents', archive, creationOption: 'Save & Deploy' }, ctx());
    expect([a.version, b.version, b.status, b.creationOption]).toEqual([1, 2, 'EDITABLE', 'Save & Deploy']);
    expect(a.id).not.toBe(b.id);
    expect(a.servingSecret).toMatch(/^[0-9a-f]{32}$/);
    expect(a.servingSecret).not.toBe(b.servingSecret);
    expect(deps.files.putFiles).toHaveBeenCalledWith('demo', b.id, b.servingSecret, [expect.objectContaining({ path: '/index.html', contentType: 'text/html; charset=utf-8' })]);
  });

  it('undoes the version when its files cannot be written', async () => {
    const deps = fakes();
    deps.files.putFiles.mockRejectedValueOnce(new Error('S3 down'));
    await expect(addCustomPage(deps, { name: 'P', archive: await zipB64({ 'index.html': 'x' }) }, ctx())).rejects.toThrow('S3 down');
    expect(deps.records.size).toBe(0);
    expect(deps.files.deleteNamed).toHaveBeenCalledWith('demo', expect.any(String), expect.stringMatching(/^[0-9a-f]{32}$/), ['/index.html']);
  });

  it('takes exactly one content', async () => {
    const deps = fakes();
    await expect(addCustomPage(deps, { name: 'P' }, ctx())).rejects.toMatchObject({ code: 'CUSTOM_PAGE_CONTENT' });
    await expect(addCustomPage(deps, { name: 'P', archive: 'UEs=', baseAppUrl: 'https://a.example' }, ctx())).rejects.toMatchObject({ code: 'CUSTOM_PAGE_CONTENT' });
  });

  it('refuses an expired or unknown upload, and one never PUT', async () => {
    const deps = fakes();
    const started = await startCustomPageUpload(deps, ctx());
    await expect(addCustomPage(deps, { name: 'P', uploadId: started.uploadId }, ctx(new Date('2026-03-14T09:16:00Z')))).rejects.toMatchObject({ code: 'CUSTOM_PAGE_UPLOAD_UNUSABLE' });
    const again = await startCustomPageUpload(deps, ctx());
    await expect(addCustomPage(deps, { name: 'P', uploadId: again.uploadId }, ctx())).rejects.toMatchObject({ code: 'CUSTOM_PAGE_UPLOAD_UNUSABLE' });
    await expect(addCustomPage(deps, { name: 'P', uploadId: again.uploadId }, ctx())).rejects.toMatchObject({ code: 'CUSTOM_PAGE_UPLOAD_UNUSABLE' });
  });
});

describe('updateCustomPage', () => {
  it('replaces a draft\'s files in a new folder and deletes the old one; refuses a deployed one\'s', async () => {
    const deps = fakes();
    const page = await addCustomPage(deps, { name: 'P', archive: await zipB64({ 'index.html': 'x' }) }, ctx());
    const next = await updateCustomPage(deps, page.id, { archive: await zipB64({ 'index.html': 'y' }) }, ctx(new Date('2026-03-14T09:01:00Z')));
    expect(next.servingSecret).not.toBe(page.servingSecret);
    expect(deps.files.deleteFolder).toHaveBeenCalledWith('demo', page.id, page.servingSecret);
    deps.records.set(page.id, { ...deps.records.get(page.id)!, status: 'DEPLOYED_ACTIVE' });
    await expect(updateCustomPage(deps, page.id, { archive: await zipB64({ 'index.html': 'z' }) }, ctx())).rejects.toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
    const described = await updateCustomPage(deps, page.id, { description: 'new' }, ctx(new Date('2026-03-14T09:02:00Z')));
    expect(described.description).toBe('new');
  });
});

describe('decodeBase64', () => {
  it('takes the family\'s base64, a data URL and line breaks; refuses what is not base64', () => {
    expect(decodeBase64('aGk=').toString()).toBe('hi');
    expect(decodeBase64('data:application/zip;base64,aG\nk=').toString()).toBe('hi');
    expect(() => decodeBase64('not base64!')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});

describe('the read interface', () => {
  it('gives a bundle version\'s origin, folder and index on the pages origin', () => {
    const urls = customPageUrls({ tenantId: 'demo', id: '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30', baseAppUrl: null, servingSecret: 'a'.repeat(32) });
    expect(urls).toEqual({
      origin: 'https://pages.example.net',
      baseUrl: `https://pages.example.net/tenants/demo/custom-pages/0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30/${'a'.repeat(32)}/`,
      indexUrl: `https://pages.example.net/tenants/demo/custom-pages/0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30/${'a'.repeat(32)}/index.html`,
    });
    expect(customPageUrls({ tenantId: 'demo', id: 'x', baseAppUrl: 'https://app.example.com/p', servingSecret: null })).toEqual({
      origin: 'https://app.example.com',
      baseUrl: 'https://app.example.com/p/',
      indexUrl: 'https://app.example.com/p',
    });
    expect(customPageUrls({ tenantId: 'demo', id: 'x', baseAppUrl: null, servingSecret: null })).toBeUndefined();
  });

  it('finds a named version, or the latest active one; says when archived or without files', async () => {
    const deps = fakes();
    const archive = await zipB64({ 'index.html': 'x' });
    const v1 = await addCustomPage(deps, { name: 'P', archive, status: 'DEPLOYED_ACTIVE' }, ctx());
    const v2 = await addCustomPage(deps, { name: 'P', archive }, ctx());
    expect(await findCustomPage(deps.pages, 'demo', 'P', 2)).toMatchObject({ outcome: 'found', record: { id: v2.id } });
    expect(await findCustomPage(deps.pages, 'demo', 'P', undefined)).toMatchObject({ outcome: 'found', record: { id: v1.id } });
    expect(await findCustomPage(deps.pages, 'demo', 'P', 3)).toEqual({ outcome: 'missing' });
    deps.records.set(v2.id, { ...v2, status: 'ARCHIVED' });
    expect((await findCustomPage(deps.pages, 'demo', 'P', 2)).outcome).toBe('archived');
    deps.records.set(v1.id, { ...v1, servingSecret: null, archiveEntries: [] });
    expect((await findCustomPage(deps.pages, 'demo', 'P', 1)).outcome).toBe('noFiles');
  });
});
