import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame } from 'playwright-core';
import { adminToken, call } from '../integration/client.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * The example `npm start` ships for custom pages and themes (statemachines/examples: the page
 * `welcome`, the theme `harbour`, the BPMN journey `welcome`), run as a newcomer would in
 * Chromium at phone width: the page greets them by the token's first name, they choose the phone,
 * the gateway reads what the page sent and the phone form comes, its name filled in from the page.
 */
let browser: Browser;
let token: string;

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the welcome example', () => {
  it('is published with its page and theme, and runs: page, gateway, form, end', async () => {
    const versions = await call('GET', '/api/theme-server/customPages/welcome/versions?page=0&size=1&sort=version,desc', { token });
    expect(versions.json.content[0]).toMatchObject({ version: 1, status: 'DEPLOYED_ACTIVE' });
    const themes = await call('GET', '/api/theme-server/themes/harbour/versions?page=0&size=1&sort=version,desc', { token });
    expect(themes.json.content[0]).toMatchObject({ version: 1, status: 'DEPLOYED_ACTIVE' });

    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `welcome-${Date.now()}`, processDefnName: 'welcome', processDefnVersion: 1, parameters: { firstName: 'Grace' } } });
    expect(pt.status, pt.text).toBe(201);
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(created.status, created.text).toBe(201);
    expect(created.json.themeUrl).toMatch(/\/themes\/[^/]+\/theme\.json$/);

    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${created.json.redirectUrl}&lang=en`);
    const handle = await page.locator('iframe#custom-page').elementHandle({ timeout: 20_000 });
    const frame = (await handle!.contentFrame()) as Frame;
    await frame.getByRole('heading', { name: 'Welcome, Grace' }).waitFor({ timeout: 20_000 });
    expect(await frame.getByLabel('What should we call you?').inputValue()).toBe('Grace');
    await frame.getByLabel('What should we call you?').fill('Gracie');
    await frame.getByLabel('By phone').check();
    await page.screenshot({ path: `${SHOTS}/example-welcome-1-page.png`, fullPage: true });
    await frame.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'How to reach you' }).waitFor({ timeout: 20_000 });
    // The harbour theme on the hosted form: its header colour, its font, its logo.
    type El = { ownerDocument: { defaultView: { getComputedStyle(e: unknown): { backgroundColor: string; fontFamily: string } } } };
    expect(await page.locator('header').first().evaluate((e) => (e as unknown as El).ownerDocument.defaultView.getComputedStyle(e).backgroundColor)).toBe('rgb(11, 79, 87)');
    expect(await page.locator('body').evaluate((e) => (e as unknown as El).ownerDocument.defaultView.getComputedStyle(e).fontFamily)).toMatch(/^"?Lato"?/);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { fonts: { check(f: string): boolean } } }).document.fonts.check('16px Lato'))).toBe(true);
    expect(await page.locator('header img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);

    expect(await page.getByLabel('We will call you').inputValue()).toBe('Gracie');
    await page.getByLabel('Phone number').fill('+44 20 7946 0958');
    await page.screenshot({ path: `${SHOTS}/example-welcome-2-form.png`, fullPage: true });
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(async () => (await call('GET', `/api/process-manager/processInstances/${created.json.processInstanceId}`, { token })).json.status, { timeout: 20_000 }).toBe('COMPLETED_ENDED_SUCCESS');
    await page.screenshot({ path: `${SHOTS}/example-welcome-3-done.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
