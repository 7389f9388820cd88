import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, call, issueToken, keyWith, latestSession, relayedEvents, until } from '../integration/client.js';
import { CAMERA_FACE, PHONE, SHOTS, launchChromium, takeFacePhoto } from './browser.js';

/**
 * One journey of the family's shape, drawn in its dialect (test/fixtures/e2e/family-all.bpmn),
 * deployed as its pipeline deploys (a data form and a cloud function by name, the BPMN as
 * base64, then activated) and run in Chromium on two devices, as an applicant and a bank would:
 *
 * the computer shows the QR code of Switch to Mobile; the phone fills in the family's data form
 * (its template filled from the token), takes a photo, asks to take it again (Confirm Image; a
 * Counter counts the photos and Clear Variables resets it), and the watchlist search finds the
 * face (the bank's watchlist holds it). A Counter and the bank's cloud function loop three times.
 * Switch To Desktop takes the journey back to the computer, which pauses it (Pause Instance) and
 * sends the browser to the bank's page (Redirect User V2); the bank sends the resume link, the
 * applicant opens it, and the decider's REVIEW leads to the review tail. A reviewer approves one
 * instance (Accepted); nobody decides the other, whose back-office timer (20 s here, P5D in the
 * family) takes it to its summary, left in Review, as the family leaves it.
 */
const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/e2e/family-all.bpmn'), 'utf8');
const BASE = '/api/process-manager/processDefinitions';
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const fresh = () => Math.random().toString(36).slice(2, 8);

/** The details form as the family's visual builder saves it, with its template default. */
const DETAILS_FORM = JSON.stringify({
  title: { type: 'title', isValid: true, values: { en: 'Your details', de: 'Ihre Angaben' } },
  subtitle: { values: { en: '' } },
  components: [
    { type: 'paragraph', id: 'intro', index: 0, isValid: true, values: { en: 'We need a few details and a photo of you.' } },
    { type: 'text', id: 'name', index: 1, isValid: true, label: { values: { en: 'Name' } }, default: '{{processvar.firstName }}', validate: { required: true } },
    { type: 'text', id: 'city', index: 2, isValid: true, label: { values: { en: 'City' } }, validate: { required: true } },
  ],
  submitButton: { values: { en: 'Continue' } },
  version: '1',
});

/** The bank's rule: retry until the third pass; REVIEW when the watchlist found the face. */
const DECISION_FUNCTION = `export async function handler({ variables }) {
  const attempt = Number(variables.dvsAttempt);
  console.log('attempt', attempt, 'candidates', variables._candidatesFound);
  return { idv: { retry: attempt < 3, overallDecision: variables._candidatesFound === true ? 'REVIEW' : 'PASS' } };
}`;

let browser: Browser;
let bank: Server;
let bankUrl: string;
let token: string;
let reviewer: string;
let definition: string;
let watchlistName: string;

