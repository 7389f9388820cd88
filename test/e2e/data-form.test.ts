import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { DOCUMENT_NUMBER, addDocumentParser, applicantJourney, builderForm, builderJourney, uploadForm } from '../integration/data-form-journeys.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * A data form of the family's format in Chromium at 375 px (a small phone): every component type,
 * in German and in English, then its read-only confirmation with Retake. Nothing may be wider
 * than the screen, and what the end user typed arrives in the user data. Then a form as the
 * family's visual builder saves it, at 360 px: template defaults, notifications that close and
 * time out (the service's own script, no CSP error), two fields with the same id kept apart.
 */
let browser: Browser;
let token: string;
let definition: string;
let builderDefinition: string;
const fresh = () => Math.random().toString(36).slice(2, 8);
const SMALL_PHONE = { ...PHONE, viewport: { width: 375, height: 812 } };

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
  const formName = `applicant-e2e-${fresh()}`;
  await uploadForm(token, formName, undefined, 'DEPLOYED_ACTIVE');
  definition = `applicant-e2e-${fresh()}`;
  expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: applicantJourney(definition, formName) })).status).toBe(201);
  // The family's visual builder's form, after a step that parses the document.
  const builderName = `builder-e2e-${fresh()}`;
  await uploadForm(token, builderName, builderForm, 'DEPLOYED_ACTIVE');
  const parser = `document-parse-e2e-${fresh()}`;
  await addDocumentParser(token, parser);
  builderDefinition = `builder-e2e-${fresh()}`;
  expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: builderJourney(builderDefinition, builderName, parser) })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function newInstance(processDefnName = definition) {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `e2e-${fresh()}`, processDefnName, processDefnVersion: 1, parameters: { firstName: 'Anna' } },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const read = await call('GET', `/api/process-manager/processInstances/${created.json.processInstanceId}`, { token });
  return { id: created.json.processInstanceId as string, defnId: read.json.processDefnId as string, redirectUrl: created.json.redirectUrl as string };
}

/** Whether anything on the page is wider than the screen (a sideways scroll). */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; wide: string[] }> {
  return page.evaluate(`(() => {
    const wide = [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).map((e) => e.tagName + '#' + e.id);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, wide };
  })()`);
}

async function expectNoOverflow(page: Page) {
  const o = await overflow(page);
  expect(o.wide).toEqual([]);
  expect(o.scrollWidth).toBeLessThanOrEqual(o.innerWidth);
}

