import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../support/zip.js';
import type { Browser, Frame, Page } from 'playwright-core';
import { adminToken, call } from '../integration/client.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * Custom pages in a journey, in Chromium, deployed as the family's tools deploy them: each page
 * uploaded as a zip in the family's JSON body ("Save & Deploy"), its versions listed and its
 * preview fetched without a token, the BPMN (test/fixtures/e2e/custom-pages.bpmn) uploaded as
 * base64 and activated. The name page speaks the protocol as real pages do (waits for `command
 * === 'PROCESS'`, posts analytics and noise to the top window), the consent page as the family's
 * page tester does (`event === 'message'`); the journey routes on what they sent (a retake of the
 * name page, then the consent), and the user data API shows it in `data`.
 */
const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/e2e/custom-pages.bpmn'), 'utf8');
const PAGES = '/api/theme-server/customPages';
const DEFINITIONS = '/api/process-manager/processDefinitions';
const fresh = () => Math.random().toString(36).slice(2, 8);


const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title><link rel="stylesheet" href="css/page.css"></head><body>${body}<script src="js/page.js"></script></body></html>`;
const CSS = 'body{font-family:sans-serif;margin:1rem}pre{white-space:pre-wrap;font-size:.7rem}';

/** Real pages' way: noise to the top window, READY, then wait for `command === 'PROCESS'`. */
const NAME_PAGE = {
  'index.html': html(
    'Preferred name',
    '<h1 id="greeting">…</h1><form id="f"><label>Preferred name <input id="name" required></label> <button type="button" id="back">Back</button> <button>Continue</button></form><pre id="told"></pre>',
  ),
  'css/page.css': CSS,
  'js/page.js': `
window.parent.postMessage('noise', '*');
window.top.postMessage({ pageIdType: 'name', analyticsEventType: 'view' }, '*');
window.parent.postMessage({ event: 'SOMETHING_ELSE' }, '*');
window.addEventListener('message', function (e) {
  if (!e.data || e.data.command !== 'PROCESS') return;
  document.getElementById('greeting').textContent = e.data.variables.sessionData.greeting;
  document.getElementById('told').textContent = JSON.stringify(e.data.variables);
  document.body.dataset.told = 'yes';
});
document.getElementById('back').onclick = function () { window.parent.postMessage({ event: 'SEND', variables: { goback: true } }, '*'); };
document.getElementById('f').onsubmit = function (ev) {
  ev.preventDefault();
  window.parent.postMessage({ event: 'SEND', variables: { preferredName: document.getElementById('name').value, goback: false, when: new Date('2026-11-28T10:00:00Z'), tags: ['a', 1] } }, '*');
};
window.parent.postMessage({ event: 'READY' }, '*');
`,
};

/** The family's page tester's way: `event === 'message'`. */
const CONSENT_PAGE = {
  'index.html': html(
    'Consent',
    '<h1 id="thanks">…</h1><form id="f"><label><input type="checkbox" id="consent"> I agree</label> <button>Continue</button></form><pre id="told"></pre>',
  ),
  'css/page.css': CSS,
  'js/page.js': `
