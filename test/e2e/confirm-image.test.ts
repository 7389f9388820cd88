import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PHONE, SHOTS, launchChromium, takeFacePhoto } from './browser.js';
import { adminToken, call, finalStatus } from '../integration/client.js';

/**
 * Confirm Image and Redirect User V2 in Chromium at phone width: the end user takes a photo with
 * the camera, sees it on the preview page (an inline image the pages' CSP allows), asks to take it
 * again, then uses the next one; the journey then sends the browser to the relying party's page
 * with a URL built from the journey's data, and goes on to its end.
 */
let browser: Browser;
let rp: Server;
let rpBase: string;
let token: string;

beforeAll(async () => {
  browser = await launchChromium();
  rp = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>At the bank: ${req.url?.replace(/[<>&"]/g, '')}</h1>`));
  await new Promise<void>((ok) => rp.listen(0, '127.0.0.1', ok));
  rpBase = `http://127.0.0.1:${(rp.address() as { port: number }).port}`;
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((ok) => rp?.close(ok));
});

const journey = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'captureFace',
  activities: {
    captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face' }, next: 'confirm' },
    confirm: { type: 'GENERIC_USER_TASK', next: 'confirmed' },
    away: { type: 'REDIRECT_USER_V2', inputs: { 'Redirect URL': `${rpBase}/otp?otpRefId=\${otpRef}` }, next: 'approve' },
    approve: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
  },
  gateways: { confirmed: { name: 'Photo confirmed?', branches: [{ when: '${_photoConfirmed == true}', next: 'away' }], default: 'captureFace' } },
});

describe('Confirm Image and Redirect User V2 in Chromium', () => {
  it('previews the photo taken, takes it again, uses the next, and lands at the URL built from the data', async () => {
    const name = `e2e-confirm-${Math.random().toString(36).slice(2, 8)}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(name) })).status).toBe(201);
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name, processDefnName: name, processDefnVersion: 1, parameters: { otpRef: 'R7' } } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(created.status).toBe(201);

    const context = await browser.newContext(PHONE);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (m) => m.text().includes('Content Security Policy') && blocked.push(m.text()));
    await page.goto(`${created.json.redirectUrl}&lang=en`);

    const takePhoto = async () => {
      await takeFacePhoto(page);
      await page.getByRole('heading', { name: 'Check your photo' }).waitFor({ timeout: 45_000 });
    };

    await takePhoto();
    const shown = page.getByRole('img', { name: 'The photo you took' });
    // The inline image is drawn (the CSP allows data: images), at the size the step made.
    await page.waitForFunction(() => ((globalThis as any).document.querySelector('img[alt="The photo you took"]')?.naturalWidth ?? 0) > 0);
    expect(await shown.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}/confirm-image-en.png`, fullPage: true });

    await page.getByRole('button', { name: 'Take it again' }).click();
    await takePhoto();
    await page.getByRole('button', { name: 'Use this photo' }).click();

    // Between steps the page waits and reloads; once the redirect is recorded it goes on there.
    await page.waitForURL(`${rpBase}/otp?otpRefId=R7`, { timeout: 20_000 });
    expect(await page.getByRole('heading').innerText()).toContain('At the bank');
    expect(blocked).toEqual([]);
    expect(await finalStatus(created.json.processInstanceId, token)).toBe('COMPLETED_ENDED_SUCCESS');
    await context.close();
  });
});
