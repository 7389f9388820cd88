import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { MAX_ASSETS_PER_THEME } from '../../../functions/theme-server/assets.js';
import type { ThemeAsset, ThemeAssetStore, ThemeRecord, ThemeStore } from '../../../functions/theme-server/model.js';
import { checkThemeReference } from '../../../functions/theme-server/theme-references.js';
import { addTheme, addThemeAsset, publicAsset, resolveTheme, setThemeStatus, themeView, updateTheme } from '../../../functions/theme-server/themes.js';

/** The store's contract in memory: versions by id, conditional updates on revision and status. */
function memoryStore() {
  const byId = new Map<string, ThemeRecord>();
  const store: Pick<ThemeStore, 'create' | 'latestVersion' | 'get' | 'update' | 'setStatus'> = {
    async create(r) {
      if ([...byId.values()].some((x) => x.tenantId === r.tenantId && x.name === r.name && x.version === r.version)) return false;
      byId.set(r.id, structuredClone(r));
      return true;
    },
    async latestVersion(t, name) {
      const versions = [...byId.values()].filter((x) => x.tenantId === t && x.name === name).map((x) => x.version);
      return versions.length ? Math.max(...versions) : undefined;
    },
    async get(t, id) {
      const r = byId.get(id);
      return r && r.tenantId === t ? structuredClone(r) : undefined;
    },
    async update(r) {
      const stored = byId.get(r.id);
      if (!stored) return 'gone';
      if (stored.revision !== r.revision - 1 || stored.status !== r.status) return 'changed';
      byId.set(r.id, structuredClone(r));
      return 'updated';
    },
    async setStatus(r, from, to) {
      const stored = byId.get(r.id);
      if (!stored) return { outcome: 'gone' };
      if (stored.status !== from) return { outcome: 'changed' };
      stored.status = to;
      return { outcome: 'updated' };
    },
  };
  const objects = new Map<string, Buffer>();
  const assets: ThemeAssetStore = {
    async put(t, id, a, bytes) {
      objects.set(`${t}/${id}/${a.secret}`, bytes);
    },
    async get(t, id, a) {
      return objects.get(`${t}/${id}/${a.secret}`);
    },
  };
  return { store, assets, objects };
}

const ctx = (tenantId = 'demo') => ({ tenantId, actor: 'apikey:k', now: new Date('2026-11-28T06:00:00Z') });
const png = () => {
  const image = new PNG({ width: 1, height: 1 });
  return PNG.sync.write(image).toString('base64');
};
const FONT = Buffer.concat([Buffer.from('wOF2'), Buffer.alloc(60)]).toString('base64');

async function refused(p: Promise<unknown>) {
  return p.then(
    () => {
      throw new Error('not refused');
    },
    (err: { code: string; statusCode: number; details?: { location: string; message: string }[] }) => err,
  );
}

