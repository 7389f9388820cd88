import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { Browser } from 'playwright-core';
import { PHONE, SHOTS, launchChromium } from './browser.js';
import { createHash } from 'node:crypto';
import * as zip from '@zip.js/zip.js';
import { adminToken, call, finalStatus } from '../integration/client.js';

/**
 * The typical integration flow with a real browser: Debian's Chromium, driven by playwright-core,
 * at phone width. The backend side goes over the API like a relying party's backend.
 */
let browser: Browser;
let rp: Server;
let rpUrl: string;
let token: string;

beforeAll(async () => {
  browser = await launchChromium();
  // The relying party's page the journey sends the end user back to.
  rp = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Back at the relying party</h1>'));
  await new Promise<void>((ok) => rp.listen(0, '127.0.0.1', ok));
  rpUrl = `http://127.0.0.1:${(rp.address() as { port: number }).port}/done`;
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((ok) => rp?.close(ok));
});

const FACE_FIXTURE = resolve(import.meta.dirname, '../fixtures/face-640x480.jpg');

/** A relying party's backend: a token for the identity-check journey and an instance of it. */
async function newInstance(name: string): Promise<{ id: string; defnId: string; redirectUrl: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: {
      name: `${name}-${Math.random().toString(36).slice(2, 8)}`,
      processDefnName: 'identity-check',
      processDefnVersion: 1,
      parameters: { firstName: 'Anna', _redirectUrl: rpUrl },
    },
  });
  expect(pt.status).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status).toBe(201);
  const read = await call('GET', `/api/process-manager/processInstances/${created.json.processInstanceId}`, { token });
  return { id: created.json.processInstanceId, defnId: read.json.processDefnId, redirectUrl: created.json.redirectUrl };
}

