import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, exampleNamed, pageUntil, storedInstance } from './client.js';

/**
 * The relying party's theme on the hosted journey pages, over HTTP: a theme with a font and a
 * logo, a definition naming it, an instance's journey page painted with it (its colours, its
 * font face, its logo), the font and logo answering on the tenant host; and a journey whose
 * definition names no theme, painted in the pages' own colours.
 */
const THEMES = '/api/theme-server/themes';
const FONT = readFileSync(join(import.meta.dirname, '../../node_modules/bpmn-js/dist/assets/bpmn-font/font/bpmn.woff2'));
const PALETTE = {
  general: { backgroundColor: '#fdf6ec', fontFamily: 'brand-font' },
  buttons: { primaryBackgroundColor: '#0b5394', primaryTextColor: '#ffffff' },
  header: { backgroundColor: '#0b1f4d', textColor: '#ffffff' },
  progressBar: { fillColor: '#0b5394', trackColor: '#d9e2ef' },
};
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

beforeAll(async () => {
  token = await adminToken();
});

function png(): Buffer {
  const image = new PNG({ width: 8, height: 8 });
  image.data.fill(90);
  return PNG.sync.write(image);
}

async function theme(status: 'EDITABLE' | 'DEPLOYED_ACTIVE'): Promise<string> {
  const created = await call('POST', THEMES, { token, body: { name: `brand-${fresh()}`, palette: PALETTE, status: 'EDITABLE' } });
  expect(created.status, created.text).toBe(201);
  for (const [name, ext, bytes] of [
    ['logo', 'png', png()],
    ['brand-font', 'woff2', FONT],
  ] as const) {
    const added = await call('POST', `${THEMES}/${created.json.id}/assets/`, { token, body: { name, contentType: 'font/ttf', fileExtension: ext, assetResource: bytes.toString('base64') } });
    expect(added.status, added.text).toBe(201);
  }
  if (status === 'DEPLOYED_ACTIVE') expect((await call('POST', `${THEMES}/${created.json.id}/status/DEPLOYED_ACTIVE`, { token })).status).toBe(200);
  return created.json.id;
}

/** A journey of the identity-check example (its first screen a data form) for the Nordbank, with `themeId` if given. */
async function journey(themeId?: string): Promise<{ id: string; path: string; created: Record<string, any> }> {
  const name = `themed-${fresh()}`;
  const published = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: { ...exampleNamed(name), presentation: { name: 'Nordbank' }, ...(themeId ? { themeId } : {}) },
  });
  expect(published.status, published.text).toBe(201);
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-pt`, processDefnName: name, processDefnVersion: '1', parameters: { firstName: 'Ada' } } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const url = new URL(created.json.redirectUrl);
  return { id: created.json.processInstanceId, path: `${url.pathname}${url.search}`, created: created.json };
}

describe('a journey of a definition that names a theme', () => {
  it('paints its pages with the theme: colours, font face and logo, each served from the tenant host', async () => {
    const themeId = await theme('DEPLOYED_ACTIVE');
    const j = await journey(themeId);
    const html = await pageUntil(j.path, 'First name');
    const style = new RegExp(`<style data-theme="${themeId}">([^<]*)</style>`).exec(html)?.[1];
    expect(style, html.slice(0, 2000)).toBeDefined();
    expect(style).toContain('--page-bg:#fdf6ec;');
    expect(style).toContain('--button-bg:#0b5394;--button-text:#ffffff;');
    expect(style).toContain('--header-bg:#0b1f4d;--header-text:#ffffff;');
    expect(style).toContain('--progress-track:#d9e2ef;--progress-fill:#0b5394;');
    expect(style).toContain('--font:"brand-font",');
    const font = new RegExp(`@font-face\\{font-family:"brand-font";src:url\\("(/themes/${themeId}/assets/[A-Za-z0-9_-]{22}/brand-font\\.woff2)"\\) format\\("woff2"\\)`).exec(style!)?.[1];
    expect(font).toBeDefined();
    const logo = new RegExp(`<header class="rp"[^>]*><img src="(/themes/${themeId}/assets/[A-Za-z0-9_-]{22}/logo\\.png)" alt=""[^>]*><span>Nordbank</span></header>`).exec(html)?.[1];
    expect(logo, html.slice(0, 3000)).toBeDefined();

    const page = await call('GET', j.path);
    expect(page.headers['content-security-policy']).toContain("font-src 'self'");
    // The page's font and logo, by the paths it names, on the same host without a token.
    const fontGot = await call('GET', font!);
    expect(fontGot.status).toBe(200);
    expect(fontGot.headers['content-type']).toBe('font/woff2');
    expect(fontGot.raw.equals(FONT)).toBe(true);
    const logoGot = await call('GET', logo!);
    expect(logoGot.status).toBe(200);
    expect(logoGot.headers['content-type']).toBe('image/png');

    // The instance keeps the theme it was created with.
    const stored = await storedInstance('demo', j.id);
    expect((stored?.pages as Record<string, any>).theme).toMatchObject({ id: themeId, fontFamily: 'brand-font', logo: { url: logo } });
  });

  it('keeps the look a journey started with when an EDITABLE theme changes afterwards', async () => {
    const themeId = await theme('EDITABLE');
    const j = await journey(themeId);
    const all = await call('GET', `${THEMES}/${themeId}/all`, { token });
    const changed = await call('POST', `${THEMES}/${themeId}`, { token, body: { ...all.json, palette: { ...PALETTE, buttons: { primaryBackgroundColor: '#7a1f1f', primaryTextColor: '#ffffff' } } } });
    expect(changed.status, changed.text).toBe(200);
    const html = await pageUntil(j.path, 'First name');
    expect(html).toContain('--button-bg:#0b5394;');
    expect(html).not.toContain('#7a1f1f');
    // A journey started now wears the change.
    expect(await pageUntil((await journey(themeId)).path, 'First name')).toContain('--button-bg:#7a1f1f;');
  });
});

describe('a journey of a definition without a theme', () => {
  it('is painted in the pages\' own colours: no theme style, no font face, the relying party by name only', async () => {
    const j = await journey();
    expect(j.created.themeUrl).toBeUndefined();
    const html = await pageUntil(j.path, 'First name');
    expect(html).not.toContain('data-theme');
    expect(html).not.toContain('@font-face');
    expect(html).not.toContain('/themes/');
    expect(html).toContain('<header class="rp" aria-label="Who this page is for"><span>Nordbank</span></header>');
    expect(html.match(/<style/g)).toHaveLength(1);
    const stored = await storedInstance('demo', j.id);
    expect((stored?.pages as Record<string, any>).theme).toBeUndefined();
  });
});
