import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * Pages a customer trusts, in Chromium at phone width, in German (from the browser's
 * Accept-Language) and English: the relying party's name, logo and support contact on every
 * page, the step's progress, the notice and consent before the face capture, the photo shown
 * before it is sent, the sending state, a refused form answered by a redirect to its page with
 * the focus on an error summary that names each field, the passcode screen, Confirm Image, the
 * end and an error page. Every page is audited with axe-core (no serious or critical
 * violation) in a context that bypasses the CSP (to inject axe), while the journey itself runs
 * in a context that keeps it and records every CSP violation: there must be none.
 */
const AXE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const FACE = resolve(import.meta.dirname, '../fixtures/face-640x480.jpg');
// A 1x1 PNG for the logo (the machine's network is closed: the browser gets it from the test).
const LOGO = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const fresh = () => Math.random().toString(36).slice(2, 8);

let browser: Browser;
let token: string;

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const label = (en: string, de: string) => ({ values: { en, de } });

/** A bank's journey: its details form, a face capture that needs consent, Confirm Image, then a passcode. */
const trustedJourney = (name: string) => ({
  name,
  version: 1,
  retentionDays: 30,
  presentation: {
    name: 'Nordbank',
    logoUrl: 'https://cdn.nordbank.example/logo.png',
    supportEmail: 'help@nordbank.example',
    supportUrl: 'https://nordbank.example/help',
    privacyUrl: 'https://nordbank.example/privacy',
  },
  startActivityId: 'addUser',
  activities: {
    addUser: { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': '${storeName}' }, next: 'startRegistration' },
    startRegistration: { type: 'START_PASSCODE_REGISTRATION', inputs: { 'Passcode Key': 'pin', 'Store Name': '${storeName}' }, next: 'details' },
    details: {
      type: 'DATA_FORM',
      inputs: {
        'Form data Key': 'details',
        Form: {
          title: label('Your details', 'Ihre Angaben'),
          version: 1,
          components: [
            { type: 'textfield', id: 'firstName', label: label('First name', 'Vorname'), validate: { required: true } },
            { type: 'textfield', id: 'lastName', label: label('Last name', 'Nachname'), validate: { required: true } },
            { type: 'textfield', id: 'city', label: label('City', 'Stadt'), validate: { required: true } },
          ],
        },
      },
      next: 'captureFace',
    },
    captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face', 'Require Consent': true }, next: 'confirm' },
    confirm: { type: 'GENERIC_USER_TASK', next: 'passcodeForm' },
    passcodeForm: { type: 'PASSCODE_AUTHENTICATION_FORM', inputs: { 'Data form name': 'passcode-registration' }, next: 'completeRegistration' },
    completeRegistration: { type: 'COMPLETE_PASSCODE_REGISTRATION', next: 'decide' },
    decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { errorEvent: true }, outcome: 'FAIL' }], default: 'PASS' },
  },
});

type Violation = { id: string; impact: string | null; nodes: string[] };

