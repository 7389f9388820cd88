import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { adminToken, call, finalStatus, latestSession } from '../integration/client.js';
import { toPhoneJourney } from '../integration/switch-journeys.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * A switch from a computer to a phone in Chromium, as two devices: the computer's browser shows
 * the QR code and the link; the phone's (another browser context, at phone width) opens the
 * link, fills in the next step and ends the journey; the computer's page follows it by itself
 * to the end. Neither page breaks the pages' CSP or logs an error.
 */
let browser: Browser;
let token: string;
let definition: string;
const fresh = () => Math.random().toString(36).slice(2, 8);
const DESKTOP = { viewport: { width: 1280, height: 800 } };

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
  definition = `switch-e2e-${fresh()}`;
  const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: toPhoneJourney(definition) });
  expect(published.status, published.text).toBe(201);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * Errors a page logs (a CSP violation is one) and requests refused, collected as they come; but
 * the favicon Chromium asks every origin for (the service has none), and what a test means to be refused.
 */
function errorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') errors.push(`${r.status()} ${new URL(r.url()).pathname}`);
  });
  return errors;
}

describe('a switch from desktop to phone in Chromium', () => {
  it('shows the QR code on the computer, continues on the phone, and the computer follows to the end', async () => {
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `e2e-sw-${fresh()}`, processDefnName: definition, processDefnVersion: 1 } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(created.status).toBe(201);
    const id = created.json.processInstanceId as string;

    const computer = await browser.newContext(DESKTOP);
    const desk = await computer.newPage();
    const deskErrors = errorsOf(desk);
    await desk.goto(created.json.redirectUrl);
    await desk.locator('[data-screen="scan-qr"]').waitFor({ timeout: 15_000 });
    await desk.getByRole('heading', { name: 'Continue on your phone' }).waitFor();
    const qr = desk.getByRole('img', { name: 'QR code of the link that continues this journey on your phone' });
    const box = (await qr.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(200);
    expect(Math.abs(box.width - box.height)).toBeLessThan(1);
    const link = (await desk.locator('#switch-link').getAttribute('href'))!;
    expect(await desk.locator('#switch-link').innerText()).toBe(link);
    expect(link).toMatch(new RegExp(`/journey/${id}/switch\\?s=[A-Za-z0-9_-]{43}&lang=en$`));
    await desk.screenshot({ path: `${SHOTS}/30-switch-qr-en.png`, fullPage: true });

    // The phone opens the link (as its camera would) and gets the journey.
    const phone = await browser.newContext(PHONE);
    const hand = await phone.newPage();
    const handErrors = errorsOf(hand);
    await hand.goto(link);
    await hand.getByRole('heading', { name: 'Your details' }).waitFor({ timeout: 15_000 });
    expect(new URL(hand.url()).pathname).toBe(`/journey/${id}`);
    expect(new URL(hand.url()).searchParams.get('c')).not.toBe(new URL(created.json.redirectUrl).searchParams.get('c'));
    await hand.screenshot({ path: `${SHOTS}/31-switch-phone-form-en.png`, fullPage: true });

    // The computer's page has moved on by itself: it follows the phone.
    await desk.locator('[data-screen="mobile-switch-status"]').waitFor({ timeout: 15_000 });
    expect(await desk.locator('#switch-link').count()).toBe(0);
    await desk.screenshot({ path: `${SHOTS}/32-switch-following-en.png`, fullPage: true });

    await hand.getByLabel('City').fill('Bonn');
    await hand.getByRole('button', { name: 'Continue' }).click();
    await hand.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });

    // ... and to the end.
    await desk.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await desk.screenshot({ path: `${SHOTS}/33-switch-done-en.png`, fullPage: true });
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await latestSession('demo', id)).vars).toMatchObject({ H_isSwitchedFromDesktop: true, isMobile: true, details: { city: 'Bonn' } });
    expect(deskErrors).toEqual([]);
    expect(handErrors).toEqual([]);

    // The link, opened again on the phone, gives nothing more.
    const again = await hand.goto(link);
    expect(again?.status()).toBe(409);
    expect(handErrors).toEqual([`409 /journey/${id}/switch`]);
    await hand.getByRole('heading', { name: 'This link no longer works' }).waitFor();
    await computer.close();
    await phone.close();
  });
});
