/**
 * The document capture steps in Chromium at phone width (375 × 812): Select Document Type (a
 * passport, its country), the front through the fake camera (a card-like still, 1280 × 800)
 * inside the page's guide, the preview, a retake, the confirm; and, without script, the file
 * upload. Each screen passes an axe-core audit with no serious or critical violation (audited in
 * a context that bypasses the CSP to inject axe; the journeys themselves run with the CSP and
 * report any violation: there must be none). The relying party then reads the side.
 */
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

const AXE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/bpmn/documents.bpmn'));
const PHONE_375 = { ...PHONE, viewport: { width: 375, height: 812 } };
const fresh = () => Math.random().toString(36).slice(2, 8);

/** A card-like still: a light ID-1 card with dark text lines on a dark desk, `width` × `height`. */
function cardImage(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  const cw = Math.round(width * 0.7);
  const ch = Math.round(cw / 1.58);
  const x0 = Math.round((width - cw) / 2);
  const y0 = Math.round((height - ch) / 2);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inCard = x >= x0 && x < x0 + cw && y >= y0 && y < y0 + ch;
      const line = inCard && (y - y0) % 40 < 8 && x > x0 + cw * 0.4 && x < x0 + cw * 0.9 && y > y0 + ch * 0.2;
      const v = inCard ? (line ? 40 : 225) : 35;
      const i = (y * width + x) * 4;
      data[i] = v;
      data[i + 1] = v;
      data[i + 2] = inCard ? v - 10 : v;
      data[i + 3] = 255;
    }
  return Buffer.from(jpeg.encode({ width, height, data }, 90).data);
}

let browser: Browser;
let token: string;
let name: string;
let cardPath: string;

beforeAll(async () => {
  cardPath = join(SHOTS, '..', 'document-card-1280x800.jpg');
  // The card is written first: the fake camera plays it.
  mkdirSync(SHOTS, { recursive: true });
  writeFileSync(cardPath, cardImage(1280, 800));
  browser = await launchChromium(cardPath);
  token = await adminToken();
  name = `documents-e2e-${fresh()}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: { name, serverType: 'CAMUNDA', resources: { bpmn: { data: BPMN.toString('base64'), type: 'BPMN' } }, status: 'DEPLOYED_ACTIVE', tenantId: 'demo' },
  });
  expect(made.status, made.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

async function newInstance(): Promise<{ id: string; redirectUrl: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
  expect(pt.status, pt.text).toBe(201);
  const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(made.status, made.text).toBe(201);
  return { id: made.json.processInstanceId, redirectUrl: made.json.redirectUrl };
}

/** A context whose CSP violations are collected (there must be none). */
async function watched(options: Parameters<Browser['newContext']>[0]): Promise<{ context: BrowserContext; violations: string[] }> {
  const context = await browser.newContext(options);
  const violations: string[] = [];
  await context.exposeBinding('__cspViolation', ({ page }, v: string) => void violations.push(`${page.url()}: ${v}`));
  await context.addInitScript(() => {
    const g = globalThis as unknown as { __cspViolation(v: string): void; document: { addEventListener: (t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void) => void } };
    g.document.addEventListener('securitypolicyviolation', (e) => g.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return { context, violations };
}

/** axe-core's serious and critical violations of the page at `url`, opened in a context that lets axe in. */
async function audit(url: string, prepare?: (page: Page) => Promise<void>): Promise<{ id: string; nodes: string[] }[]> {
  const context = await browser.newContext({ ...PHONE_375, bypassCSP: true });
  await context.grantPermissions(['camera']);
  const page = await context.newPage();
  await page.goto(url);
  if (prepare) await prepare(page);
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  await context.close();
  return violations;
}

/** Nothing wider than the phone: no sideways scrolling at 375 px. */
const fitsWidth = (page: Page) => page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);

const userdata = async (id: string) => {
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId;
  return call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata`, { token });
};

