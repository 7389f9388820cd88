import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminToken, call, exampleNamed, issueToken, keyWith } from './client.js';

const BASE = '/api/theme-server/themes';
const FONT = readFileSync(join(import.meta.dirname, '../../node_modules/bpmn-js/dist/assets/bpmn-font/font/bpmn.woff2'));
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const fresh = () => `theme-${Math.random().toString(36).slice(2, 10)}`;

function png(): Buffer {
  const image = new PNG({ width: 4, height: 4 });
  image.data.fill(120);
  return PNG.sync.write(image);
}

/** A palette as a designer exports it: some areas, members this service does not paint, an area it does not know. */
const PALETTE = {
  general: { backgroundColor: '#ffffff', primaryColor: '#0b5394', cornerStyle: 'rounded' },
  buttons: { primaryBackgroundColor: '#0b5394', primaryTextColor: '#ffffff' },
  header: { backgroundColor: '#0b1f4d', textColor: '#ffffff' },
  progressBar: { fillColor: '#0b5394', trackColor: '#d9e2ef' },
  familyWidgets: { spinner: '#0b5394' },
};

/** The family's first step (theme_manager.py: palette, status EDITABLE, description, name). */
async function create(name: string, palette: Record<string, unknown> = PALETTE) {
  const res = await call('POST', BASE, { token, body: { palette, status: 'EDITABLE', description: 'Our brand', name } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function addAsset(id: string, name: string, ext: string, bytes: Buffer, contentType = `image/${ext}`) {
  // The family's path, with its trailing slash.
  return call('POST', `${BASE}/${id}/assets/`, { token, body: { name, contentType, fileExtension: ext, assetResource: bytes.toString('base64') } });
}

/** GET an absolute asset URL as the family's tools do: no token at all. */
function fetchPublic(url: string) {
  const u = new URL(url);
  return call('GET', `${u.pathname}${u.search}`, { host: u.host });
}

describe('themes as the family deploys them', () => {
  it('creates, adds assets, updates with the /all JSON, activates, and serves assets without a token', async () => {
    const name = fresh();
    const created = await create(name);
    expect(created).toMatchObject({ name, version: 1, status: 'EDITABLE', description: 'Our brand', palette: PALETTE, assets: { global: [] } });
    const id = created.id as string;

    const logo = await addAsset(id, 'logo', 'png', png());
    expect(logo.status, logo.text).toBe(201);
    // The family's migration tool sends font/ttf for any font (and names assets by splitext): the bytes decide.
    const font = await addAsset(id, 'brand-font', 'woff2', FONT, 'font/ttf');
    expect(font.status, font.text).toBe(201);

    const all = await call('GET', `${BASE}/${id}/all`, { token });
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ id, name, version: 1, description: 'Our brand', palette: PALETTE });
    const assets = all.json.assets.global as { name: string; path: string }[];
    expect(assets.map((a) => a.name).sort()).toEqual(['brand-font', 'logo']);
    for (const a of assets) expect(a.path).toMatch(new RegExp(`^http://demo\\.fir\\.localhost:\\d+/themes/${id}/assets/[A-Za-z0-9_-]{22}/${a.name}\\.(png|woff2)$`));

    // Without a token, as the family's tools download them (urllib, requests.get).
    const logoUrl = assets.find((a) => a.name === 'logo')!.path;
    const got = await fetchPublic(logoUrl);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(got.headers['content-security-policy']).toMatch(/sandbox/);
    expect(got.headers['access-control-allow-origin']).toBe('*');
    expect(got.raw.equals(png())).toBe(true);
    const fontGot = await fetchPublic(assets.find((a) => a.name === 'brand-font')!.path);
    expect(fontGot.headers['content-type']).toBe('font/woff2');
    expect(fontGot.raw.equals(FONT)).toBe(true);

    // Step 3 of theme_manager.py: the whole /all JSON back (its id, version, assets and all).
    const changedPalette = { ...PALETTE, text: { linkColor: '#0b5394' } };
    const update = await call('POST', `${BASE}/${id}`, { token, body: { ...all.json, palette: changedPalette, description: 'Our brand, v2' } });
    expect(update.status, update.text).toBe(200);
    expect(update.json).toMatchObject({ id, version: 1, description: 'Our brand, v2', palette: changedPalette });
    expect(update.json.assets.global).toEqual(all.json.assets.global);

    // Step 4: activate with an empty object; the answer's id is what definitions get as themeId.
    const active = await call('POST', `${BASE}/${id}/status/DEPLOYED_ACTIVE`, { token, body: {} });
    expect(active.status, active.text).toBe(200);
    expect(active.json).toMatchObject({ id, status: 'DEPLOYED_ACTIVE' });

    // A deployed version no longer changes: the next version of the name does.
    const late = await call('POST', `${BASE}/${id}`, { token, body: { palette: PALETTE } });
    expect(late.status).toBe(409);
    expect(late.json.code).toBe('THEME_NOT_EDITABLE');
    expect((await addAsset(id, 'logo', 'png', png())).json.code).toBe('THEME_NOT_EDITABLE');
  });

  it('reads leniently: a null palette and description, an asset name with dots, a MIME type it cannot know', async () => {
    const res = await call('POST', BASE, { token, body: { name: fresh(), palette: null, description: null, status: 'EDITABLE', tenantId: 'demo', assets: { global: [] } } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ palette: {}, description: '' });
    const dotted = await addAsset(res.json.id, 'Roboto-Regular.v2', 'ttf', readFileSync(join(import.meta.dirname, '../../node_modules/bpmn-js/dist/assets/bpmn-font/font/bpmn.ttf')), 'application/octet-stream');
    expect(dotted.status, dotted.text).toBe(201);
    const path = dotted.json.assets.global[0].path as string;
    expect(path).toMatch(/\/Roboto-Regular\.v2\.ttf$/);
    const got = await fetchPublic(path);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('font/ttf');
  });

  it('lists themes and versions as the family reads the latest (page=0&size=1&sort=version,desc)', async () => {
    const name = fresh();
    const v1 = await create(name);
    const v2 = await create(name);
    expect(v2.version).toBe(2);
    const latest = await call('GET', `${BASE}/${name}/versions?page=0&size=1&sort=version,desc`, { token });
    expect(latest.status).toBe(200);
    expect(latest.json.content).toEqual([expect.objectContaining({ id: v2.id, version: 2, status: 'EDITABLE' })]);
    expect(latest.json.last).toBe(false);
    const list = await call('GET', `${BASE}?size=1000`, { token });
    expect(list.status).toBe(200);
    const ours = (list.json.content as { id: string }[]).filter((t) => [v1.id, v2.id].includes(t.id));
    expect(ours.map((t) => t.id)).toEqual([v1.id, v2.id]);
    expect(list.json.content[0]).not.toHaveProperty('palette');
    const sorted = await call('GET', `${BASE}?sort=createdDtm,desc&size=1`, { token });
    expect(sorted.status).toBe(200);
    expect(sorted.json.content).toHaveLength(1);
  });

  it('refuses a palette under AA contrast with each failing pair and its ratio', async () => {
    const res = await call('POST', BASE, {
      token,
      body: { name: fresh(), status: 'EDITABLE', palette: { text: { primaryColor: '#777777' }, buttons: { primaryBackgroundColor: '#ffcc00', primaryTextColor: '#ffffff' } } },
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('PALETTE_CONTRAST');
    const locations = (res.json.details as { location: string; message: string }[]).map((d) => d.location).sort();
    expect(locations).toEqual(['body.palette.buttons.primaryTextColor', 'body.palette.text.primaryColor', 'body.palette.text.primaryColor']);
    expect(res.json.details.find((d: { message: string }) => /general\.surfaceColor/.test(d.message)).message).toMatch(/#777777 on general\.surfaceColor #ffffff: 4\.47:1, under the 4\.5:1/);
    const bad = await call('POST', BASE, { token, body: { name: fresh(), palette: { header: { textColor: 'white' } } } });
    expect(bad.status).toBe(400);
    expect(bad.json.details[0].location).toBe('body.palette.header.textColor');
  });

  it('refuses an asset that is not what it says, an unsafe SVG, and one over 1 MiB', async () => {
    const { id } = await create(fresh());
    const lie = await addAsset(id, 'logo', 'png', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    expect(lie.status).toBe(400);
    expect(lie.json.code).toBe('INVALID_THEME_ASSET');
    const script = await addAsset(id, 'logo', 'svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml');
    expect(script.status).toBe(400);
    expect(script.json.details[0].message).toMatch(/script/);
    const big = await addAsset(id, 'big', 'png', Buffer.concat([png(), Buffer.alloc(1024 * 1024)]));
    expect(big.status).toBe(400);
    expect(big.json.code).toBe('INVALID_THEME_ASSET');
    const svg = await addAsset(id, 'mark', 'svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><circle r="4" fill="#0b5394"/></svg>'), 'image/svg');
    expect(svg.status, svg.text).toBe(201);
    const got = await fetchPublic(svg.json.assets.global[0].path);
    expect(got.headers['content-type']).toBe('image/svg+xml');
    expect(got.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
  });

  it('answers 404 for an asset URL that names nothing, and a replaced asset\'s old URL', async () => {
    const { id } = await create(fresh());
    const first = (await addAsset(id, 'logo', 'png', png())).json.assets.global[0].path as string;
    const second = (await addAsset(id, 'logo', 'png', png())).json.assets.global[0].path as string;
    expect(second).not.toBe(first);
    expect((await fetchPublic(first)).status).toBe(404);
    expect((await fetchPublic(second)).status).toBe(200);
    expect((await fetchPublic(second.replace(/logo\.png$/, 'logo.svg'))).status).toBe(404);
    expect((await fetchPublic(second.replace(/\/assets\/[^/]+\//, `/assets/${'A'.repeat(22)}/`))).status).toBe(404);
    // Another tenant's host does not serve it.
    const other = new URL(second);
    other.host = other.host.replace(/^demo\./, 'other.');
    expect((await fetchPublic(other.toString())).status).toBe(404);
  });
});

describe('themes and definitions', () => {
  it('publishes a definition naming a theme, and its instances answer themeUrl, readable without a token', async () => {
    const theme = await create(fresh());
    await addAsset(theme.id, 'logo', 'png', png());
    await call('POST', `${BASE}/${theme.id}/status/DEPLOYED_ACTIVE`, { token });
    const name = fresh();
    const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: { ...exampleNamed(name), themeId: theme.id } });
    expect(published.status, published.text).toBe(201);
    expect(published.json.themeId).toBe(theme.id);
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `${name}-pt`, processDefnName: name, processDefnVersion: '1', parameters: { firstName: 'Ada' } },
    });
    expect(pt.status, pt.text).toBe(201);
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(created.status, created.text).toBe(201);
    expect(created.json.themeUrl).toMatch(new RegExp(`^http://demo\\.fir\\.localhost:\\d+/themes/${theme.id}/theme\\.json$`));
    const themeJson = await fetchPublic(created.json.themeUrl);
    expect(themeJson.status).toBe(200);
    expect(themeJson.headers['access-control-allow-origin']).toBe('*');
    expect(themeJson.json).toMatchObject({ id: theme.id, name: theme.name, version: 1, palette: PALETTE });
    expect(themeJson.json.resolved.palette.header).toEqual({ backgroundColor: '#0b1f4d', textColor: '#ffffff' });
    expect(themeJson.json.resolved.logo.url).toBe(themeJson.json.assets.global[0].path);
    expect((await fetchPublic(themeJson.json.resolved.logo.url)).status).toBe(200);
  });

  it('refuses a definition naming an unknown theme, or another tenant\'s, with UNKNOWN_THEME', async () => {
    const otherToken = await issueToken(inject('otherKey'), 'other');
    const foreign = await call('POST', BASE, { tenant: 'other', token: otherToken, body: { name: fresh(), palette: PALETTE } });
    expect(foreign.status, foreign.text).toBe(201);
    for (const themeId of ['3b241101-e2bb-4255-8caf-4136c566a962', foreign.json.id, 'our-brand']) {
      const res = await call('POST', '/api/process-manager/processDefinitions', { token, body: { ...exampleNamed(fresh()), themeId } });
      expect(res.status, themeId).toBe(400);
      expect(res.json.code).toBe('UNKNOWN_THEME');
      expect(res.json.details[0].location).toBe('body.themeId');
    }
  });
});

describe('theme permissions and tenancy', () => {
  it("answers 404 for another tenant's theme on every operation", async () => {
    const otherToken = await issueToken(inject('otherKey'), 'other');
    const { id } = await create(fresh());
    for (const [method, path, body] of [
      ['GET', `${BASE}/${id}/all`, undefined],
      ['POST', `${BASE}/${id}`, { palette: PALETTE }],
      ['POST', `${BASE}/${id}/assets/`, { name: 'logo', fileExtension: 'png', assetResource: png().toString('base64') }],
      ['POST', `${BASE}/${id}/status/DEPLOYED_ACTIVE`, undefined],
    ] as const) {
      const res = await call(method, path, { tenant: 'other', token: otherToken, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.code).toBe('THEME_NOT_FOUND');
    }
    expect((await call('GET', `/themes/${id}/theme.json`, { tenant: 'other' })).status).toBe(404);
  });

  it('holds each operation to its permission: a read-only key reads, and changes nothing', async () => {
    const { id } = await create(fresh());
    const reader = await issueToken((await keyWith(['ThemeServer:getThemes'])).secret);
    expect((await call('GET', BASE, { token: reader })).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}/all`, { token: reader })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, { name: fresh(), palette: PALETTE }],
      ['POST', `${BASE}/${id}`, { palette: PALETTE }],
      ['POST', `${BASE}/${id}/assets/`, { name: 'logo', fileExtension: 'png', assetResource: png().toString('base64') }],
      ['POST', `${BASE}/${id}/status/DEPLOYED_ACTIVE`, undefined],
    ] as const) {
      const res = await call(method, path, { token: reader, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    const adder = await issueToken((await keyWith(['ThemeServer:addTheme'])).secret);
    expect((await call('GET', BASE, { token: adder })).status).toBe(403);
    expect((await call('POST', BASE, { token: adder, body: { name: fresh() } })).status).toBe(201);
    expect((await call('POST', `${BASE}/${id}/status/DEPLOYED_ACTIVE`, { token: adder })).status).toBe(403);
    expect((await call('GET', `${BASE}/${id}/all`)).status).toBe(401);
  });
});
