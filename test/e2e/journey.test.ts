import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { identityCheck } from '../../statemachines/examples/index.js';
import { adminToken, call } from '../integration/client.js';

/**
 * The typical integration flow with a real browser: Debian's Chromium, driven by playwright-core,
 * at phone width. The backend side goes over the API like a relying party's backend.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = resolve(import.meta.dirname, '../../test-results/screenshots');

let browser: Browser;
let rp: Server;
let rpUrl: string;
let token: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is needed at ${CHROMIUM} (apt-get install chromium), or set CHROMIUM_PATH`);
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // The machine's network is closed: no background calls home, no sandbox as root.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
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

describe('a data form journey in Chromium at phone width', () => {
  it('is completed by an end user: wrong once, right, then back at the relying party', async () => {
    const def = structuredClone(identityCheck as Record<string, any>);
    def.name = `e2e-${Math.random().toString(36).slice(2, 8)}`;
    def.activities.personalDetails.next = 'decide';
    delete def.activities.captureFace;
    def.activities.decide.rules = [{ when: { errorEvent: true }, outcome: 'FAIL' }];
    def.activities.decide.default = 'PASS';
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: def })).status).toBe(201);
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: def.name, processDefnName: def.name, processDefnVersion: 1, parameters: { firstName: 'Anna', _redirectUrl: rpUrl } },
    });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(created.status).toBe(201);

    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${created.json.redirectUrl}&lang=de`);
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
    await page.getByRole('heading', { name: 'Vielen Dank' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: `${SHOTS}/3-done-de.png`, fullPage: true });
    await page.waitForURL(rpUrl, { timeout: 10_000 });
    expect(await page.getByRole('heading').innerText()).toBe('Back at the relying party');
    await context.close();

    const read = await call('GET', `/api/process-manager/processInstances/${created.json.processInstanceId}`, { token });
    expect(read.json.status).toBe('COMPLETED_ENDED_SUCCESS');
  });

  it('reads in English when the language is not one the pages have', async () => {
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `e2e-en-${Math.random().toString(36).slice(2, 8)}`, processDefnName: 'identity-check', processDefnVersion: 1 },
    });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${created.json.redirectUrl}&lang=fr`);
    await page.getByLabel('First name').waitFor();
    await page.screenshot({ path: `${SHOTS}/4-form-en.png`, fullPage: true });
    // Nothing on the page comes from anywhere but the service itself.
    const external = await page.evaluate<string[]>(
      "performance.getEntriesByType('resource').map((e) => e.name).filter((n) => !n.startsWith(location.origin))",
    );
    expect(external).toEqual([]);
    await page.close();
    expect(inject('port')).toBeGreaterThan(0);
  });
});
