/**
 * The active liveness challenge in Chromium at phone width, with the fake camera. The genuine
 * run: the test draws the step's challenge from the server first (the page's own request for it
 * is answered with that one), makes a video of a fixture's face doing what it asks
 * (test/support/liveness-frames.ts: the prompts in their windows, the colours on the face), and
 * the fake camera plays it from the moment the page opens the camera. The attack: a camera that
 * shows a still face, refused on its prompts, back at the capture with the attempts left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PHONE, SHOTS, framesVideo, launchChromium } from './browser.js';
import { adminToken, call, finalStatus, openNewJourney } from '../integration/client.js';
import { loadFace, poseAt, render } from '../support/liveness-frames.js';
import type { ChallengePlan } from '../../functions/faces/challenge.js';

/** Frames a second of the video: the page takes its frames 250 ms apart at the least. */
const FPS = 10;
/** The video runs this far behind the plan: the page's clock starts a little after the camera's first frame. */
const LAG_MS = 250;
let token: string;
const browsers: Browser[] = [];
const fresh = () => Math.random().toString(36).slice(2, 10);

const journey = () =>
  openNewJourney(
    token,
    'liveness-e2e',
    'captureFace',
    {
      captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1', 'Liveness Check': 'ACTIVE', 'Offer Another Way': true }, errorEvents: { 'Liveness Challenge Declined': 'declined' }, next: 'liveness' },
      liveness: { type: 'CHECK_FACE_LIVENESS', inputs: { 'Face Key': 'face1', Threshold: 0.5, 'Max Attempts': 2 }, errorEvents: { 'Failed Face Liveness': 'captureFace', 'Exceed Failed Liveness Count': 'declined' }, next: 'done' },
      done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      declined: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
    },
    'id="face-form"',
  );

async function checks(id: string) {
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  const res = await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata/checks`, { token });
  return res.json as { checkId: string; result: string; moreinfo: string }[];
}

beforeAll(async () => {
  token = await adminToken();
}, 60_000);

afterAll(async () => {
  for (const b of browsers) await b.close();
});

describe('the active liveness challenge in Chromium', () => {
  it('passes a face that does what the challenge asks: the stage, the prompts and colours, then the journey goes on', async () => {
    const j = await journey();
    const drawn = await call('POST', `/journey/${j.id}/steps/captureFace/face/challenge?c=${j.c}&lang=en`);
    expect(drawn.status, drawn.text).toBe(200);
    const plan = drawn.json as ChallengePlan;
    const face = await loadFace('person-a-1.jpg');
    const frames = [];
    for (let t = 0; t <= plan.durationMs + 1500; t += 1000 / FPS) frames.push(render(face, t < LAG_MS ? {} : poseAt(plan, t - LAG_MS), frames.length + 1));
    const browser = await launchChromium(undefined, framesVideo(`liveness-${fresh()}`, frames, FPS));
    browsers.push(browser);
    const context = await browser.newContext(PHONE);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    // The page asks for a challenge when Start is pressed: it gets the one the video was made for.
    await page.route('**/face/challenge?**', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(plan) }));
    await page.goto(j.link);
    await page.getByRole('heading', { name: 'A short live check' }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/31-liveness-intro-en.png`, fullPage: true });
    await page.getByRole('button', { name: 'Start the check' }).click();
    const prompt = page.locator('#face-prompt');
    await prompt.waitFor({ state: 'visible', timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/31-liveness-stage-en.png` });
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: plan.durationMs + 60_000 });
    await context.close();

    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const all = await checks(j.id);
    const capture = all.find((c) => c.checkId === 'face1')!;
    const more = JSON.parse(capture.moreinfo) as { method: string; measurements: { name: string; result: string; value: number }[] };
    expect(more.measurements.filter((m) => m.result !== 'PASS')).toEqual([]);
    expect(capture.result).toBe('PASS');
    expect(more.method).toBe('ACTIVE');
    expect(all.find((c) => c.checkId === 'face1.liveness')?.result).toBe('PASS');
  }, 240_000);

  it('refuses a still face on its prompts: Face Liveness leads back to the capture, which names the attempts left', async () => {
    const j = await journey();
    const browser = await launchChromium();
    browsers.push(browser);
    const context = await browser.newContext(PHONE);
    await context.grantPermissions(['camera']);
    const page = await context.newPage();
    await page.goto(j.link);
    await page.getByRole('button', { name: 'Start the check' }).click();
    await page.getByText('The live check did not pass.').first().waitFor({ timeout: 90_000 });
    await page.screenshot({ path: `${SHOTS}/31-liveness-failed-en.png`, fullPage: true });
    await expect(page.getByText('attempts left: 2')).toBeTruthy();
    // The way out is there for a person who cannot do it.
    expect(await page.getByRole('button', { name: 'I cannot do this check' }).isVisible()).toBe(true);
    await context.close();

    const capture = (await checks(j.id)).find((c) => c.checkId === 'face1')!;
    const more = JSON.parse(capture.moreinfo) as { reason: string; measurements: { name: string; result: string }[] };
    expect(capture.result).toBe('FAIL');
    expect(more.measurements.filter((m) => m.result === 'FAIL').map((m) => m.name)).toContainEqual(expect.stringMatching(/^prompt\./));
  }, 240_000);
});
