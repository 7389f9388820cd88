import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, call } from '../integration/client.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * A relying party's theme on the hosted pages, in Chromium at phone width: a data form, the face
 * capture and the end of a journey whose definition names a theme with a font and a logo. On
 * each, the computed colours are the palette's and the font the theme's (loaded), the logo
 * loaded, no CSP violation (the journey runs in a context that keeps the CSP), and no serious
 * or critical axe-core violation with the theme applied (audited in a context that bypasses
 * the CSP to inject axe). An error page of a link that matches nothing wears no theme.
 */
const AXE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const FACE = resolve(import.meta.dirname, '../fixtures/face-640x480.jpg');
const FONT = readFileSync(join(import.meta.dirname, '../../node_modules/bpmn-js/dist/assets/bpmn-font/font/bpmn.woff2'));
const THEMES = '/api/theme-server/themes';
const fresh = () => Math.random().toString(36).slice(2, 8);
const label = (en: string) => ({ values: { en } });

const PALETTE = {
  general: { backgroundColor: '#fdf6ec', surfaceColor: '#ffffff', fontFamily: 'brand-font' },
  buttons: { primaryBackgroundColor: '#7a1f4d', primaryTextColor: '#ffffff', secondaryBackgroundColor: '#ffffff', secondaryTextColor: '#7a1f4d' },
  text: { primaryColor: '#1f2937', linkColor: '#7a1f4d' },
  header: { backgroundColor: '#0b1f4d', textColor: '#ffffff' },
  progressBar: { fillColor: '#7a1f4d', trackColor: '#e8d5de' },
  faceCapture: { backgroundColor: '#2b0a1a', textColor: '#ffffff', ovalColor: '#ffffff' },
};
const RGB = {
  page: 'rgb(253, 246, 236)',
  button: 'rgb(122, 31, 77)',
  white: 'rgb(255, 255, 255)',
  text: 'rgb(31, 41, 55)',
  header: 'rgb(11, 31, 77)',
  camera: 'rgb(43, 10, 26)',
};

let browser: Browser;
let token: string;

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

function png(): Buffer {
  const image = new PNG({ width: 8, height: 8 });
  image.data.fill(90);
  return PNG.sync.write(image);
}

/** A theme with the palette above, a logo and a font, DEPLOYED_ACTIVE: its id. */
async function brandTheme(): Promise<string> {
  const created = await call('POST', THEMES, { token, body: { name: `e2e-brand-${fresh()}`, palette: PALETTE } });
  expect(created.status, created.text).toBe(201);
  for (const [name, ext, bytes] of [
    ['logo', 'png', png()],
    ['brand-font', 'woff2', FONT],
  ] as const) {
    const added = await call('POST', `${THEMES}/${created.json.id}/assets/`, { token, body: { name, contentType: `image/${ext}`, fileExtension: ext, assetResource: bytes.toString('base64') } });
    expect(added.status, added.text).toBe(201);
  }
  expect((await call('POST', `${THEMES}/${created.json.id}/status/DEPLOYED_ACTIVE`, { token })).status).toBe(200);
  return created.json.id;
}

/** A bank's journey: a details form, a face capture that needs consent, a decision. */
const themedJourney = (name: string, themeId: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  themeId,
  presentation: { name: 'Nordbank', supportEmail: 'help@nordbank.example' },
  startActivityId: 'details',
  activities: {
    details: {
      type: 'DATA_FORM',
      inputs: { 'Form data Key': 'details', Form: { title: label('Your details'), version: 1, components: [{ type: 'textfield', id: 'city', label: label('City'), validate: { required: true } }] } },
      next: 'captureFace',
    },
    captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face', 'Require Consent': true }, next: 'decide' },
    decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { errorEvent: true }, outcome: 'FAIL' }], default: 'PASS' },
  },
});

type Violation = { id: string; impact: string | null; nodes: string[] };

/** axe-core on `url` in the audit context (which bypasses the CSP to inject it): its serious and critical violations; a screenshot of the page. */
async function audit(auditContext: BrowserContext, url: string, shot: string): Promise<Violation[]> {
  const page = await auditContext.newPage();
  await page.goto(url);
  await page.evaluate(() => (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts.ready);
  await page.screenshot({ path: `${SHOTS}/themed-${shot}.png`, fullPage: true });
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  await page.close();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Records the page's CSP violations (an init script runs before the page's own, outside its CSP). */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const g = globalThis as unknown as { __csp: string[]; document: { addEventListener: (t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void) => void } };
    g.__csp = [];
    g.document.addEventListener('securitypolicyviolation', (e) => g.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return () => page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp);
}

