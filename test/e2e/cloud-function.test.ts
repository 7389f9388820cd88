import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { identityCheck } from '../../statemachines/examples/index.js';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * A journey in Chromium whose gateway reads what a cloud function returned from the end user's
 * form: the form, the tenant's function (in the sandbox) judging the details, then PASS or REVIEW,
 * both branches taken.
 */
let browser: Browser;
let token: string;
let definition: string;
const fresh = () => Math.random().toString(36).slice(2, 8);

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
  const fn = `screening-${fresh()}`;
  const added = await call('POST', '/api/process-manager/cloudFunctions', {
    token,
    body: {
      name: fn,
      status: 'DEPLOYED_ACTIVE',
      source: `export function handler({ variables }) {
        const details = variables.personalDetails ?? {};
        console.info('screening', details.lastName);
        return { cleared: details.lastName !== 'Watchlisted' };
      }`,
    },
  });
  expect(added.status, added.text).toBe(201);
  const def = structuredClone(identityCheck as Record<string, any>);
  definition = `cf-e2e-${fresh()}`;
  def.name = definition;
  delete def.activities.captureFace;
  def.activities.personalDetails.next = 'screen';
  def.activities.screen = { type: 'EXECUTE_CLOUD_FUNCTION_V2', inputs: { 'Function Name': fn, 'Process Variables': ['personalDetails'] }, next: 'cleared' };
  def.gateways = { cleared: { name: 'Cleared?', branches: [{ when: '${cleared == true}', next: 'pass' }], default: 'review' } };
  def.activities.pass = { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } };
  def.activities.review = { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } };
  delete def.activities.decide;
  const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: def });
  expect(published.status, published.text).toBe(201);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function throughTheForm(lastName: string, shot: string): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `e2e-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Anna' } } });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const context = await browser.newContext(PHONE);
  try {
    const page = await context.newPage();
    await page.goto(created.json.redirectUrl);
    await page.getByLabel('Last name').waitFor({ timeout: 15_000 });
    await page.getByLabel('Last name').fill(lastName);
    await page.getByLabel('Date of birth').fill('1990-05-17');
    await page.getByRole('button', { name: 'Continue' }).click();
    const status = await finalStatus(created.json.processInstanceId, token);
    await page.screenshot({ path: `${SHOTS}/${shot}.png`, fullPage: true });
    return status;
  } finally {
    await context.close();
  }
}

describe('a cloud function steering a gateway, in Chromium', () => {
  it('passes an end user the function clears, and sends one it does not to review', async () => {
    expect(await throughTheForm('Lee', '60-cloud-function-cleared')).toBe('COMPLETED_ENDED_SUCCESS');
    expect(await throughTheForm('Watchlisted', '61-cloud-function-review')).toBe('REVIEW');
  }, 90_000);
});