describe('a data form with every component type in Chromium at 375 px', () => {
  it('in German: filled in, confirmed read-only, retaken, confirmed; the values arrive in the user data', async () => {
    const instance = await newInstance();
    const context = await browser.newContext(SMALL_PHONE);
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=de`);
    await page.getByRole('heading', { name: 'Angaben zur Person' }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate('window.innerWidth')).toBe(375);
    // The shown components: a paragraph, a notification, an image.
    await page.getByText('Wir brauchen ein paar Angaben, bevor wir Ihre Identität prüfen.').waitFor();
    expect(await page.getByRole('status').innerText()).toBe('Nur die Bank sieht diese Angaben.');
    expect(await page.getByRole('img', { name: 'Das Logo der Bank' }).evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
    expect(await page.getByLabel('Vorname').inputValue()).toBe('Anna');
    await expectNoOverflow(page);
    await page.screenshot({ path: `${SHOTS}/20-data-form-de.png`, fullPage: true });

    await page.getByLabel('Stadt').fill('Bonn');
    await page.getByLabel('Sollen wir etwas wissen?').fill('Ein sehr langes Wort: Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichen');
    await page.getByLabel('E-Mail').fill('anna@example.org');
    await page.getByLabel('Handynummer').fill('0151 23456789');
    await page.getByLabel('Festnetz').fill('+43 1 5880000');
    await page.getByLabel('Jahreseinkommen (EUR)').fill('52000');
    await page.getByLabel('Geburtsdatum').fill('1990-05-17');
    await page.getByLabel('Land').selectOption('AT');
    await page.getByLabel('Personalausweis').check();
    await page.getByLabel('Ich stimme den Bedingungen zu').check();
    await expectNoOverflow(page);
    await page.getByRole('button', { name: 'Senden' }).click();

    // The confirmation: read-only, with Retake beside Confirm.
    await page.getByRole('heading', { name: 'Stimmt das?' }).waitFor({ timeout: 15_000 });
    expect(await page.getByLabel('Stadt').inputValue()).toBe('Bonn');
    expect(await page.getByLabel('Stadt').isEditable()).toBe(false);
    expect(await page.getByLabel('Ihr Dokument').inputValue()).toBe('Personalausweis');
    await expectNoOverflow(page);
    await page.screenshot({ path: `${SHOTS}/21-data-form-confirm-de.png`, fullPage: true });
    await page.getByRole('button', { name: 'Wiederholen' }).click();

    await page.getByRole('heading', { name: 'Angaben zur Person' }).waitFor({ timeout: 15_000 });
    // The retake comes back to what was entered (the journey keeps it under the step's key).
    expect(await page.getByLabel('Stadt').inputValue()).toBe('Bonn');
    await page.getByLabel('Stadt').fill('Köln');
    await page.getByLabel('E-Mail').fill('anna@example.org');
    await page.getByLabel('Geburtsdatum').fill('1990-05-17');
    await page.getByLabel('Reisepass').check();
    await page.getByLabel('Ich stimme den Bedingungen zu').check();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Stimmt das?' }).waitFor({ timeout: 15_000 });
    expect(await page.getByLabel('Stadt').inputValue()).toBe('Köln');
    await page.getByRole('button', { name: 'Bestätigen' }).click();
    await page.getByRole('heading', { name: 'Vielen Dank' }).waitFor({ timeout: 15_000 });
    await context.close();

    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const data = await call('GET', `/api/userdata-server/processDefinitions/${instance.defnId}/processInstances/${instance.id}/userdata`, { token });
    // What was entered the first time and not changed on the retake is kept (income, for one).
    expect(data.json.forms.details).toMatchObject({
      firstName: 'Anna',
      city: 'Köln',
      email: 'anna@example.org',
      dateOfBirth: '1990-05-17',
      document: 'passport',
      consent: true,
      income: 52000,
    });
    expect(data.json.forms.confirmed).toEqual({ firstName: 'Anna', city: 'Köln', document: 'passport' });
  });

  it('in English: refused with the form\'s messages, then accepted; every value typed and normalized', async () => {
    const instance = await newInstance();
    const context = await browser.newContext(SMALL_PHONE);
    const page = await context.newPage();
    await page.goto(`${instance.redirectUrl}&lang=en`);
    await page.getByRole('heading', { name: 'Applicant details' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('First name').fill('');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').first().waitFor();
    const summary = await page.locator('.summary').innerText();
    expect(summary).toContain('Enter your first name.');
    expect(await page.locator('.attempts').innerText()).toBe('Attempts left: 1.');
    await expectNoOverflow(page);
    await page.screenshot({ path: `${SHOTS}/22-data-form-errors-en.png`, fullPage: true });

    await page.getByLabel('First name').fill('Ann');
    await page.getByLabel('City').fill('Graz');
    await page.getByLabel('Email').fill('ann@example.org');
    await page.getByLabel('Mobile number').fill('0151 23456789');
    await page.getByLabel('Landline').fill('+43 1 5880000');
    await page.getByLabel('Yearly income (EUR)').fill('52000.5');
    await page.getByLabel('Date of birth').fill('1985-01-31');
    await page.getByLabel('Country').selectOption('AT');
    await page.getByLabel('ID card').check();
    await page.getByLabel('I agree to the terms').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Is this right?' }).waitFor({ timeout: 15_000 });
    await expectNoOverflow(page);
    await page.screenshot({ path: `${SHOTS}/23-data-form-confirm-en.png`, fullPage: true });
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await context.close();

    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const data = await call('GET', `/api/userdata-server/processDefinitions/${instance.defnId}/processInstances/${instance.id}/userdata`, { token });
    expect(data.json.forms.details).toEqual({
      firstName: 'Ann',
      city: 'Graz',
      email: 'ann@example.org',
      mobile: '+4915123456789',
      landline: '+4315880000',
      income: 52000.5,
      dateOfBirth: '1985-01-31',
      country: 'AT',
      document: 'idCard',
      consent: true,
    });
  });
});

describe("a form from the family's visual builder in Chromium at 360 px", () => {
  it('shows its texts, fills its templates from the journey, closes and times its notifications, and keeps both passwords apart', async () => {
    const instance = await newInstance(builderDefinition);
    const context = await browser.newContext({ ...PHONE, viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    // A script the page's CSP refused would be reported here (Chromium logs each violation as an error).
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    // In English first: the language maps' other language, at the same width.
    await page.goto(`${instance.redirectUrl}&lang=en`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor({ timeout: 15_000 });
    await page.getByText('We read these details from your document.').waitFor();
    await page.getByRole('button', { name: 'Close' }).waitFor();
    expect(await page.getByLabel('Repeat the password').inputValue()).toBe('');
    await expectNoOverflow(page);
    await page.screenshot({ path: `${SHOTS}/25-data-form-builder-en.png`, fullPage: true });

    await page.goto(`${instance.redirectUrl}&lang=de`);
    await page.getByRole('heading', { name: 'Ihr Konto' }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate('window.innerWidth')).toBe(360);
    await page.getByText('Diese Angaben haben wir aus Ihrem Ausweis gelesen.').waitFor();
    // The template defaults, read from the journey's data when the page was made.
    expect(await page.getByLabel('Ausweisnummer').inputValue()).toBe(DOCUMENT_NUMBER);
    expect(await page.getByLabel('Vorname').inputValue()).toBe('Anna');
    expect(await page.getByRole('img', { name: 'Das Logo der Bank' }).getAttribute('width')).toBe('100');
    const warning = page.getByRole('alert').filter({ hasText: 'Verraten Sie niemandem Ihr Passwort.' });
    const close = warning.getByRole('button', { name: 'Schließen' });
    await close.waitFor();
    await expectNoOverflow(page);
    await page.screenshot({ path: `${SHOTS}/24-data-form-builder-de.png`, fullPage: true });
    await close.click();
    await warning.waitFor({ state: 'hidden' });
    // The success note hides itself after its 3 seconds.
    await page.getByRole('status').filter({ hasText: 'Ihr Ausweis wurde gelesen.' }).waitFor({ state: 'hidden', timeout: 10_000 });

    await page.getByLabel('Passwort', { exact: true }).fill('correct horse');
    await page.getByLabel('Passwort wiederholen').fill('correct horse battery');
    await expectNoOverflow(page);
    await page.getByRole('button', { name: 'Weiter' }).click();
    await page.getByRole('heading', { name: 'Vielen Dank' }).waitFor({ timeout: 15_000 });
    await context.close();
    expect(errors).toEqual([]);

    expect(await finalStatus(instance.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const data = await call('GET', `/api/userdata-server/processDefinitions/${instance.defnId}/processInstances/${instance.id}/userdata`, { token });
    expect(data.json.forms.account).toEqual({ documentNumber: DOCUMENT_NUMBER, firstName: 'Anna', password: 'correct horse', password_2: 'correct horse battery' });
  });
});