beforeAll(async () => {
  browser = await launchChromium();
  bank = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>At the bank</h1><p>${req.url?.replace(/[<>&"]/g, '')}</p>`));
  await new Promise<void>((ok) => bank.listen(0, '127.0.0.1', ok));
  bankUrl = `http://127.0.0.1:${(bank.address() as { port: number }).port}`;
  token = await adminToken();
  reviewer = await issueToken((await keyWith(['ProcessManager:reviewProcessInstance', 'ProcessManager:getProcessInstance'])).secret);

  // The names the BPMN gives, each run adding a newer active version (the BPMN names no version).
  const form = await call('POST', '/api/process-manager/customDataForms', {
    token,
    body: { name: 'E2EFamilyDetails', status: 'DEPLOYED_ACTIVE', creationOption: 'NEW', resource: DETAILS_FORM },
  });
  expect(form.status, form.text).toBe(201);
  const fn = await call('POST', '/api/process-manager/cloudFunctions', { token, body: { name: 'E2EFamilyDecision', source: DECISION_FUNCTION, status: 'DEPLOYED_ACTIVE' } });
  expect(fn.status, fn.text).toBe(201);

  // The bank's watchlist, holding the face the phone's camera shows.
  watchlistName = `e2e-family-${fresh()}`;
  const list = await call('POST', '/api/watchlist-manager/facewatchlists', { token, body: { name: watchlistName, description: 'Known fraudsters' } });
  expect(list.status, list.text).toBe(201);
  const member = await call('POST', `/api/watchlist-manager/facewatchlists/${list.json.id}/watchlist-members`, {
    token,
    body: { label: 'Known face', image: readFileSync(CAMERA_FACE).toString('base64') },
  });
  expect(member.status, member.text).toBe(201);

  definition = `e2e-family-${fresh()}`;
  const uploaded = await call('POST', BASE, {
    token,
    body: { name: definition, serverType: 'CAMUNDA', resources: { bpmn: { data: Buffer.from(BPMN).toString('base64'), type: 'BPMN' } }, themeId: null },
  });
  expect(uploaded.status, uploaded.text).toBe(201);
  const activated = await call('POST', `${BASE}/${uploaded.json.id}/status/DEPLOYED_ACTIVE`, { token });
  expect(activated.status, activated.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((ok) => bank?.close(ok));
});

/** Errors a page logs (a CSP violation is one) and its script errors, as they come. */
function errorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

const read = async (id: string) => (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json;
const userdata = async (id: string) => {
  const defnId = (await read(id)).processDefnId as string;
  return (await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata`, { token })).json;
};

/** The phone's camera takes a photo on the capture page, which sends it; then the preview. */
async function takePhoto(page: Page): Promise<void> {
  await takeFacePhoto(page, 20_000);
  await page.getByRole('heading', { name: 'Check your photo' }).waitFor({ timeout: 20_000 });
}

interface Run {
  id: string;
  computer: BrowserContext;
  desk: Page;
  resumeUrl: string;
  errors: string[];
}

/**
 * An applicant's journey from the computer to the phone and back, up to the review: the instance,
 * the computer's page (on the review page), the resume link it used, and the pages' errors.
 */
async function applicantUntilReview(shot: string): Promise<Run> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `e2e-fam-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Ann', bankUrl, otpRef: 'R7', watchlistName, middleName: null } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const id = created.json.processInstanceId as string;

  // The computer: Switch to Mobile's QR code and link.
  const computer = await browser.newContext(DESKTOP);
  const desk = await computer.newPage();
  const errors = errorsOf(desk);
  await desk.goto(`${created.json.redirectUrl}&lang=en`);
  await desk.locator('[data-screen="scan-qr"]').waitFor({ timeout: 20_000 });
  await desk.getByRole('img', { name: 'QR code of the link that continues this journey on your phone' }).waitFor();
  const link = (await desk.locator('#switch-link').getAttribute('href'))!;

  // The phone opens it: the family's form, its template filled from the token's parameters.
  const phone = await browser.newContext(PHONE);
  await phone.grantPermissions(['camera']);
  const hand = await phone.newPage();
  errors.push(...errorsOf(hand));
  await hand.goto(link);
  await hand.getByRole('heading', { name: 'Your details' }).waitFor({ timeout: 20_000 });
  await hand.getByText('We need a few details and a photo of you.').waitFor();
  expect(await hand.getByLabel('Name').inputValue()).toBe('Ann');
  await hand.getByLabel('City').fill('Bonn');
  await hand.screenshot({ path: `${SHOTS}/${shot}-1-phone-form.png`, fullPage: true });
  await hand.getByRole('button', { name: 'Continue' }).click();

  // A photo, taken again, then used.
  await takePhoto(hand);
  await hand.getByRole('button', { name: 'Take it again' }).click();
  await takePhoto(hand);
  await hand.getByRole('button', { name: 'Use this photo' }).click();

  // The checks and the loop run; then Switch To Desktop. The computer's page, which follows the
  // phone by itself, takes the journey back at its next load (the phone may or may not have shown
  // its "go back" page by then), pauses it, and goes on to the bank's page.
  await desk.waitForURL(`${bankUrl}/paused?otpRefId=R7`, { timeout: 90_000 }).catch(async (err: Error) => {
    // Say where the journey was: a slow face check, a step not taken back, or a page that did not follow.
    const at = await read(id);
    throw new Error(`${err.message}\ninstance ${at.status}; computer at ${desk.url()}; phone at ${hand.url()}`);
  });
  expect(await desk.getByRole('heading').innerText()).toBe('At the bank');
  expect((await read(id)).status).toBe('PAUSED');
  // The phone follows the computer now.
  await hand.getByRole('heading', { name: 'Continue on your computer' }).waitFor({ timeout: 15_000 });
  await hand.screenshot({ path: `${SHOTS}/${shot}-2-phone-follows.png`, fullPage: true });
  await phone.close();

  // The bank reads the resume link from the pause's data and sends it; the applicant opens it.
  const data = await userdata(id);
  const resumeUrl = (data.steps as { activityType: string; values: { resumeUrl?: string } }[]).find((s) => s.activityType === 'PAUSE_INSTANCE')!.values.resumeUrl!;
  expect(resumeUrl).toMatch(new RegExp(`/journey/${id}/resume\\?r=[A-Za-z0-9_-]{43}$`));
  await desk.goto(resumeUrl);
  await desk.getByText('Your application is being reviewed.').waitFor({ timeout: 20_000 });
  await desk.screenshot({ path: `${SHOTS}/${shot}-3-desk-review.png`, fullPage: true });
  // The back office's wait has begun.
  await until(`${id} to wait for the back office`, () =>
    relayedEvents().some((e) => e.subject.id === id && e.type === 'process-instance.step-changed' && e.data.activityType === 'REVIEW_FROM_BACK_OFFICE') ? true : undefined,
  );
  return { id, computer, desk, resumeUrl, errors };
}

/** What both runs share: where the data came from, what the loops counted, what the watchlist found. */
async function expectJourneyData(id: string): Promise<Record<string, any>> {
  const session = await latestSession('demo', id);
  expect(session.vars).toMatchObject({ details: { name: 'Ann', city: 'Bonn' }, H_isSwitchedFromDesktop: true, isMobile: false, _candidatesFound: true, dvsAttempt: 3, idv: { retry: false, overallDecision: 'REVIEW' } });
  // Counted twice (a retake), then cleared before the loop.
  expect(session.vars).not.toHaveProperty('confirmDetailsCounter');
  expect(session.vars._resumeUrl).toMatch(/\/resume\?r=/);
  const logs = JSON.stringify((await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { token })).json);
  expect(logs).toContain('attempt 3 candidates true');
  expect(logs).not.toContain('attempt 4');
  return session;
}

describe("a journey of the family's shape in Chromium", () => {
  it('runs on two devices through every activity; a reviewer approves it: Accepted', async () => {
    const run = await applicantUntilReview('40-family-approved');
    const approved = await call('POST', `/api/process-manager/processInstances/${run.id}/review`, {
      token: reviewer,
      body: { status: 'APPROVE', comment: 'The face on the list is the applicant herself.' },
    });
    expect(approved.status, approved.text).toBe(200);

    // The journey goes on to its summary and its end: the end page on the computer.
    await until(`${run.id} to write its summary`, async () => ((await userdata(run.id)).summary ? true : undefined));
    const ended = await read(run.id);
    expect(ended).toMatchObject({ status: 'COMPLETED_ENDED_SUCCESS', statusMapped: 'Accepted', review: { status: 'APPROVE', comment: 'The face on the list is the applicant herself.' } });
    expect(ended.elapsedMilliseconds).toBeGreaterThan(0);
    await run.desk.reload();
    await run.desk.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await run.desk.screenshot({ path: `${SHOTS}/40-family-approved-4-desk-end.png`, fullPage: true });

    const session = await expectJourneyData(run.id);
    expect(session._decision).toBe('PASS');
    const summary = (await userdata(run.id)).summary;
    expect(summary).toMatchObject({ processInstanceId: run.id, processDefnName: definition, decision: 'PASS', redirect: { url: `${bankUrl}/paused?otpRefId=R7` } });
    expect(summary.checks).toEqual(expect.arrayContaining([expect.objectContaining({ checkId: 'watchlist', result: 'FAIL' })]));

    // The resume link, opened again: gone, and nothing changes.
    const again = await run.desk.goto(run.resumeUrl);
    expect(again?.status()).toBe(410);
    expect((await read(run.id)).status).toBe('COMPLETED_ENDED_SUCCESS');
    expect(run.errors).toEqual([]);
    await run.computer.close();
  }, 240_000);

  it('runs the same way; nobody decides, the back office times out to the summary, and it stays in Review', async () => {
    const run = await applicantUntilReview('41-family-timed-out');
    // Nobody decides: the back office's timer takes the journey on to its summary and its end.
    await until(`${run.id} to write its summary`, async () => ((await userdata(run.id)).summary ? true : undefined), 60_000);
    const ended = await read(run.id);
    expect(ended).toMatchObject({ status: 'REVIEW', statusMapped: 'Review' });
    expect(ended).not.toHaveProperty('review');
    const session = await expectJourneyData(run.id);
    expect(session._decision).toBe('REVIEW');
    expect((await userdata(run.id)).summary).toMatchObject({ decision: 'REVIEW' });
    // The applicant's page still says the application is being reviewed.
    await run.desk.reload();
    await run.desk.getByText('Your application is being reviewed.').waitFor();
    expect(run.errors).toEqual([]);
    await run.computer.close();
  }, 240_000);
});
