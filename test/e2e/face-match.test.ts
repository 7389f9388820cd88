import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as zip from '@zip.js/zip.js';
import { PHONE, SHOTS, launchChromium, takeFacePhoto } from './browser.js';
import { adminToken, call, finalStatus, selfieMatchInstance } from '../integration/client.js';
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

/** The end user opens the journey on a phone, takes the photo with the camera and sends it. */
async function photographed(redirectUrl: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(PHONE);
  await context.grantPermissions(['camera']);
  const page = await context.newPage();
  await page.goto(`${redirectUrl}&lang=en`);
  await takeFacePhoto(page);
  return { context, page };
}

/** What the relying party reads: the instance's checks, and its face match check's moreinfo. */
async function faceMatchOf(instance: { id: string; defnId: string }) {
  const base = `/api/userdata-server/processDefinitions/${instance.defnId}/processInstances/${instance.id}`;
  const checks = (await call('GET', `${base}/userdata/checks`, { token })).json as { checkId: string; result: string; moreinfo: string }[];
  const match = checks.find((c) => c.checkId === 'faceMatch')!;
  return { base, checks, match, more: JSON.parse(match.moreinfo) };
}

describe('selfie matching in Chromium', () => {
  it('matches the camera against an uploaded photo of the same person: COMPLETED_ENDED_SUCCESS, the match in the checks and both images in the archive', async () => {
    const instance = await selfieMatchInstance(token, toJpeg(portrait('person-b-crop-bar55.jpg')));
    const { context, page } = await photographed(instance.redirectUrl);
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 20_000 });
    await context.close();

    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const { base, checks, match, more } = await faceMatchOf(instance);
    expect(match.result).toBe('PASS');
    expect(more.similarity).toBeGreaterThanOrEqual(more.threshold);
    expect(checks.find((c) => c.checkId === 'face')!.result).toBe('PASS');

    const zipped = await call('POST', `${base}/userdataarchive`, { token, body: { config: { password: 'Correct-Horse-9' } } });
    expect(zipped.status).toBe(200);
    const entries = (await new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(zipped.raw)), { password: 'Correct-Horse-9' }).getEntries()) as zip.FileEntry[];
    const names = entries.map((e) => e.filename);
    expect(names.some((n) => /^images\/face-.+\.jpg$/.test(n))).toBe(true);
    expect(names.some((n) => /^images\/reference-.+\.jpg$/.test(n))).toBe(true);
  });

  it("takes the failed-match route with another person's photo: the camera page again, saying the face did not match", async () => {
    const instance = await selfieMatchInstance(token, face('eileen-collins.jpg'));
    const { context, page } = await photographed(instance.redirectUrl);
    await page.getByText('Your face did not match the photo we were given.').first().waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/16-face-no-match-en.png`, fullPage: true });
    await context.close();

    const { match, more } = await faceMatchOf(instance);
    expect(match.result).toBe('FAIL');
    expect(more).toMatchObject({ failedAttempts: 1, maxAttempts: 2 });
    const status = await call('GET', `/api/process-manager/processInstances/${instance.id}`, { token });
    expect(status.json.status).toBe('ACTIVE');
  });
});
