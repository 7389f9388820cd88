import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import * as zip from '@zip.js/zip.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { face, portrait, toJpeg } from '../support/face-images.js';

/**
 * Selfie matching as a relying party and its end user meet it, in Chromium: the relying party
 * uploads a reference photo with the URL and headers the creation answered, the end user takes
 * a photo with the phone's camera (Chromium's fake camera plays a video made from person B's
 * face), and the relying party reads the match in the checks.
 */
let browser: Browser;
let token: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const camera = resolve(SHOTS, '../camera-person-b.jpg');
  writeFileSync(camera, toJpeg(portrait('person-b-crop-bar55-2.jpg')));
  browser = await launchChromium(camera);
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** The relying party's backend: a selfie-match instance with the reference photo uploaded. */
async function withReference(reference: Buffer): Promise<{ id: string; defnId: string; redirectUrl: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: {
      name: `e2e-match-${Math.random().toString(36).slice(2, 8)}`,
      processDefnName: 'selfie-match',
      processDefnVersion: 1,
      processInstanceInit: { externalSources: { faceUploads: { reference: { imageFormat: 'JPEG' } } } },
    },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status).toBe(201);
  const { uploadUrl, uploadHeaders } = created.json.externalSources.faceUploads.reference;
  expect((await fetch(uploadUrl, { method: 'PUT', body: reference, headers: uploadHeaders })).status).toBe(200);
  const id = created.json.processInstanceId;
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId;
  return { id, defnId, redirectUrl: created.json.redirectUrl };
}

/** The end user takes the photo with the camera and sends it. */
async function takePhoto(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Use the camera' }).click();
  await page.locator('#face-video').waitFor({ state: 'visible' });
  // A function, not a string: the page's CSP forbids eval, which a string predicate would need.
  await page.waitForFunction(() => (globalThis as any).document.getElementById('face-video').videoWidth > 0);
  await page.getByRole('button', { name: 'Take the photo' }).click();
  await page.getByRole('img', { name: 'Your photo' }).waitFor();
  await page.keyboard.press('Enter');
}

describe('selfie matching in Chromium', () => {
  it('matches the camera against an uploaded photo of the same person: COMPLETED_ENDED_SUCCESS, the match in the checks and both images in the archive', async () => {
    const instance = await withReference(toJpeg(portrait('person-b-crop-bar55.jpg')));
    const context = await browser.newContext(PHONE);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=en`);
    await page.getByRole('heading', { name: 'A photo of your face' }).waitFor({ timeout: 15_000 });
    await takePhoto(page);
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 20_000 });
    await context.close();

    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const base = `/api/userdata-server/processDefinitions/${instance.defnId}/processInstances/${instance.id}`;
    const checks = (await call('GET', `${base}/userdata/checks`, { token })).json as { checkId: string; result: string; moreinfo: string }[];
    const match = checks.find((c) => c.checkId === 'faceMatch')!;
    expect(match.result).toBe('PASS');
    expect(JSON.parse(match.moreinfo).similarity).toBeGreaterThanOrEqual(JSON.parse(match.moreinfo).threshold);
    expect(checks.find((c) => c.checkId === 'face')!.result).toBe('PASS');

    const zipped = await call('POST', `${base}/userdataarchive`, { token, body: { config: { password: 'Correct-Horse-9' } } });
    expect(zipped.status).toBe(200);
    const entries = (await new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(zipped.raw)), { password: 'Correct-Horse-9' }).getEntries()) as zip.FileEntry[];
    const names = entries.map((e) => e.filename);
    expect(names.some((n) => /^images\/face-.+\.jpg$/.test(n))).toBe(true);
    expect(names.some((n) => /^images\/reference-.+\.jpg$/.test(n))).toBe(true);
  });

  it("takes the failed-match route with another person's photo: the camera page again, saying the face did not match", async () => {
    const instance = await withReference(face('eileen-collins.jpg'));
    const context = await browser.newContext(PHONE);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=en`);
    await page.getByRole('heading', { name: 'A photo of your face' }).waitFor({ timeout: 15_000 });
    await takePhoto(page);
    await page.getByText('Your face did not match the photo we were given.').first().waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/16-face-no-match-en.png`, fullPage: true });
    await context.close();

    const base = `/api/userdata-server/processDefinitions/${instance.defnId}/processInstances/${instance.id}`;
    const checks = (await call('GET', `${base}/userdata/checks`, { token })).json as { checkId: string; result: string; moreinfo: string }[];
    const match = checks.find((c) => c.checkId === 'faceMatch')!;
    expect(match.result).toBe('FAIL');
    expect(JSON.parse(match.moreinfo)).toMatchObject({ failedAttempts: 1, maxAttempts: 2 });
    const status = await call('GET', `/api/process-manager/processInstances/${instance.id}`, { token });
    expect(status.json.status).toBe('ACTIVE');
  });
});
