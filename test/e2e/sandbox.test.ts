import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PHONE, SHOTS, launchChromium, takeFacePhoto } from './browser.js';
import { adminToken, call, finalStatus } from '../integration/client.js';

/**
 * A developer's sandbox journey in Chromium: the fake camera shows no face (a landscape, as a
 * bare headless browser's test pattern has none), and a test-mode token forces the face checks
 * and the decision. Each forced decision ends the journey in the status a decider gives it, and
 * every page says "Test mode".
 */
const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
let browser: Browser;
let token: string;

beforeAll(async () => {
  browser = await launchChromium(resolve(import.meta.dirname, '../fixtures/faces/no-face-landscape.jpg'));
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function sandboxInstance(decision: string): Promise<{ id: string; redirectUrl: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: {
      name: `sandbox-e2e-${Math.random().toString(36).slice(2, 10)}`,
      processDefnName: 'selfie-match',
      processDefnVersion: '1',
      forTest: true,
      sandbox: { checks: { face: 'PASS', faceMatch: 'PASS' }, decision },
    },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  return { id: created.json.processInstanceId, redirectUrl: created.json.redirectUrl };
}

describe('a sandbox journey in Chromium', () => {
  it.each([
    ['PASS', 'COMPLETED_ENDED_SUCCESS'],
    ['REVIEW', 'REVIEW'],
    ['FAIL', 'COMPLETED_ENDED_ERROR'],
  ])('forced to %s with a faceless camera ends %s, with the Test mode banner on its pages', async (decision, status) => {
    const instance = await sandboxInstance(decision);
    const context = await browser.newContext(PHONE);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=en`);
    await page.getByRole('heading', { name: 'A photo of your face' }).waitFor({ timeout: 15_000 });
    const banner = page.getByRole('note').filter({ hasText: 'Test mode:' });
    expect(await banner.isVisible()).toBe(true);
    if (decision === 'PASS') {
      // The banner must not cost the page its accessibility (axe-core, serious and critical findings).
      // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
      await page.evaluate(axeSource);
      const found = (await page.evaluate(() => (globalThis as any).axe.run())) as { violations: { id: string; impact: string }[] };
      expect(found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/sandbox-test-mode-en.png`, fullPage: true });
    }
    await takeFacePhoto(page);
    expect(await finalStatus(instance.id, token)).toBe(status);
    await page.waitForLoadState('load');
    await page.reload();
    expect(await page.getByRole('note').filter({ hasText: 'Test mode:' }).isVisible()).toBe(true);
    await context.close();
  });
});