describe('the typical integration flow in Chromium at phone width', () => {
  it('in German: the form wrong then right, a face through the camera, the end, back at the relying party; the backend reads it all', async () => {
    const instance = await newInstance('e2e-de');
    const context = await browser.newContext(PHONE);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=de`);
    await page.getByLabel('Nachname').waitFor();
    expect(await page.getByLabel('Vorname').inputValue()).toBe('Anna');
    await page.screenshot({ path: `${SHOTS}/1-form-de.png`, fullPage: true });

    // Wrong: no last name, too young. Keyboard only: tab to the button and press Enter.
    await page.getByLabel('Geburtsdatum').fill('2020-01-01');
    await page.getByLabel('Geburtsdatum').press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('Geben Sie Ihren Nachnamen ein.');
    expect(await page.getByLabel('Geburtsdatum').inputValue()).toBe('2020-01-01');
    expect(await page.getByLabel('Vorname').inputValue()).toBe('Anna');
    await page.screenshot({ path: `${SHOTS}/2-form-errors-de.png`, fullPage: true });

    // Right.
    await page.getByLabel('Nachname').fill('Lee');
    await page.getByLabel('Geburtsdatum').fill('1990-05-17');
    await page.getByRole('button', { name: 'Weiter' }).click();

    // The face: Chromium's fake camera stands in for the phone's front camera.
    await page.getByRole('heading', { name: 'Ein Foto Ihres Gesichts' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: `${SHOTS}/3-face-de.png`, fullPage: true });
    await page.getByRole('button', { name: 'Kamera verwenden' }).click();
    await page.locator('#face-video').waitFor({ state: 'visible' });
    // A function, not a string: the page's CSP forbids eval, which a string predicate would need.
    await page.waitForFunction(() => (globalThis as any).document.getElementById('face-video').videoWidth > 0);
    await page.screenshot({ path: `${SHOTS}/4-camera-de.png`, fullPage: true });
    await page.getByRole('button', { name: 'Foto aufnehmen' }).click();
    await page.getByRole('img', { name: 'Ihr Foto' }).waitFor();
    expect(await page.getByRole('status').innerText()).toContain('Foto aufgenommen');
    expect(await page.evaluate<string>("document.getElementById('face-file').files[0].type")).toBe('image/jpeg');
    await page.screenshot({ path: `${SHOTS}/5-photo-de.png`, fullPage: true });
    // The focus is on the button that sends it.
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Vielen Dank' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: `${SHOTS}/6-done-de.png`, fullPage: true });
    await page.waitForURL(rpUrl, { timeout: 10_000 });
    expect(await page.getByRole('heading').innerText()).toBe('Back at the relying party');
    await context.close();

    // The relying party's backend.
    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const base = `/api/userdata-server/processDefinitions/${instance.defnId}/processInstances/${instance.id}`;
    const data = await call('GET', `${base}/userdata`, { token });
    expect(data.json.forms.personalDetails).toEqual({ firstName: 'Anna', lastName: 'Lee', dateOfBirth: '1990-05-17' });
    expect(data.json.images).toHaveLength(1);
    const image = data.json.images[0];
    const bytes = Buffer.from(image.data, 'base64');
    expect(image).toMatchObject({ imageKey: 'face', format: 'JPEG', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    expect(Math.min(image.width, image.height)).toBeGreaterThanOrEqual(240);
    const checks = await call('GET', `${base}/userdata/checks`, { token });
    expect(checks.json).toEqual([expect.objectContaining({ checkId: 'face', checkType: 'FACE_CAPTURE', result: 'PASS' })]);

    const zipped = await call('POST', `${base}/userdataarchive`, { token, body: { config: { password: 'Correct-Horse-9' } } });
    expect(zipped.status).toBe(200);
    const entries = (await new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(zipped.raw)), { password: 'Correct-Horse-9' }).getEntries()) as zip.FileEntry[];
    const json = JSON.parse(await entries.find((e) => e.filename === 'userdata.json')!.getData(new zip.TextWriter()));
    expect(json.forms.personalDetails.lastName).toBe('Lee');
    const archived = entries.find((e) => e.filename === `images/face-${image.captureId}.jpg`)!;
    expect(Buffer.from(await archived.getData(new zip.Uint8ArrayWriter())).equals(bytes)).toBe(true);
  });

  it('in English (for a language the pages lack): no camera, so a chosen photo, and nothing loaded from elsewhere', async () => {
    const instance = await newInstance('e2e-en');
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    // A phone whose camera cannot be used (refused, or in use): the page falls back to a file.
    await page.addInitScript("navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'))");
    await page.goto(`${instance.redirectUrl}&lang=fr`);
    await page.getByLabel('Last name').waitFor();
    await page.screenshot({ path: `${SHOTS}/7-form-en.png`, fullPage: true });
    await page.getByLabel('Last name').fill('Lee');
    await page.getByLabel('Date of birth').fill('1990-05-17');
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'A photo of your face' }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Use the camera' }).click();
    await page.getByText('The camera could not be started. Choose a photo instead.').waitFor();
    await page.getByLabel('Or choose a photo of your face').setInputFiles(FACE_FIXTURE);
    await page.screenshot({ path: `${SHOTS}/8-face-file-en.png`, fullPage: true });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: `${SHOTS}/9-done-en.png`, fullPage: true });

    const external = await page.evaluate<string[]>(
      "performance.getEntriesByType('resource').map((e) => e.name).filter((n) => !n.startsWith(location.origin))",
    );
    expect(external).toEqual([]);
    await page.waitForURL(rpUrl, { timeout: 10_000 });
    await context.close();
    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
  });

  it('works without script: a plain file upload, refused when it is not an image, then accepted', async () => {
    const instance = await newInstance('e2e-nojs');
    const context = await browser.newContext({ ...PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=en`);
    await page.getByLabel('Last name').fill('Lee');
    await page.getByLabel('Date of birth').fill('1990-05-17');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'A photo of your face' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: 'Use the camera' }).isVisible()).toBe(false);
    await page.getByLabel('Or choose a photo of your face').setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('not an image') });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('This file is not a JPEG or PNG image.');
    await page.screenshot({ path: `${SHOTS}/10-face-refused-en.png`, fullPage: true });
    await page.getByLabel('Or choose a photo of your face').setInputFiles(FACE_FIXTURE);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await context.close();
    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    expect(inject('port')).toBeGreaterThan(0);
  });
});