describe('the document capture steps in Chromium at phone width', () => {
  it('a passport from the United Kingdom, its front through the camera inside the guide, previewed, retaken and confirmed', async () => {
    const instance = await newInstance();
    const url = `${instance.redirectUrl}&lang=en`;
    const { context, violations } = await watched(PHONE_375);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    await page.goto(url);

    await page.getByRole('heading', { name: 'Your identity document' }).waitFor();
    expect(await audit(url)).toEqual([]);
    expect(await fitsWidth(page)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${SHOTS}/document-1-type.png`, fullPage: true });
    // Keyboard only: the passport's radio, then the country list, then Continue.
    await page.getByLabel('Passport').focus();
    await page.keyboard.press('Space');
    expect(await page.getByLabel('Passport').isChecked()).toBe(true);
    await page.getByLabel('Issuing country').selectOption('GB');
    await page.getByLabel('Issuing country').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'The front of your document' }).waitFor({ timeout: 15_000 });
    expect(await audit(page.url())).toEqual([]);
    // And with the camera on, and at the preview.
    const cameraOn = async (p: Page) => {
      await p.getByRole('button', { name: 'Use the camera' }).click();
      await p.waitForFunction(() => (globalThis as any).document.getElementById('doc-video').videoWidth > 0);
    };
    expect(await audit(page.url(), cameraOn)).toEqual([]);
    expect(
      await audit(page.url(), async (p) => {
        await cameraOn(p);
        await p.getByRole('button', { name: 'Take the photo' }).click();
        await p.getByRole('img', { name: 'Your photo of the document' }).waitFor();
      }),
    ).toEqual([]);
    expect(await fitsWidth(page)).toBeLessThanOrEqual(375);
    await page.getByRole('button', { name: 'Use the camera' }).click();
    await page.locator('#doc-video').waitFor({ state: 'visible' });
    await page.waitForFunction(() => (globalThis as any).document.getElementById('doc-video').videoWidth > 0);
    // The guide over the view, at the document's shape (1.58 wide for 1 high), inside the view.
    const guide = (await page.locator('#doc-guide').boundingBox())!;
    const view = (await page.locator('#doc-view').boundingBox())!;
    expect(guide.width / guide.height).toBeCloseTo(1.58, 1);
    expect(guide.x).toBeGreaterThanOrEqual(view.x);
    expect(guide.x + guide.width).toBeLessThanOrEqual(view.x + view.width + 0.5);
    expect(await fitsWidth(page)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${SHOTS}/document-2-camera.png`, fullPage: true });

    await page.getByRole('button', { name: 'Take the photo' }).click();
    await page.getByRole('img', { name: 'Your photo of the document' }).waitFor();
    expect(await page.getByRole('status').innerText()).toContain('Photo taken');
    // The preview: the focus on "Use this photo", the file field and Continue out of the way.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe('doc-confirm');
    expect(await page.locator('#doc-file-field').isHidden()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/document-3-preview.png`, fullPage: true });
    // Take it again: the camera comes back, then a new photo.
    await page.getByRole('button', { name: 'Take it again' }).click();
    await page.locator('#doc-video').waitFor({ state: 'visible' });
    await page.waitForFunction(() => (globalThis as any).document.getElementById('doc-video').videoWidth > 0);
    await page.getByRole('button', { name: 'Take the photo' }).click();
    await page.getByRole('img', { name: 'Your photo of the document' }).waitFor();
    expect(await page.evaluate<string>("document.getElementById('doc-file').files[0].type")).toBe('image/jpeg');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await context.close();
    expect(violations).toEqual([]);

    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const data = await userdata(instance.id);
    expect(data.json.images).toHaveLength(1);
    const image = data.json.images[0];
    expect(image).toMatchObject({ imageKey: 'doc1', kind: 'DOCUMENT', side: 'FRONT', format: 'JPEG', width: 1280, height: 800 });
    const steps = data.json.steps as { activityId: string; values: Record<string, unknown> }[];
    expect(steps.find((s) => s.activityId === 'Activity_selectDocument')!.values).toMatchObject({ documentType: 'PASSPORT', country: 'GB' });
    expect(steps.find((s) => s.activityId === 'Activity_captureFront')!.values).toMatchObject({ side: 'FRONT', source: 'camera', width: 1280, height: 800 });
  });

  it('without script: a chosen file, refused when too small and taken at the limit', async () => {
    const instance = await newInstance();
    const { context, violations } = await watched({ ...PHONE_375, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=en`);
    await page.getByLabel('Passport').check();
    await page.getByLabel('Issuing country').selectOption('NZ');
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'The front of your document' }).waitFor({ timeout: 15_000 });
    // No script: no camera, the file field and Continue.
    expect(await page.getByRole('button', { name: 'Use the camera' }).isHidden()).toBe(true);
    await page.getByLabel('Or choose a photo of the document').setInputFiles({ name: 'card.jpg', mimeType: 'image/jpeg', buffer: cardImage(960, 599) });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('The photo is too small.');
    expect(await page.locator('#doc-file').getAttribute('aria-invalid')).toBe('true');
    expect(await audit(page.url())).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/document-4-refused.png`, fullPage: true });

    const chosen = cardImage(960, 600);
    await page.getByLabel('Or choose a photo of the document').setInputFiles({ name: 'card.jpg', mimeType: 'image/jpeg', buffer: chosen });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await context.close();
    expect(violations).toEqual([]);

    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const data = await userdata(instance.id);
    expect(data.json.images[0]).toMatchObject({ kind: 'DOCUMENT', side: 'FRONT', width: 960, height: 600, bytes: chosen.length });
    expect(Buffer.from(data.json.images[0].data, 'base64').equals(chosen)).toBe(true);
  });
});