var told;
window.addEventListener('message', function (e) {
  if (!e.data || e.data.event !== 'message') return;
  told = e.data.variables;
  document.getElementById('thanks').textContent = 'Thanks, ' + told.sessionData.preferredName;
  document.getElementById('told').textContent = JSON.stringify(told);
  document.body.dataset.told = 'yes';
});
document.getElementById('f').onsubmit = function (ev) {
  ev.preventDefault();
  window.parent.postMessage({ event: 'SEND', variables: { consent: document.getElementById('consent').checked, channel: told.constants.brand } }, '*');
};
window.parent.postMessage({ event: 'READY' }, '*');
`,
};

/** A page that never says READY. */
const SILENT_PAGE = { 'index.html': html('Silent', '<p>I never say READY.</p>'), 'css/page.css': CSS, 'js/page.js': '/* nothing */' };

let browser: Browser;
let token: string;
let definition: string;
let nameVersion: number;
let silentDefinition: string;

async function uploadPage(name: string, files: Record<string, string>): Promise<{ id: string; version: number; previewUrl: string }> {
  const archive = (await zipOf(files)).toString('base64');
  const created = await call('POST', PAGES, { token, body: { name, description: `${name} (e2e)`, archive, creationOption: 'Save & Deploy' } });
  expect(created.status, created.text).toBe(201);
  const activated = await call('POST', `${PAGES}/${created.json.id}/status/DEPLOYED_ACTIVE`, { token, body: {} });
  expect(activated.status, activated.text).toBe(200);
  return { id: created.json.id, version: created.json.version, previewUrl: activated.json.previewUrl };
}

async function publish(bpmn: string, name: string): Promise<void> {
  const uploaded = await call('POST', DEFINITIONS, {
    token,
    body: { name, serverType: 'CAMUNDA', resources: { bpmn: { data: Buffer.from(bpmn).toString('base64'), type: 'BPMN' } }, themeId: null },
  });
  expect(uploaded.status, uploaded.text).toBe(201);
  const activated = await call('POST', `${DEFINITIONS}/${uploaded.json.id}/status/DEPLOYED_ACTIVE`, { token });
  expect(activated.status, activated.text).toBe(200);
}

async function start(defn: string, parameters: Record<string, string> = {}): Promise<{ id: string; redirectUrl: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `e2e-cp-${fresh()}`, processDefnName: defn, processDefnVersion: 1, parameters } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  return { id: created.json.processInstanceId, redirectUrl: created.json.redirectUrl };
}

const read = async (id: string) => (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json;

/** CSP violations the page reports, and its script errors. */
async function watched(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.exposeFunction('reportViolation', (v: string) => problems.push(v));
  await page.addInitScript(() => {
    const g = globalThis as unknown as { reportViolation(v: string): void; document: { addEventListener: (t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void) => void } };
    g.document.addEventListener('securitypolicyviolation', (e) => g.reportViolation(`CSP ${e.violatedDirective} ${e.blockedURI}`));
  });
  return problems;
}

/** What the page SENDs, posted by the host: the next journey page has loaded. */
async function sent(page: Page, act: () => Promise<void>): Promise<void> {
  const loaded = page.waitForEvent('load', { timeout: 20_000 });
  await act();
  await loaded;
}

/** The custom page's frame, once the host has told it (its body says so). */
async function toldFrame(page: Page): Promise<Frame> {
  const handle = await page.locator('iframe#custom-page').elementHandle({ timeout: 20_000 });
  const frame = (await handle!.contentFrame())!;
  await frame.locator('body[data-told="yes"]').waitFor({ timeout: 20_000 });
  await page.locator('#custom-page-loading').waitFor({ state: 'hidden' });
  return frame;
}

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
  const name = await uploadPage('E2EPageName', NAME_PAGE);
  nameVersion = name.version;
  await uploadPage('E2EPageConsent', CONSENT_PAGE);
  const silent = await uploadPage('E2EPageSilent', SILENT_PAGE);
  definition = `e2e-custom-pages-${fresh()}`;
  await publish(BPMN.replace('${NAME_VERSION}', `\${${nameVersion}}`), definition);
  // The same journey with the silent page first, and 25 s timers.
  silentDefinition = `e2e-custom-pages-silent-${fresh()}`;
  await publish(BPMN.replace('>E2EPageName<', '>E2EPageSilent<').replace('${NAME_VERSION}', `\${${silent.version}}`).replaceAll('PT4M30S', 'PT25S'), silentDefinition);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('custom pages in a journey, in Chromium', () => {
  it('deploys as the family deploys: versions listed, the preview and its files read without a token', async () => {
    const versions = await call('GET', `${PAGES}/E2EPageName/versions?page=0&size=1&sort=version,desc`, { token });
    expect(versions.status).toBe(200);
    expect(versions.json.content[0]).toMatchObject({ version: nameVersion, status: 'DEPLOYED_ACTIVE' });
    const page = await browser.newPage();
    const detail = await call('GET', `${PAGES}/${versions.json.content[0].id}`, { token });
    expect(detail.json.archiveEntries.map((e: { path: string }) => e.path).sort()).toEqual(['/css/page.css', '/index.html', '/js/page.js']);
    const preview = await page.goto(detail.json.previewUrl);
    expect(preview?.status()).toBe(200);
    expect(preview?.headers()['content-type']).toMatch(/^text\/html/);
    await page.close();
  });

  it('collects both protocol variants, retakes a page, routes on what they sent, and shows it in userdata.data', async () => {
    const { id, redirectUrl } = await start(definition, { firstName: 'Ada', assisted: '1' });
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    const problems = await watched(page);
    await page.goto(`${redirectUrl}&lang=en`);

    // The name page, told what the task says: its Session Data evaluated, its constants with the family's additions.
    let frame = await toldFrame(page);
    expect(await frame.locator('#greeting').innerText()).toBe('Hello Ada!');
    const told = JSON.parse(await frame.locator('#told').innerText());
    expect(told.sessionData).toMatchObject({ greeting: 'Hello Ada!', assisted: '1', config: { firstName: 'Ada', assisted: '1' } });
    expect(told.constants).toMatchObject({ language: 'en', screenId: 'custom-page', screens: ['custom-page'], timeoutInSeconds: 270 });
    expect(told.constants.baseUrl).toMatch(/^http:\/\/pages\.localhost:\d+\/tenants\/[^/]+\/custom-pages\/[^/]+\/[^/]+\/$/);
    await page.screenshot({ path: `${SHOTS}/custom-page-1-name.png`, fullPage: true });

    // What is not the frame's is ignored: a SEND posted by the host window itself, or by the frame with garbage variables.
    type Win = { postMessage(m: unknown, o: string): void; parent: { postMessage(m: unknown, o: string): void } };
    await page.evaluate(() => (globalThis as unknown as Win).postMessage({ event: 'SEND', variables: { evil: 'yes' } }, '*'));
    await frame.evaluate(() => (globalThis as unknown as Win).parent.postMessage({ event: 'SEND', variables: [1, 2] }, '*'));
    await page.locator('#custom-page-problem').waitFor({ state: 'visible' });
    // Neither was posted: the step's submissions below are the page's own, and nothing else.

    // Back: the gateway takes the journey to the same page again (a retake), told afresh.
    await sent(page, () => frame.locator('#back').click());
    frame = await toldFrame(page);
    await frame.locator('#name').fill('Ada L.');
    await sent(page, () => frame.getByRole('button', { name: 'Continue' }).click());

    // The consent page, in the page tester's variant, told what the name page sent.
    frame = await toldFrame(page);
    expect(await frame.locator('#thanks').innerText()).toBe('Thanks, Ada L.');
    const consentTold = JSON.parse(await frame.locator('#told').innerText());
    expect(consentTold.constants).toMatchObject({ brand: 'default', timeoutInSeconds: 270 });
    await page.screenshot({ path: `${SHOTS}/custom-page-2-consent.png`, fullPage: true });
    await frame.locator('#consent').check();
    await sent(page, () => frame.getByRole('button', { name: 'Continue' }).click());

    await page.getByRole('heading', { level: 1 }).filter({ hasText: /./ }).first().waitFor({ timeout: 20_000 });
    await expect.poll(async () => (await read(id)).status, { timeout: 20_000 }).toBe('COMPLETED_ENDED_SUCCESS');
    await page.screenshot({ path: `${SHOTS}/custom-page-3-done.png`, fullPage: true });

    const defnId = (await read(id)).processDefnId as string;
    const data = (await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata`, { token })).json;
    expect(data.data).toEqual({
      nameForm: { preferredName: 'Ada L.', goback: 'false', when: '2026-11-28T10:00:00.000Z', tags: '["a",1]' },
      consentForm: { consent: 'true', channel: 'default' },
    });
    const steps = (data.steps as { activityType: string; activityId: string; values: Record<string, string> }[]).filter((s) => s.activityType === 'CUSTOM_PAGE');
    // A step's user data is its last submission: the retake replaced the first.
    expect(steps.map((s) => [s.activityId, s.values])).toEqual([
      ['CPG01_name', { preferredName: 'Ada L.', goback: 'false', when: '2026-11-28T10:00:00.000Z', tags: '["a",1]' }],
      ['CPG01_consent', { consent: 'true', channel: 'default' }],
    ]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('a page the end user sits on is never reloaded under them: the host follows the journey, not its own changes', async () => {
    const { id, redirectUrl } = await start(definition, { firstName: 'Cy' });
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    const problems = await watched(page);
    // The page script comes late (a slow network), so the page is READY, and the host has hidden
    // its "Loading", before the page script starts following the journey.
    await page.route('**/journey/assets/page.js', async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.continue();
    });
    await page.clock.install();
    let navigations = 0;
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations += 1;
    });
    await page.goto(`${redirectUrl}&lang=en`);
    const frame = await toldFrame(page);
    const before = navigations;
    await frame.locator('#name').fill('Half typed');
    // Two looks at the journey (15 s apart): it has not moved, so the page stays as it is. The page
    // sets its next look only once it has read the last answer (follow.ts), which on a loaded
    // machine may be after the clock jumped: the clock goes on in 16 s steps until the look goes out.
    for (let look = 0; look < 2; look += 1) {
      let seen = false;
      const looked = page.waitForResponse((r) => r.url() === page.url() && r.request().method() === 'GET', { timeout: 30_000 }).then(async (r) => {
        seen = true;
        await r.finished();
      });
      await page.clock.fastForward('00:16');
      for (let step = 0; step < 20 && !seen; step += 1) {
        await new Promise((r) => setTimeout(r, 500));
        if (!seen) await page.clock.fastForward('00:16');
      }
      await looked;
    }
    await page.clock.runFor(1_000);
    expect(navigations).toBe(before);
    expect(await frame.locator('#name').inputValue()).toBe('Half typed');
    expect((await read(id)).status).toBe('ACTIVE');
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('a page that never says READY: the host says so and offers to load it again, and the timer ends the step', async () => {
    const { id, redirectUrl } = await start(silentDefinition, { firstName: 'Bo' });
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    const problems = await watched(page);
    await page.goto(`${redirectUrl}&lang=en`);
    await page.locator('iframe#custom-page').waitFor();
    expect(await page.locator('#custom-page-loading').innerText()).toBe('Loading the page…');
    await page.getByText('The page is taking longer than it should to load.').waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/custom-page-4-stuck.png`, fullPage: true });
    await page.getByRole('button', { name: 'Load it again' }).click();
    expect(await page.getByText('The page is taking longer than it should to load.').isVisible()).toBe(false);
    // The step's timer (25 s here, PT4M30S in the family) takes the journey to its timeout end, and the page follows.
    await expect.poll(async () => (await read(id)).status, { timeout: 40_000 }).toBe('COMPLETED_ENDED_ERROR');
    await page.locator('iframe#custom-page').waitFor({ state: 'detached', timeout: 30_000 });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
