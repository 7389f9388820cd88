import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { PHONE, SHOTS, launchChromium } from './browser.js';
import { adminToken, call, finalStatus } from '../integration/client.js';

/**
 * The onboarding example as the family's deployment tools ship it: its data form uploaded to
 * customDataForms, its BPMN published in the family's shape (base64), activated, found by name,
 * then one journey in Chromium along each branch of its gateways, error route, retake loop and
 * timer, with the status the relying party reads at the end of each.
 */
const EXAMPLES = resolve(import.meta.dirname, '../../statemachines/examples');
const BPMN = readFileSync(resolve(EXAMPLES, 'onboarding.bpmn'), 'utf8');
const FORM = readFileSync(resolve(EXAMPLES, 'forms/onboarding-details.json'), 'utf8');

let browser: Browser;
let token: string;
let name: string;
const fresh = () => Math.random().toString(36).slice(2, 8);
/** The version whose confirmation has the designer's 4 min 30 s timer, and one whose timer is 10 s. */
const versions: { long?: number; short?: number } = {};

async function publish(xml: string): Promise<number> {
  const res = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: {
      name,
      description: 'Onboarding, from the family designer',
      serverType: 'CAMUNDA',
      resources: { bpmn: { data: Buffer.from(xml, 'utf8').toString('base64'), type: 'BPMN' } },
      processDefinitionType: 'STANDARD',
      attributes: { searchable: true },
      themeId: null,
    },
  });
  expect(res.status, res.text).toBe(201);
  const id = res.json.processDefinitionId ?? res.json.id;
  const active = await call('POST', `/api/process-manager/processDefinitions/${id}/status/DEPLOYED_ACTIVE`, { token });
  expect(active.status, active.text).toBe(200);
  return res.json.version as number;
}

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
  const formName = `onboarding-details-${fresh()}`;
  const form = await call('POST', '/api/process-manager/customDataForms', {
    token,
    body: { name: formName, description: 'e2e', version: '1', status: 'DEPLOYED_ACTIVE', creationOption: 'JSON', resource: FORM },
  });
  expect(form.status, form.text).toBe(201);
  name = `onboarding-e2e-${fresh()}`;
  const xml = BPMN.replaceAll('>onboarding-details<', `>${formName}<`);
  versions.long = await publish(xml);
  versions.short = await publish(xml.replace('PT4M30S', 'PT10S'));
  // What the family's tools do to find the latest version.
  const latest = await call('GET', `/api/process-manager/processDefinitions/${name}/versions?page=0&size=1&sort=version,desc`, { token });
  expect(latest.json.content[0].version).toBe(versions.short);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function start(version: number, externalId: string): Promise<{ id: string; page: Page }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `e2e-${fresh()}`, processDefnName: name, processDefnVersion: version, parameters: { firstName: 'Anna', externalId } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const page = await (await browser.newContext(PHONE)).newPage();
  await page.goto(`${created.json.redirectUrl}&lang=en`);
  return { id: created.json.processInstanceId as string, page };
}

async function details(page: Page, document: 'Passport' | 'ID card' | 'Something else'): Promise<void> {
  await page.getByRole('heading', { name: 'Your details' }).waitFor({ timeout: 15_000 });
  expect(await page.getByLabel('First name').inputValue()).toBe('Anna');
  await page.getByLabel(document).check();
  await page.getByRole('button', { name: 'Continue' }).click();
}

async function thanks(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
}

describe('the onboarding BPMN in Chromium, along each branch', () => {
  it('passport: the read-only confirmation, a retake back to the details, then confirmed: a new user, PASS', async () => {
    const externalId = `ext-${fresh()}`;
    const { id, page } = await start(versions.long!, externalId);
    await details(page, 'Passport');
    await page.getByRole('button', { name: 'Retake' }).waitFor({ timeout: 15_000 });
    expect(await page.getByLabel('First name').isEditable()).toBe(false);
    // The confirmation keeps its data under the details' key, so it shows what was entered.
    expect(await page.getByLabel('Your identity document').inputValue()).toBe('Passport');
    await page.screenshot({ path: `${SHOTS}/bpmn-1-confirm.png`, fullPage: true });
    await page.getByRole('button', { name: 'Retake' }).click();
    // The retake route loops back to the details step.
    await details(page, 'Passport');
    await page.getByRole('button', { name: 'Retake' }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Continue' }).click();
    await thanks(page);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const read = await call('GET', `/api/process-manager/processInstances/${id}`, { token });
    expect(read.json.processDefnName).toBe(name);

    // ID card with the same external id: the second gateway branch, then Add User's error route to FAIL.
    const again = await start(versions.long!, externalId);
    await details(again.page, 'ID card');
    await thanks(again.page);
    expect(await finalStatus(again.id, token)).toBe('COMPLETED_ENDED_ERROR');
  }, 90_000);

  it('ID card with a new external id: straight to the new user, PASS', async () => {
    const { id, page } = await start(versions.long!, `ext-${fresh()}`);
    await details(page, 'ID card');
    await thanks(page);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
  }, 60_000);

  it('another document: the default flow, REVIEW', async () => {
    const { id, page } = await start(versions.long!, `ext-${fresh()}`);
    await details(page, 'Something else');
    await thanks(page);
    expect(await finalStatus(id, token)).toBe('REVIEW');
  }, 60_000);

  it('the confirmation left alone: the timer ends the journey at its error end', async () => {
    const { id, page } = await start(versions.short!, `ext-${fresh()}`);
    await details(page, 'Passport');
    await page.getByRole('button', { name: 'Retake' }).waitFor({ timeout: 15_000 });
    const deadline = Date.now() + 30_000;
    let status = 'ACTIVE';
    while (Date.now() < deadline && (status === 'ACTIVE' || status === 'PENDING')) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.status;
    }
    expect(status).toBe('COMPLETED_ENDED_ERROR');
  }, 60_000);
});