/** A computed style property of the first element `selector` matches. */
function styleOf(page: Page, selector: string, property: string): Promise<string> {
  return page.locator(selector).first().evaluate((e, p) => (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(e)[p]!, property);
}

/** What every themed page shows: the page's colours and font, the theme's font loaded, the logo loaded beside the bank's name. */
async function expectThemed(page: Page, name: string): Promise<void> {
  expect(await styleOf(page, 'body', 'backgroundColor'), name).toBe(RGB.page);
  expect(await styleOf(page, 'body', 'color'), name).toBe(RGB.text);
  expect(await styleOf(page, 'body', 'fontFamily'), name).toMatch(/^"?brand-font"?, system-ui/);
  expect(await styleOf(page, 'header.rp', 'backgroundColor'), name).toBe(RGB.header);
  expect(await styleOf(page, 'header.rp', 'color'), name).toBe(RGB.white);
  const font = await page.evaluate(async () => {
    const fonts = (globalThis as unknown as { document: { fonts: { ready: Promise<unknown>; check(f: string): boolean; load(f: string): Promise<unknown[]> } & Iterable<{ family: string; status: string }> } }).document.fonts;
    await fonts.ready;
    const loaded = await fonts.load('16px "brand-font"');
    return { check: fonts.check('16px "brand-font"'), faces: [...fonts].map((f) => `${f.family.replace(/"/g, '')} ${f.status}`), loaded: loaded.length };
  });
  expect(font, name).toEqual({ check: true, faces: ['brand-font loaded'], loaded: 1 });
  expect(await page.locator('header.rp').innerText(), name).toBe('Nordbank');
  const logo = page.locator('header.rp img');
  expect(await logo.getAttribute('src'), name).toMatch(/^\/themes\/[0-9a-f-]{36}\/assets\/[A-Za-z0-9_-]{22}\/logo\.png$/);
  await expect.poll(() => logo.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth), { message: name }).toBe(8);
}

describe('a themed journey in Chromium at phone width', () => {
  it('paints the data form, the face capture and the end with the theme, breaks no CSP and passes axe-core', async () => {
    const themeId = await brandTheme();
    const definition = `e2e-themed-${fresh()}`;
    const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: themedJourney(definition, themeId) });
    expect(published.status, published.text).toBe(201);
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: definition, processDefnName: definition, processDefnVersion: 1, parameters: {} } });
    expect(pt.status, pt.text).toBe(201);
    const instance = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(instance.status, instance.text).toBe(201);

    const auditContext = await browser.newContext({ ...PHONE, locale: 'en-GB', bypassCSP: true });
    const context = await browser.newContext({ ...PHONE, locale: 'en-GB' });
    const page = await context.newPage();
    const cspViolations = await watchCsp(page);
    const serious: Record<string, Violation[]> = {};

    // The data form: the page, its primary button, the fields and the progress in the theme's colours.
    await page.goto(instance.json.redirectUrl);
    await page.getByRole('heading', { name: 'Your details' }).waitFor({ timeout: 15_000 });
    await expectThemed(page, 'form');
    expect(await styleOf(page, 'form button[type=submit]', 'backgroundColor')).toBe(RGB.button);
    expect(await styleOf(page, 'form button[type=submit]', 'color')).toBe(RGB.white);
    expect(await styleOf(page, 'form button[type=submit]', 'fontFamily')).toMatch(/^"?brand-font"?,/);
    expect(await styleOf(page, 'form', 'backgroundColor')).toBe(RGB.white);
    expect(await styleOf(page, '.progress progress', 'backgroundColor')).toBe('rgb(232, 213, 222)');
    serious.form = await audit(auditContext, page.url(), 'form');

    await page.getByLabel('City').fill('Bremen');
    await page.getByRole('button', { name: 'Continue' }).click();

    // The face capture: the notice, the camera's surroundings and its secondary buttons in the theme's colours.
    await page.getByRole('heading', { name: 'A photo of your face' }).waitFor({ timeout: 15_000 });
    await expectThemed(page, 'face');
    expect(await styleOf(page, '#face-video', 'backgroundColor')).toBe(RGB.camera);
    expect(await styleOf(page, '#face-start', 'color')).toBe(RGB.button);
    expect(await styleOf(page, '.consent', 'backgroundColor')).toBe(RGB.white);
    serious.face = await audit(auditContext, page.url(), 'face');
    await page.getByLabel('I agree').check();
    await page.locator('#face-file').setInputFiles(FACE);
    await page.locator('#face-chosen').waitFor();
    await page.screenshot({ path: `${SHOTS}/themed-face-chosen.png`, fullPage: true });
    await page.getByRole('button', { name: 'Continue' }).click();

    // The end.
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 30_000 });
    await expectThemed(page, 'done');
    serious.done = await audit(auditContext, page.url(), 'done');
    expect(await cspViolations()).toEqual([]);

    // A link that matches nothing names nobody and wears no theme.
    const gone = instance.json.redirectUrl.replace(/c=[^&]+/, `c=${'x'.repeat(43)}`);
    const errorPage = await context.newPage();
    expect((await errorPage.goto(gone))!.status()).toBe(404);
    expect(await errorPage.locator('style[data-theme]').count()).toBe(0);
    expect(await errorPage.locator('header').count()).toBe(0);
    expect(await styleOf(errorPage, 'body', 'backgroundColor')).toBe('rgb(244, 245, 247)');

    expect(serious).toEqual({ form: [], face: [], done: [] });
    await context.close();
    await auditContext.close();
  }, 120_000);
});
