import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, call } from '../integration/client.js';
import { TO_COMPUTER, TO_PHONE } from '../integration/switch-journeys.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * Every hosted screen a journey can show that test/e2e/trusted-pages.test.ts does not audit, in
 * English and German (from the browser's Accept-Language), in Chromium at phone width: the
 * switch-device screens on both devices, passcode sign-in, waiting, paused, passkeys, review,
 * a resume link and a switch link used already (410, 409: links that proved themselves, so the
 * bank's chrome too), the page of a post a step does not take, a step back to
 * the computer on one device, trouble and redirect. On each: the relying party's
 * name, `<html lang>` in the language, the progress where the journey is at a step, and no
 * serious or critical axe-core violation (audited in a context that bypasses the CSP to inject
 * axe, and whose own background requests are refused so that a waiting page does not reload
 * under the audit); the journey itself runs in contexts that keep the CSP and report every
 * violation: there must be none. One journey passes through most screens; the dead ends
 * (trouble, redirect) are journeys of one step. (The "cannot be completed here" page is for a
 * step no published definition can name since publishing refuses what cannot run: its unit
 * test, test/unit/journey/hosted-screens.test.ts, checks its chrome.)
 */
const AXE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
// A 1x1 PNG for the logo (the machine's network is closed: the browser gets it from the test).
const LOGO = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const DEFINITIONS = '/api/process-manager/processDefinitions';
const fresh = () => Math.random().toString(36).slice(2, 8);
const text = (en: string, de: string) => ({ values: { en, de } });

const PRESENTATION = {
  name: 'Nordbank',
  logoUrl: 'https://cdn.nordbank.example/logo.png',
  supportEmail: 'help@nordbank.example',
  privacyUrl: 'https://nordbank.example/privacy',
};
/** Where the journeys send the browser back to (answered 204 by the test: the page stays). */
const BANK = 'https://nordbank.example/back';
const RP_ID = 'demo.fir.localhost';

/**
 * The long journey: the computer shows the QR code, the phone fills in the details and a
 * passcode and signs in with it, then goes back to the computer, which pauses the journey until
 * it is resumed, creates a passkey and signs in with it; then it waits for the back office's review.
 */
const longJourney = (name: string, storeName: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  presentation: PRESENTATION,
  startActivityId: 'addUser',
  activities: {
    addUser: { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': storeName }, next: 'toPhone' },
    toPhone: { type: 'SWITCH_DEVICE', inputs: TO_PHONE, next: 'details' },
    details: {
      type: 'DATA_FORM',
      inputs: { 'Form data Key': 'details', Form: { title: text('Your details', 'Ihre Angaben'), components: [{ type: 'textfield', id: 'city', label: text('City', 'Stadt'), validate: { required: true } }] } },
      next: 'startRegistration',
    },
    startRegistration: { type: 'START_PASSCODE_REGISTRATION', inputs: { 'Passcode Key': 'pin', 'Store Name': storeName }, next: 'passcodeForm' },
    passcodeForm: { type: 'PASSCODE_AUTHENTICATION_FORM', inputs: { 'Data form name': 'passcode-registration' }, next: 'completeRegistration' },
    completeRegistration: { type: 'COMPLETE_PASSCODE_REGISTRATION', next: 'startLogin' },
    startLogin: { type: 'START_PASSCODE_AUTHENTICATION', inputs: { 'Passcode Policy': 'pin', 'Store Name': storeName, 'Passcode Registration Key': 'login1' }, next: 'loginForm' },
    loginForm: {
      type: 'PASSCODE_AUTHENTICATION_FORM',
      inputs: {
        'Data form name': 'passcode-login',
        'Passcode Registration Key': 'login1',
        'Form data Key': 'loginForm',
        'Starting Component ID': 'passcode-authentication',
        'UI Component ID': 'passcode-authentication',
      },
      next: 'toComputer',
    },
    toComputer: { type: 'SWITCH_DEVICE', inputs: TO_COMPUTER, next: 'pause' },
    pause: { type: 'PAUSE_INSTANCE', outputs: { _resumeUrl: '${resumeUrl}' }, next: 'wait' },
    wait: { type: 'WAIT_RESUME_INSTANCE', next: 'createPasskey' },
    createPasskey: { type: 'PASSKEY_REGISTRATION', inputs: { 'Store Name': storeName, 'Relying Party ID': RP_ID, 'Passkey Key': 'pkReg' }, next: 'signIn' },
    signIn: { type: 'PASSKEY_AUTHENTICATION', inputs: { 'Store Name': storeName, 'Relying Party ID': RP_ID, 'Passkey Key': 'pkAuth', 'User Key': 'signedIn' }, next: 'review' },
    // The family's review tail: the end user's part is over while the back office decides.
    review: { type: 'REVIEW_REQUIRED', next: 'backOffice' },
    backOffice: { type: 'REVIEW_FROM_BACK_OFFICE' },
  },
});

/** A journey of one step (and its own chrome), for the screens that end a journey elsewhere. */
const oneStep = (name: string, step: Record<string, unknown>) => ({
  name,
  version: 1,
  retentionDays: 1,
  presentation: PRESENTATION,
  startActivityId: 'only',
  activities: { only: step },
});
const DEAD_ENDS = {
  // A step back to the computer on a journey that never moved: "continue on this device".
  'switch-here': { type: 'SWITCH_DEVICE', inputs: TO_COMPUTER },
  // A redirect the step refuses (not http): the journey ends in a process error, "something went wrong".
  trouble: { type: 'REDIRECT_USER_V2', inputs: { 'Redirect URL': 'javascript:alert(1)' } },
  // On to the bank at once (a meta refresh of 0 s, which the test answers with 204: the page stays).
  redirect: { type: 'REDIRECT_USER_V2', inputs: { 'Redirect URL': BANK } },
} as const;

const TEXT = {
  de: {
    locale: 'de-DE',
    city: 'Stadt',
    continue: 'Weiter',
    passcode: 'Passcode',
    passcodeAgain: 'Passcode wiederholen',
    followPhone: 'Weiter auf dem Smartphone',
    followComputer: 'Weiter am Computer',
    back: 'Zurück zum Computer',
    paused: 'Angehalten',
    pkCreate: 'Passkey erstellen',
    pkSignIn: 'Mit Passkey anmelden',
    review: 'Ihr Antrag wird geprüft.',
    stay: 'Auf dieser Seite bleiben',
    gone: 'Dieser Link funktioniert nicht mehr',
    here: 'Auf diesem Gerät fortfahren',
    notHere: 'Dieser Schritt geht von selbst weiter',
    trouble: 'Etwas ist schiefgelaufen',
    redirect: 'Sie werden weitergeleitet',
  },
  en: {
    locale: 'en-GB',
    city: 'City',
    continue: 'Continue',
    passcode: 'Passcode',
    passcodeAgain: 'Passcode again',
    followPhone: 'Continue on your phone',
    followComputer: 'Continue on your computer',
    back: 'Go back to your computer',
    paused: 'Paused',
    pkCreate: 'Create a passkey',
    pkSignIn: 'Sign in with a passkey',
    review: 'Your application is being reviewed.',
    stay: 'Stay on this page',
    gone: 'This link no longer works',
    here: 'Continue on this device',
    notHere: 'This step moves on by itself',
    trouble: 'Something went wrong',
    redirect: 'You are being taken on',
  },
} as const;
type Lang = keyof typeof TEXT;

let browser: Browser;
let token: string;
let storeName: string;
let long: string;
const dead: Record<string, string> = {};

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
  storeName = `e2e-hosted-${fresh()}`;
  const store = await call('POST', '/api/identity-store/stores', { token, body: { name: storeName, passcodePolicies: { pin: { requirements: { minimumLength: 8 } } } } });
  expect(store.status, store.text).toBe(201);
  const passkeys = {
    rpId: RP_ID,
    rpName: 'Nordbank',
    allowedOrigins: [`http://${RP_ID}:${inject('port')}`],
    registrationPolicies: { default: { authenticatorSelection: { residentKey: 'required', userVerification: 'required' } } },
    authenticationPolicies: { default: { userVerification: 'required' } },
  };
  expect((await call('POST', `/api/identity-store/stores/${storeName}/passkeyConfig`, { token, body: passkeys })).status).toBe(201);
  long = `e2e-hosted-${fresh()}`;
  const published = await call('POST', DEFINITIONS, { token, body: longJourney(long, storeName) });
  expect(published.status, published.text).toBe(201);
  for (const [screen, step] of Object.entries(DEAD_ENDS)) {
    dead[screen] = `e2e-hosted-${screen}-${fresh()}`;
    const one = await call('POST', DEFINITIONS, { token, body: oneStep(dead[screen], step) });
    expect(one.status, one.text).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** A new instance of `definition`: its id and journey link (no `lang`: the browser's Accept-Language decides). */
async function start(definition: string, parameters: Record<string, string> = {}): Promise<{ id: string; link: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${definition}-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  return { id: created.json.processInstanceId, link: created.json.redirectUrl };
}

/** A context at phone width in `locale`; the logo and the bank answered by the test. */
async function phoneContext(locale: string, bypassCSP = false): Promise<BrowserContext> {
  const context = await browser.newContext({ ...PHONE, locale, ...(bypassCSP ? { bypassCSP: true } : {}) });
  await context.route('https://cdn.nordbank.example/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: LOGO }));
  // 204: a navigation to the bank does not commit, and the page that sends the browser there stays.
  await context.route('https://nordbank.example/**', (route) => route.fulfill({ status: 204 }));
  return context;
}

/** Every CSP violation in the context's pages, across navigations (reported through a binding, outside the pages' CSP). */
async function watchCsp(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding('__cspViolation', ({ page }, v: string) => void violations.push(`${page.url()}: ${v}`));
  await context.addInitScript(() => {
    const g = globalThis as unknown as { __cspViolation(v: string): void; document: { addEventListener: (t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void) => void } };
    g.document.addEventListener('securitypolicyviolation', (e) => g.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return violations;
}

type Violation = { id: string; impact: string | null; nodes: string[] };
type Expect = { progress: boolean };

/**
 * The audit of one screen, on a page of the audit context: the relying party and the language
 * in it, the progress where expected, and axe-core's serious and critical violations.
 */
async function auditPage(page: Page, lang: Lang, name: string, want: Expect): Promise<Violation[]> {
  expect(await page.locator('html').getAttribute('lang'), name).toBe(lang);
  expect(await page.locator('header.rp').innerText(), name).toBe('Nordbank');
  expect(await page.locator('footer').innerText(), name).toContain('help@nordbank.example');
  expect(await page.locator('.progress progress').count(), `${name}: progress`).toBe(want.progress ? 1 : 0);
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  await page.screenshot({ path: `${SHOTS}/hosted-${name}-${lang}.png`, fullPage: true });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('every hosted screen in Chromium at phone width', () => {
  for (const lang of ['en', 'de'] as const) {
    it(`${lang}: each names the bank, is in ${lang}, passes axe-core and breaks no CSP`, async () => {
      const t = TEXT[lang];
      const audited = await phoneContext(t.locale, true);
      // The audit's pages refuse their own background requests: a waiting page looks again, and would reload under axe.
      await audited.route('**/*', (route) => (route.request().resourceType() === 'fetch' ? route.abort() : route.fallback()));
      const computer = await phoneContext(t.locale);
      const phone = await phoneContext(t.locale);
      const cspOf = [await watchCsp(computer), await watchCsp(phone)];
      const serious: Record<string, Violation[]> = {};
      /** Audits `url` (opened in the audit context), or what `page` of the audit context shows. */
      const check = async (name: string, at: string | Page, want: Expect, status?: number) => {
        const page = typeof at === 'string' ? await audited.newPage() : at;
        if (typeof at === 'string') {
          const res = await page.goto(at);
          if (status) expect(res?.status(), name).toBe(status);
        }
        serious[name] = await auditPage(page, lang, name, want);
        await page.close();
      };

      const pages: Page[] = [];
      computer.on('page', (p) => pages.push(p));
      phone.on('page', (p) => pages.push(p));
      try {
        // The computer: the QR code and the link, the step's progress.
        const journey = await start(long, { externalId: `anna-${fresh()}`, _redirectUrl: BANK });
        const desk = await computer.newPage();
        await desk.goto(journey.link);
        await desk.locator('[data-screen="scan-qr"]').waitFor({ timeout: 15_000 });
        const switchLink = (await desk.locator('#switch-link').getAttribute('href'))!;
        expect(switchLink).toContain(`&lang=${lang}`);
        await check('switch-qr', journey.link, { progress: true });
        // A post to the step to the phone, which no post completes: a page back to the journey.
        const posted = await audited.newPage();
        await posted.goto(journey.link);
        await Promise.all([
          posted.waitForURL(/\/steps\/toPhone/),
          posted.evaluate((action) => {
            const d = (globalThis as unknown as { document: any }).document;
            const form = d.createElement('form');
            form.method = 'post';
            form.action = action;
            d.body.append(form);
            form.submit();
          }, `/journey/${journey.id}/steps/toPhone${new URL(journey.link).search}`),
        ]);
        await posted.getByRole('heading', { name: t.notHere }).waitFor();
        await check('switch-not-here', posted, { progress: true });

        // The phone opens the link; the computer's page follows it by itself.
        const hand = await phone.newPage();
        await hand.goto(switchLink);
        await hand.getByLabel(t.city).waitFor({ timeout: 15_000 });
        await desk.getByRole('heading', { name: t.followPhone }).waitFor({ timeout: 15_000 });
        await check('switch-follow-phone', journey.link, { progress: false });

        // On the phone: the details, a passcode, then signing in with it.
        await hand.getByLabel(t.city).fill('Bremen');
        await hand.getByRole('button', { name: t.continue }).click();
        await hand.getByLabel(t.passcodeAgain).waitFor({ timeout: 15_000 });
        await hand.getByLabel(t.passcode, { exact: true }).fill('Sommer2026');
        await hand.getByLabel(t.passcodeAgain).fill('Sommer2026');
        // The computer's page stops looking (it would take the journey back itself): the audit's visit does, below.
        await desk.goto('about:blank');
        await hand.getByRole('button', { name: t.continue }).click();
        await hand.locator('#pc-current').waitFor({ timeout: 15_000 });
        await check('passcode-sign-in', hand.url(), { progress: true });
        await hand.locator('#pc-current').fill('Sommer2026');
        await hand.getByRole('button', { name: t.continue }).click();

        // Back to the computer: the phone says so; the computer's next visit takes the journey back ("one moment").
        await hand.getByRole('heading', { name: t.back }).waitFor({ timeout: 15_000 });
        await check('switch-back', hand.url(), { progress: true });
        await check('waiting', journey.link, { progress: false });
        await hand.getByRole('heading', { name: t.followComputer }).waitFor({ timeout: 15_000 });
        await check('switch-follow-computer', hand.url(), { progress: false });

        // Paused on the computer, until the resume link (from the user data, as the bank reads it).
        await desk.goto(journey.link);
        await desk.getByRole('heading', { name: t.paused }).waitFor({ timeout: 15_000 });
        await check('paused', journey.link, { progress: true });
        const read = await call('GET', `/api/process-manager/processInstances/${journey.id}`, { token });
        const data = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${journey.id}/userdata`, { token });
        const resume = (data.json.steps as { activityType: string; values: { resumeUrl?: string } }[]).find((s) => s.activityType === 'PAUSE_INSTANCE')!.values.resumeUrl!;
        expect(resume).toBeDefined();

        // Passkeys, with Chromium's virtual authenticator on the computer.
        const cdp = await computer.newCDPSession(desk);
        await cdp.send('WebAuthn.enable');
        await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
        });
        // The bank resumes it (the API); the computer's page follows by itself. (Its resume link, opened
        // on a journey that moved between devices, gives a device that does not hold it: left as it is here.)
        expect((await call('POST', `/api/process-manager/processInstances/${journey.id}/resume`, { token })).status).toBe(200);
        await desk.getByRole('button', { name: t.pkCreate }).waitFor({ timeout: 30_000 });
        await check('passkey-create', desk.url(), { progress: true });
        await desk.getByRole('button', { name: t.pkCreate }).click();
        await desk.getByRole('button', { name: t.pkSignIn }).waitFor({ timeout: 15_000 });
        await check('passkey-sign-in', desk.url(), { progress: true });
        await desk.getByRole('button', { name: t.pkSignIn }).click();

        // The review: the end user's part is over; on to the bank in a moment, unless they stay.
        await desk.getByText(t.review).waitFor({ timeout: 15_000 });
        await desk.getByRole('button', { name: t.stay }).click();
        await check('review', desk.url(), { progress: false });
        // The resume link, after the bank resumed: used (410), on a page of the bank's (the link proved itself).
        await check('gone-resume', resume, { progress: false }, 410);
        // The switch link a second time: used (409), the bank's page too.
        await check('gone-switch-link', switchLink, { progress: false }, 409);
        expect(desk.url()).toContain(`/journey/${journey.id}`);

        // The dead ends, each a journey of its own.
        for (const [screen, heading] of [['switch-here', t.here], ['trouble', t.trouble], ['redirect', t.redirect]] as const) {
          const one = await start(dead[screen]!);
          const page = await phone.newPage();
          await page.goto(one.link);
          // Up to a minute, as soon as it shows: a loaded CI machine once took over 30 s to record the failed step's end.
          await page.getByRole('heading', { name: heading }).waitFor({ timeout: 60_000 }).catch(async (err) => {
            // The service's log lines of the instance, to tell a slow step from an end never recorded.
            const logged = readFileSync(inject('logFile'), 'utf8').split('\n').filter((line) => line.includes(one.id)).slice(-12).join('\n');
            throw new Error(`${screen}: ${(await call('GET', `/api/process-manager/processInstances/${one.id}`, { token })).text.slice(0, 400)}\n${logged}`, { cause: err });
          });
          await check(screen, one.link, { progress: screen === 'switch-here' });
          await page.close();
        }

        expect(serious).toEqual(Object.fromEntries(Object.keys(serious).map((k) => [k, []])));
        expect(Object.keys(serious)).toHaveLength(16);
        expect(cspOf.flat()).toEqual([]);
        await Promise.all([audited.close(), computer.close(), phone.close()]);
      } catch (err) {
        // Where each device's page stood, to read a failure by.
        for (const p of pages) if (!p.isClosed()) console.log('page at failure:', p.url(), await p.locator('body').innerText().catch(() => ''));
        throw err;
      }
    }, 180_000);
  }
});
