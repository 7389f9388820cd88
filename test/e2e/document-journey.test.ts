/**
 * A passport journey in Chromium at phone width (375 × 812), as its end user meets it: a passport
 * chosen, its data page photographed through the fake camera (a specimen rendered here,
 * test/support/specimens.ts), its MRZ read into a confirmation form, its portrait matched with a
 * selfie taken on a second phone (a second browser, whose camera shows the same person), and the
 * relying party reading the checks. A black-and-white copy shown to the camera takes its error
 * route instead.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { PHONE, SHOTS, launchChromium, takeFacePhoto } from './browser.js';
import { renderSpecimens } from '../support/specimens.js';
import { documentJourney } from '../support/document-journey.js';

const PHONE_375 = { ...PHONE, viewport: { width: 375, height: 812 } };
const fresh = () => Math.random().toString(36).slice(2, 8);
const FACES = resolve(import.meta.dirname, '../fixtures/faces');

let token: string;
let name: string;
/** Phones whose camera shows: the genuine passport, a black-and-white copy of it, person A's face. */
let passportPhone: Browser;
let copyPhone: Browser;
let selfiePhone: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const [genuine, copy] = await renderSpecimens([{ person: 'a' }, { person: 'a', variant: 'blackAndWhite' }]);
  const still = (file: string, bytes: Buffer) => {
    const path = join(SHOTS, '..', file);
    writeFileSync(path, bytes);
    return path;
  };
  passportPhone = await launchChromium(still('passport-a.jpg', genuine!));
  copyPhone = await launchChromium(still('passport-a-copy.jpg', copy!));
  selfiePhone = await launchChromium(still('selfie-a.jpg', readFileSync(join(FACES, 'person-a-2.jpg'))));
  token = await adminToken();
  name = `document-e2e-${fresh()}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', { token, body: { ...documentJourney(name, { notAssessed: false }), status: 'DEPLOYED_ACTIVE' } });
  expect(made.status, made.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await Promise.all([passportPhone?.close(), copyPhone?.close(), selfiePhone?.close()]);
});

async function newInstance(): Promise<{ id: string; url: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
  expect(pt.status, pt.text).toBe(201);
  const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(made.status, made.text).toBe(201);
  return { id: made.json.processInstanceId, url: `${made.json.redirectUrl}&lang=en` };
}

/** On a phone: a UK passport chosen, its data page photographed and sent. */
async function photographPassport(phone: Browser, url: string, shots: string): Promise<Page> {
  const context = await phone.newContext(PHONE_375);
  await context.grantPermissions(['camera']);
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('heading', { name: 'Your identity document' }).waitFor();
  await page.getByLabel('Passport').check();
  await page.getByLabel('Issuing country').selectOption('GB');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'The front of your document' }).waitFor({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Use the camera' }).click();
  await page.waitForFunction(() => (globalThis as any).document.getElementById('doc-video').videoWidth > 0);
  await page.getByRole('button', { name: 'Take the photo' }).click();
  await page.getByRole('img', { name: 'Your photo of the document' }).waitFor();
  await page.screenshot({ path: `${SHOTS}/${shots}-preview.png`, fullPage: true });
  await page.getByRole('button', { name: 'Use this photo' }).click();
  return page;
}

const checksOf = async (id: string) => {
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId;
  const res = await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata/checks`, { token });
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries((res.json as { checkId: string; result: string }[]).map((c) => [c.checkId, c.result]));
};

describe('a passport journey in Chromium at phone width', () => {
  it('reads the passport photographed through the camera, confirms its fields, matches the selfie and passes', async () => {
    const { id, url } = await newInstance();
    const page = await photographPassport(passportPhone, url, 'passport');
    // The MRZ read: its fields in the confirmation form, for the end user to check.
    await page.getByRole('heading', { name: 'Check your details' }).waitFor({ timeout: 60_000 });
    expect(await page.getByLabel('Last name').inputValue()).toBe('PEDERSEN');
    expect(await page.getByLabel('First name').inputValue()).toBe('JESPER');
    expect(await page.getByLabel('Document number').inputValue()).toBe('L898902C3');
    expect(await page.getByLabel('Date of birth').inputValue()).toBe('1974-08-12');
    expect(await page.getByLabel('Date of expiry').inputValue()).toBe('2034-04-15');
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${SHOTS}/passport-confirm.png`, fullPage: true });
    await page.getByRole('button', { name: 'Continue' }).click();

    // The selfie, on a second phone whose camera shows person A: the journey's same link.
    const selfie = await (await selfiePhone.newContext(PHONE_375)).newPage();
    await selfie.context().grantPermissions(['camera']);
    await selfie.goto(url);
    await takeFacePhoto(selfie, 60_000);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    expect(await checksOf(id)).toMatchObject({
      'doc1.quality': 'PASS',
      'doc1.reading': 'PASS',
      'doc1.blackAndWhiteCopy': 'PASS',
      'doc1.screenReplay': 'PASS',
      'doc1.faceMatch': 'PASS',
    });
  });

  it('takes the copy route for a black-and-white copy shown to the camera', async () => {
    const { id, url } = await newInstance();
    const page = await photographPassport(copyPhone, url, 'copy');
    await page.getByRole('heading', { name: 'Check your details' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_ERROR');
    const checks = await checksOf(id);
    expect(checks['doc1.blackAndWhiteCopy']).toBe('FAIL');
    expect(checks['doc1.screenReplay']).toBeUndefined();
  });
});
