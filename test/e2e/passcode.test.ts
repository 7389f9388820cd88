import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { passcodeJourney } from '../integration/journeys.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * Passcodes in Chromium: the end user chooses a passcode while the page checks the policy's
 * rules, the browser makes the SRP verifier, then proves the passcode with the SRP handshake.
 * Every request the page makes is watched: the passcode must never be in one.
 */
let browser: Browser;
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 8);
const PASSCODE = 'Sommer2026';

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('a passcode journey in Chromium', () => {
  it('registers a passcode that never leaves the page, then proves it, in German', async () => {
    const definition = `e2e-passcode-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: passcodeJourney(definition) })).status).toBe(201);
    const storeName = `e2e-${fresh()}`;
    const store = await call('POST', '/api/identity-store/stores', {
      token,
      body: { name: storeName, passcodePolicies: { pin: { requirements: { minimumLength: 8, digitCount: 2, upperCaseCount: 1 } } } },
    });
    expect(store.status).toBe(201);
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: definition, processDefnName: definition, processDefnVersion: 1, parameters: { externalId: `anna-${fresh()}`, storeName } },
    });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });

    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('request', (r) => sent.push(`${r.url()} ${r.postData() ?? ''}`));
    await page.goto(`${created.json.redirectUrl}&lang=de`);
    await page.getByRole('heading', { name: 'Wählen Sie einen Passcode' }).waitFor({ timeout: 15_000 });
    // The data form the step names (passcode-registration v1, an example form) frames the screen.
    expect(await page.getByRole('status').first().innerText()).toBe('Verraten Sie Ihren Passcode niemandem, auch uns nicht.');
    const rule = (id: string) => page.locator(`#pc-rules li[data-rule="${id}"]`);
    expect(await rule('minimumLength').getAttribute('data-ok')).toBe('false');
    await page.screenshot({ path: `${SHOTS}/11-passcode-de.png`, fullPage: true });

    // As the end user types, each rule is marked when met.
    await page.getByLabel('Passcode', { exact: true }).pressSequentially('sommer');
    expect(await rule('minimumLength').getAttribute('data-ok')).toBe('false');
    await page.getByLabel('Passcode', { exact: true }).fill('');
    await page.getByLabel('Passcode', { exact: true }).pressSequentially(PASSCODE);
    expect(await rule('minimumLength').getAttribute('data-ok')).toBe('true');
    expect(await rule('digitCount').getAttribute('data-ok')).toBe('true');
    expect(await rule('upperCaseCount').getAttribute('data-ok')).toBe('true');
    await page.screenshot({ path: `${SHOTS}/12-passcode-rules-de.png`, fullPage: true });

    // A confirmation that differs is caught on the page.
    await page.getByLabel('Passcode wiederholen').fill('Sommer2025');
    await page.getByRole('button', { name: 'Weiter' }).click();
    await page.getByText('Die beiden Passcodes stimmen nicht überein.').waitFor();
    await page.getByLabel('Passcode wiederholen').fill(PASSCODE);
    await page.getByRole('button', { name: 'Weiter' }).click();

    await page.getByRole('heading', { name: 'Geben Sie Ihren Passcode ein' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Passcode').fill('Winter2026');
    await page.getByRole('button', { name: 'Weiter' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('Verbleibende Versuche: 2');
    await page.screenshot({ path: `${SHOTS}/13-passcode-wrong-de.png`, fullPage: true });
    await page.getByLabel('Passcode').fill(PASSCODE);
    await page.getByLabel('Passcode').press('Enter');
    await page.getByRole('heading', { name: 'Vielen Dank' }).waitFor({ timeout: 15_000 });
    await context.close();

    expect(await finalStatus(created.json.processInstanceId, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const posts = sent.filter((s) => s.includes('/passcode?'));
    expect(posts.length).toBe(3);
    for (const s of sent) {
      expect(s).not.toContain(PASSCODE);
      expect(s).not.toContain('Winter2026');
    }
  });
});
