import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * The home page and the API reference in Chromium, at desktop and phone width: they render with
 * their CSP enforced and without a violation, need no script, fit the phone's width, link to
 * each other, and pass an axe-core audit (no serious or critical violation).
 */
const AXE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
const url = (path: string) => `http://demo.fir.localhost:${inject('port')}${path}`;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** Whether the page is no wider than the viewport (nothing to scroll sideways). */
function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const g = globalThis as any;
    return g.document.documentElement.scrollWidth <= g.innerWidth;
  });
}

/** axe-core's serious and critical violations on the page as it is now. */
async function audit(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const results = await page.evaluate(async () => {
    const r = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 3) }));
  });
  return (results as { id: string; impact: string; nodes: string[] }[]).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.join(', ')}`);
}

describe('the home page and the API reference', () => {
  for (const [width, options] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`render under their CSP with no violation and no script, fit the width and link to each other, at ${width} width`, async () => {
      const context = await browser.newContext({ ...options, javaScriptEnabled: false });
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      await page.goto(url('/'));
      await page.getByRole('heading', { level: 1, name: 'Identity verification and authentication orchestration' }).waitFor();
      // The style sheet applied (allowed by its hash): the header bar is dark.
      expect(await page.locator('header').evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundColor)).toBe('rgb(17, 24, 39)');
      expect(await fitsWidth(page)).toBe(true);
      await page.screenshot({ path: `${SHOTS}/home-${width}.png`, fullPage: true });
      await page.getByRole('main').getByRole('link', { name: 'API reference' }).click();
      await page.getByRole('heading', { level: 1, name: 'API reference' }).waitFor();
      expect(page.url()).toBe(url('/docs'));
      expect(await fitsWidth(page)).toBe(true);
      // The index leads to an operation.
      await page.getByRole('navigation', { name: 'Contents' }).getByRole('link', { name: 'POST /api/arthr/apiKeys/issue' }).click();
      expect(page.url()).toBe(url('/docs#op-issueToken'));
      await page.screenshot({ path: `${SHOTS}/api-reference-${width}.png` });
      await page.getByRole('navigation', { name: 'Service' }).getByRole('link', { name: 'Console' }).click();
      await page.getByRole('heading', { name: 'Console' }).first().waitFor();
      expect(violations).toEqual([]);
      await context.close();
    });

    it(`are linked from the console's header, at ${width} width`, async () => {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      await page.goto(url('/console'));
      await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      await page.getByRole('banner').getByRole('link', { name: 'API reference' }).click();
      await page.getByRole('heading', { level: 1, name: 'API reference' }).waitFor();
      await context.close();
    });

    it(`pass an axe-core audit with no serious or critical violation, at ${width} width`, async () => {
      // axe is injected as a script: a context that bypasses the CSP (the test above runs under it).
      const context = await browser.newContext({ ...options, bypassCSP: true });
      const page = await context.newPage();
      for (const path of ['/', '/docs']) {
        await page.goto(url(path));
        expect(await audit(page), path).toEqual([]);
      }
      await context.close();
    });
  }
});