describe('addTheme', () => {
  it('adds the next version of a name each time, EDITABLE by default, with the palette as sent', async () => {
    const { store } = memoryStore();
    const palette = { header: { backgroundColor: '#0b1f4d', textColor: '#ffffff' }, familyOnly: { x: 1 } };
    const first = await addTheme(store, { name: 'Brand', palette }, ctx());
    const second = await addTheme(store, { name: 'Brand', description: 'again' }, ctx());
    expect([first.version, second.version]).toEqual([1, 2]);
    expect(first).toMatchObject({ status: 'EDITABLE', palette, assets: [], revision: 0 });
    expect(second.id).not.toBe(first.id);
  });

  it('refuses a palette under AA with each failing pair, its colours and ratio, and stores nothing', async () => {
    const { store } = memoryStore();
    const err = await refused(addTheme(store, { name: 'Pale', palette: { buttons: { primaryBackgroundColor: '#ffcc00', primaryTextColor: '#ffffff' } } }, ctx()));
    expect(err).toMatchObject({ code: 'PALETTE_CONTRAST', statusCode: 400 });
    expect(err.details).toEqual([
      { location: 'body.palette.buttons.primaryTextColor', message: expect.stringMatching(/^buttons\.primaryTextColor #ffffff on buttons\.primaryBackgroundColor #ffcc00: 1\.\d+:1, under the 4\.5:1 AA asks$/) },
    ]);
    expect(await store.latestVersion('demo', 'Pale')).toBeUndefined();
  });
});

describe('updateTheme', () => {
  it("takes the /all JSON's description and palette, checks the palette, and counts the revision", async () => {
    const { store } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx());
    const updated = await updateTheme(store, { id: theme.id, description: 'New', palette: { text: { linkColor: '#0b5394' } } }, ctx());
    expect(updated).toMatchObject({ description: 'New', palette: { text: { linkColor: '#0b5394' } }, revision: 1 });
    expect(await refused(updateTheme(store, { id: theme.id, palette: { text: { linkColor: '#8ab4f8' } } }, ctx()))).toMatchObject({ code: 'PALETTE_CONTRAST' });
  });

  it('refuses a deployed version: journeys show it', async () => {
    const { store } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx());
    await setThemeStatus(store, { ...ctx(), id: theme.id, status: 'DEPLOYED_ACTIVE' });
    expect(await refused(updateTheme(store, { id: theme.id, description: 'x' }, ctx()))).toMatchObject({ code: 'THEME_NOT_EDITABLE', statusCode: 409 });
  });

  it('lets one of two updates made from the same read win; the other is 409 CONCURRENT_UPDATE', async () => {
    const { store } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx());
    const outcomes = await Promise.allSettled([
      updateTheme(store, { id: theme.id, description: 'one' }, ctx()),
      updateTheme(store, { id: theme.id, description: 'two' }, ctx()),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'CONCURRENT_UPDATE' });
  });

  it("answers 404 for another tenant's theme", async () => {
    const { store } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx('acme'));
    expect(await refused(updateTheme(store, { id: theme.id, description: 'x' }, ctx('demo')))).toMatchObject({ code: 'THEME_NOT_FOUND', statusCode: 404 });
  });
});

describe('addThemeAsset', () => {
  it('stores the bytes under a new secret and names the asset on the version; the same name replaces it', async () => {
    const { store, assets, objects } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx());
    const one = await addThemeAsset({ themes: store, assets }, { id: theme.id, name: 'logo', fileExtension: 'png', assetResource: png() }, ctx());
    const [first] = one.assets as [ThemeAsset];
    expect(first).toMatchObject({ name: 'logo', fileExtension: 'png', contentType: 'image/png', kind: 'image' });
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const two = await addThemeAsset({ themes: store, assets }, { id: theme.id, name: 'logo', fileExtension: 'png', assetResource: png() }, ctx());
    expect(two.assets).toHaveLength(1);
    expect(two.assets[0]!.secret).not.toBe(first.secret);
    expect(objects.size).toBe(2);
  });

  it(`takes ${MAX_ASSETS_PER_THEME} assets and refuses one more, but still takes a replacement`, async () => {
    const { store, assets } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx());
    for (let i = 0; i < MAX_ASSETS_PER_THEME; i++) {
      await addThemeAsset({ themes: store, assets }, { id: theme.id, name: `font-${i}`, fileExtension: 'woff2', assetResource: FONT }, ctx());
    }
    expect(await refused(addThemeAsset({ themes: store, assets }, { id: theme.id, name: 'one-more', fileExtension: 'woff2', assetResource: FONT }, ctx()))).toMatchObject({
      code: 'THEME_ASSET_LIMIT',
      statusCode: 409,
    });
    const replaced = await addThemeAsset({ themes: store, assets }, { id: theme.id, name: 'font-3', fileExtension: 'woff2', assetResource: FONT }, ctx());
    expect(replaced.assets).toHaveLength(MAX_ASSETS_PER_THEME);
  });

  it('refuses what is not base64, and a deployed version', async () => {
    const { store, assets } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx());
    expect(await refused(addThemeAsset({ themes: store, assets }, { id: theme.id, name: 'logo', fileExtension: 'png', assetResource: 'not base64!' }, ctx()))).toMatchObject({
      code: 'INVALID_THEME_ASSET',
      details: [{ location: 'body.assetResource' }],
    });
    await setThemeStatus(store, { ...ctx(), id: theme.id, status: 'DEPLOYED_ACTIVE' });
    expect(await refused(addThemeAsset({ themes: store, assets }, { id: theme.id, name: 'logo', fileExtension: 'png', assetResource: png() }, ctx()))).toMatchObject({
      code: 'THEME_NOT_EDITABLE',
    });
  });
});