/** axe-core on `url`, opened in the audit context (which bypasses the CSP, so the script can be injected): its serious and critical violations. */
async function audit(auditContext: BrowserContext, url: string, shot: string): Promise<Violation[]> {
  const page = await auditContext.newPage();
  await page.goto(url);
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  await page.screenshot({ path: `${SHOTS}/trusted-${shot}.png`, fullPage: true });
  await page.close();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A context at phone width; the logo answered by the test. */
async function phoneContext(options: { locale: string; bypassCSP?: boolean }): Promise<BrowserContext> {
  const context = await browser.newContext({ ...PHONE, locale: options.locale, ...(options.bypassCSP ? { bypassCSP: true } : {}) });
  await context.route('https://cdn.nordbank.example/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: LOGO }));
  return context;
}

/** Records the page's CSP violations (an init script runs before the page's own, outside its CSP). */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const g = globalThis as unknown as { __csp: string[]; document: { addEventListener: (t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void) => void } };
    g.__csp = [];
    g.document.addEventListener('securitypolicyviolation', (e) => g.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return () => page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp);
}

const TEXT = {
  de: {
    locale: 'de-DE',
    form: 'Ihre Angaben',
    step1: 'Schritt 1',
    continue: 'Weiter',
    required: 'Dieses Feld ist erforderlich.',
    fields: ['Vorname', 'Nachname', 'Stadt'],
    face: 'Ein Foto Ihres Gesichts',
    agree: 'Ich bin einverstanden',
    noticeDays: '30 Tage',
    chosen: 'Das ausgewählte Foto',
    sending: 'Wird gesendet…',
    preview: 'Prüfen Sie Ihr Foto',
    use: 'Dieses Foto verwenden',
    passcode: 'Passcode',
    passcodeConfirm: 'Passcode wiederholen',
    done: 'Vielen Dank',
    gone: 'Dieser Link funktioniert nicht mehr',
    privacy: 'Datenschutzhinweise',
  },
  en: {
    locale: 'en-GB',
    form: 'Your details',
    step1: 'Step 1',
    continue: 'Continue',
    required: 'This field is required.',
    fields: ['First name', 'Last name', 'City'],
    face: 'A photo of your face',
    agree: 'I agree',
    noticeDays: '30 days',
    chosen: 'The photo you chose',
    sending: 'Sending…',
    preview: 'Check your photo',
    use: 'Use this photo',
    passcode: 'Passcode',
    passcodeConfirm: 'Passcode again',
    done: 'Thank you',
    gone: 'This link no longer works',
    privacy: 'Privacy notice',
  },
} as const;

describe('pages a customer trusts, in Chromium at phone width', () => {
  for (const lang of ['de', 'en'] as const) {
    it(`${lang}: every screen names the bank, passes axe-core and breaks no CSP; consent, preview, sending state, refusals by redirect`, async () => {
      const t = TEXT[lang];
      const definition = `e2e-trusted-${fresh()}`;
      const created = await call('POST', '/api/process-manager/processDefinitions', { token, body: trustedJourney(definition) });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const storeName = `e2e-${fresh()}`;
      const store = await call('POST', '/api/identity-store/stores', { token, body: { name: storeName, passcodePolicies: { pin: { requirements: { minimumLength: 8 } } } } });
      expect(store.status).toBe(201);
      const pt = await call('POST', '/api/process-manager/processTokens', {
        token,
        body: { name: definition, processDefnName: definition, processDefnVersion: 1, parameters: { externalId: `anna-${fresh()}`, storeName } },
      });
      const instance = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
      expect(instance.status).toBe(201);

      const auditContext = await phoneContext({ locale: t.locale, bypassCSP: true });
      const context = await phoneContext({ locale: t.locale });
      const page = await context.newPage();
      const cspViolations = await watchCsp(page);
      const serious: Record<string, Violation[]> = {};
      const check = async (name: string) => {
        serious[name] = await audit(auditContext, page.url(), `${name}-${lang}`);
      };

      // The language from Accept-Language (no &lang= in the link), and the bank on the page.
      await page.goto(instance.json.redirectUrl);
      await page.getByRole('heading', { name: t.form }).waitFor({ timeout: 15_000 });
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      expect(await page.locator('header.rp').innerText()).toBe('Nordbank');
      expect(await page.locator('header.rp img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
      expect(await page.getByRole('link', { name: t.privacy }).getAttribute('href')).toBe('https://nordbank.example/privacy');
      expect(await page.locator('footer').innerText()).toContain('help@nordbank.example');
      // The first of four user steps (the two before it are service steps).
      expect(await page.locator('.progress').innerText()).toBe(t.step1);
      expect(await page.locator('.progress progress').getAttribute('value')).toBe('1');
      expect(await page.locator('.progress progress').getAttribute('max')).toBe('4');
      await check('form');

      // The switch: the other language, then back (`lang=` in the link wins over the header).
      const other = lang === 'de' ? 'en' : 'de';
      await page.locator(`footer a[hreflang="${other}"]`).click();
      expect(await page.locator('html').getAttribute('lang')).toBe(other);
      await page.locator(`footer a[hreflang="${lang}"]`).click();
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);

      // Refused: a redirect to the page (a GET), the focus on the summary, each field named.
      await page.getByLabel(t.fields[0]).fill('Anna');
      await page.getByRole('button', { name: t.continue }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { className: string } } }).document.activeElement.className)).toBe('summary');
      const summary = await page.getByRole('alert').innerText();
      expect(summary).toContain(`${t.fields[1]}: ${t.required}`);
      expect(summary).toContain(`${t.fields[2]}: ${t.required}`);
      expect(await page.getByLabel(t.fields[0]).inputValue()).toBe('Anna');
      expect(page.url()).not.toContain('/steps/');
      await check('form-refused');
      // Back and forward again: a GET each time, no resubmission (a POST would reach the step route).
      const posts: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST') posts.push(r.url());
      });
      await page.reload();
      expect(await page.getByRole('alert').innerText()).toContain(t.required);
      expect(posts).toEqual([]);

      await page.getByLabel(t.fields[1]).fill('Lee');
      await page.getByLabel(t.fields[2]).fill('Bremen');
      await page.getByRole('button', { name: t.continue }).click();

      // The face: the notice first (the bank, 30 days, its privacy notice); nothing to capture until the box is ticked.
      await page.getByRole('heading', { name: t.face }).waitFor({ timeout: 15_000 });
      const notice = await page.locator('#consent-text').innerText();
      expect(notice).toContain('Nordbank');
      expect(notice).toContain(t.noticeDays);
      expect(await page.locator('.consent a').getAttribute('href')).toBe('https://nordbank.example/privacy');
      expect(await page.locator('#face-file').isVisible()).toBe(false);
      await check('face-consent');
      await page.getByLabel(t.agree).check();
      expect(await page.locator('#face-file').isVisible()).toBe(true);
      await page.locator('#face-file').setInputFiles(FACE);
      await page.getByRole('img', { name: t.chosen }).waitFor();
      // The sending state, held on screen: a listener after the page's own cancels this one send,
      // so the page stays as it shows itself while an upload is on its way (16 s on a slow link).
      await page.evaluate(() => {
        const w = globalThis as unknown as { addEventListener: (t: string, f: (e: { preventDefault(): void }) => void, o: unknown) => void };
        w.addEventListener('submit', (e) => e.preventDefault(), { once: true });
      });
      await page.getByRole('button', { name: t.continue }).click();
      const button = page.locator('#face-form button[type=submit]');
      expect(await button.innerText()).toBe(t.sending);
      expect(await button.getAttribute('aria-busy')).toBe('true');
      expect(await page.locator('#face-form').getAttribute('aria-busy')).toBe('true');
      await expect.poll(() => button.isDisabled()).toBe(true);
      await page.screenshot({ path: `${SHOTS}/trusted-face-sending-${lang}.png`, fullPage: true });
      // A second press sends nothing more; the form goes as the first press would have sent it.
      await page.evaluate(() => (globalThis as unknown as { document: { getElementById: (id: string) => { submit(): void } } }).document.getElementById('face-form').submit());

      // Confirm Image.
      await page.getByRole('heading', { name: t.preview }).waitFor({ timeout: 30_000 });
      await check('preview');
      await page.getByRole('button', { name: t.use }).click();

      // The passcode: its subtitle once (the form's), and the screen's own note about the device.
      await page.getByLabel(t.passcodeConfirm).waitFor({ timeout: 15_000 });
      const subtitles = await page.locator('p.sub, p.hint').allInnerTexts();
      expect(new Set(subtitles).size).toBe(subtitles.length);
      expect(subtitles.join(' ').match(lang === 'de' ? /bestätigen Sie/g : /confirm it is you/g)).toHaveLength(1);
      await check('passcode');
      await page.getByLabel(t.passcode, { exact: true }).fill('Sommer2026');
      await page.getByLabel(t.passcodeConfirm).fill('Sommer2026');
      await page.getByRole('button', { name: t.continue }).click();

      await page.getByRole('heading', { name: t.done }).waitFor({ timeout: 15_000 });
      expect(await page.locator('header.rp').innerText()).toBe('Nordbank');
      await check('done');
      expect(await cspViolations()).toEqual([]);

      // An error page: a link that does not work.
      const gone = instance.json.redirectUrl.replace(/c=[^&]+/, `c=${'x'.repeat(43)}`);
      const errorPage = await context.newPage();
      const violationsOnError = await watchCsp(errorPage);
      expect((await errorPage.goto(gone))!.status()).toBe(404);
      expect(await errorPage.getByRole('heading').innerText()).toBe(t.gone);
      expect(await violationsOnError()).toEqual([]);
      serious.gone = await audit(auditContext, gone, `gone-${lang}`);

      expect(serious).toEqual({ form: [], 'form-refused': [], 'face-consent': [], preview: [], passcode: [], done: [], gone: [] });
      await context.close();
      await auditContext.close();

      // What the relying party reads: the consent kept with the capture's user data.
      expect(await finalStatus(instance.json.processInstanceId, token)).toBe('COMPLETED_ENDED_SUCCESS');
      const read = await call('GET', `/api/process-manager/processInstances/${instance.json.processInstanceId}`, { token });
      const data = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${instance.json.processInstanceId}/userdata`, { token });
      const text = JSON.stringify(data.json);
      expect(text).toContain('face-capture-notice/1');
      expect(text).toContain('consentGivenAt');
    }, 180_000);
  }
});