describe('publicAsset', () => {
  it('finds an asset only by its theme, secret and exact file name, in its own tenant', async () => {
    const { store, assets } = memoryStore();
    const theme = await addThemeAsset(
      { themes: store, assets },
      { id: (await addTheme(store, { name: 'Brand' }, ctx())).id, name: 'Brand Logo', fileExtension: 'png', assetResource: png() },
      ctx(),
    );
    const a = theme.assets[0]!;
    const d = { themes: store, assets };
    expect((await publicAsset(d, 'demo', { themeId: theme.id, assetSecret: a.secret, file: 'Brand Logo.png' })).asset.name).toBe('Brand Logo');
    expect((await publicAsset(d, 'demo', { themeId: theme.id, assetSecret: a.secret, file: 'Brand%20Logo.png' })).bytes.length).toBeGreaterThan(0);
    for (const [tenant, path] of [
      ['demo', { themeId: theme.id, assetSecret: a.secret, file: 'Brand Logo.svg' }],
      ['demo', { themeId: theme.id, assetSecret: 'A'.repeat(22), file: 'Brand Logo.png' }],
      ['acme', { themeId: theme.id, assetSecret: a.secret, file: 'Brand Logo.png' }],
    ] as const) {
      expect(await refused(publicAsset(d, tenant, path))).toMatchObject({ code: 'THEME_ASSET_NOT_FOUND', statusCode: 404 });
    }
  });
});

describe('resolveTheme (the screens\' interface)', () => {
  it('gives every colour, the font faces with their formats, the chosen font and the logo, by origin-relative paths', async () => {
    const { store, assets } = memoryStore();
    let theme = await addTheme(store, { name: 'Brand', palette: { general: { fontFamily: 'Brand Bold' }, header: { backgroundColor: '#0b1f4d', textColor: '#ffffff' } } }, ctx());
    for (const [name, ext, data] of [
      ['Brand Regular', 'woff2', FONT],
      ['Brand Bold', 'woff2', FONT],
      ['icon', 'png', png()],
      ['Logo', 'png', png()],
    ] as const) {
      theme = await addThemeAsset({ themes: store, assets }, { id: theme.id, name, fileExtension: ext, assetResource: data }, ctx());
    }
    const resolved = resolveTheme(theme);
    expect(resolved.palette.header).toEqual({ backgroundColor: '#0b1f4d', textColor: '#ffffff' });
    expect(resolved.palette.buttons.primaryBackgroundColor).toBe('#1d4ed8');
    expect(resolved.fontFamily).toBe('Brand Bold');
    expect(resolved.fonts.map((f) => [f.family, f.format])).toEqual([
      ['Brand Regular', 'woff2'],
      ['Brand Bold', 'woff2'],
    ]);
    expect(resolved.fonts[0]!.url).toMatch(new RegExp(`^/themes/${theme.id}/assets/[A-Za-z0-9_-]{22}/Brand%20Regular\\.woff2$`));
    expect(resolved.logo).toMatchObject({ name: 'Logo', contentType: 'image/png', url: expect.stringMatching(/^\/themes\/.+\/Logo\.png$/) });
    expect(themeView(theme, 'http://demo.fir.localhost:8080').assets.global.map((g) => g.path)).toEqual(
      theme.assets.map((a) => expect.stringMatching(new RegExp(`^http://demo\\.fir\\.localhost:8080/themes/${theme.id}/assets/${a.secret}/`))),
    );
  });
});

describe('checkThemeReference', () => {
  it('takes no theme, or a theme of the tenant that is not ARCHIVED; refuses anything else with UNKNOWN_THEME on body.themeId', async () => {
    const { store } = memoryStore();
    const theme = await addTheme(store, { name: 'Brand' }, ctx());
    await checkThemeReference(store, 'demo', null);
    await checkThemeReference(store, 'demo', theme.id);
    for (const [tenant, id] of [
      ['acme', theme.id],
      ['demo', '3b241101-e2bb-4255-8caf-4136c566a962'],
      ['demo', 'brand'],
    ] as const) {
      expect(await refused(checkThemeReference(store, tenant, id))).toMatchObject({ code: 'UNKNOWN_THEME', statusCode: 400, details: [{ location: 'body.themeId' }] });
    }
    await setThemeStatus(store, { ...ctx(), id: theme.id, status: 'ARCHIVED' });
    expect((await refused(checkThemeReference(store, 'demo', theme.id))).details![0]!.message).toMatch(/ARCHIVED/);
  });
});
