import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, latestSession, multipart, pageUntil, runJourney, storedInstance } from './client.js';

/**
 * The family's flow activities in journeys, over HTTP: Clear Variables resets a counter, Redirect
 * User V2 sends the browser to a URL built from the journey's data (and refuses one that is not
 * http(s)), Write Summary Report V2 is read back through the user data API, and Confirm Image
 * (Generic User Task, screen `preview`) takes the end user's answer after a face capture.
 */
const FACE = readFileSync(join(resolve(import.meta.dirname, '../fixtures'), 'face-640x480.jpg'));
const fresh = () => Math.random().toString(36).slice(2, 10);
const form = (values: Record<string, string>) => ({
  rawBody: new URLSearchParams(values).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
let token: string;

beforeAll(async () => {
  token = await adminToken();
});

async function publish(definition: Record<string, unknown>): Promise<void> {
  const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: definition });
  expect(published.status, published.text).toBe(201);
}

const defnIdOf = async (id: string) => (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
const userdata = async (id: string) => call('GET', `/api/userdata-server/processDefinitions/${await defnIdOf(id)}/processInstances/${id}/userdata`, { token });

/** Counts twice, clears the count, counts again (1 again), then redirects, decides and writes the summary. */
const redirecting = (name: string, url: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'count1',
  activities: {
    count1: { type: 'COUNTER_V1', inputs: { 'Counter Name': 'dvsAttempt' }, next: 'count2' },
    count2: { type: 'COUNTER_V1', inputs: { 'Counter Name': 'dvsAttempt' }, next: 'reset' },
    reset: { type: 'CLEAR_VARIABLES_V1', inputs: { 'Variables to clear': ['dvsAttempt', 'confirmDetailsCounter'] }, next: 'count3' },
    count3: { type: 'COUNTER_V1', inputs: { 'Counter Name': 'dvsAttempt' }, next: 'once' },
    away: { type: 'REDIRECT_USER_V2', inputs: { 'Redirect URL': url }, next: 'approve' },
    approve: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' }, next: 'summary' },
    decline: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
    summary: { type: 'WRITE_SUMMARY_V2' },
  },
  gateways: { once: { name: 'Counted from 1 again?', branches: [{ when: '${dvsAttempt == 1}', next: 'away' }], default: 'decline' } },
});

/** Captures a face, asks the end user to confirm it (a retake goes back), then decides and writes the summary. */
const confirming = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'captureFace',
  activities: {
    captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face' }, next: 'confirm' },
    confirm: {
      type: 'GENERIC_USER_TASK',
      // The family's output parameter, in the forms the output evaluator reads today.
      outputs: { confirmedPhoto: '${execution.hasVariable("photoConfirmed") ? execution.getVariable("photoConfirmed") : false}' },
      next: 'confirmed',
    },
    approve: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' }, next: 'summary' },
    summary: { type: 'WRITE_SUMMARY_V2' },
  },
  gateways: { confirmed: { name: 'Photo confirmed?', branches: [{ when: '${_photoConfirmed == true}', next: 'approve' }], default: 'captureFace' } },
});

describe('Clear Variables, Redirect User V2 and Write Summary Report V2', () => {
  it('resets a counter, sends the browser to the URL built from the data once the journey is done, and keeps a summary the relying party reads', async () => {
    const name = `flow-${fresh()}`;
    await publish(redirecting(name, 'https://rp.example/${channel == "app" ? "app" : "web"}/back?ref=${otpRef}&n=${dvsAttempt}'));
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1', parameters: { channel: 'app', otpRef: 'R42', _redirectUrl: 'https://rp.example/done' } },
    });
    expect(pt.status, pt.text).toBe(201);
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const id = created.json.processInstanceId as string;
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');

    const url = 'https://rp.example/app/back?ref=R42&n=1';
    const session = await latestSession('demo', id);
    expect(session.vars.dvsAttempt).toBe(1);
    expect(session._redirect).toMatchObject({ url });
    expect((await storedInstance('demo', id))?.redirect).toMatchObject({ url, activityId: 'away' });

    // The end page: on to the URL the step built, not the token's _redirectUrl.
    const link = new URL(created.json.redirectUrl);
    const page = await call('GET', `${link.pathname}${link.search}&lang=en`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<meta http-equiv="refresh" content="0;url=${url.replace(/&/g, '&amp;')}">`);
    expect(page.text).not.toContain('rp.example/done');
    expect(page.headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe/);

    const data = await userdata(id);
    expect(data.status, data.text).toBe(200);
    expect(data.json.summary).toMatchObject({ processInstanceId: id, processDefnName: name, processDefnVersion: 1, decision: 'PASS', checks: [], errors: [], redirect: { url } });
    expect(data.json.summary.steps).toEqual([expect.objectContaining({ activityId: 'away', activityType: 'REDIRECT_USER_V2' })]);
    expect(data.json.steps.map((s: { activityId: string }) => s.activityId)).toEqual(['away']);
  });

  it('fails the step when the URL built is not http(s), and sends the browser nowhere', async () => {
    const name = `flow-bad-${fresh()}`;
    await publish(redirecting(name, 'javascript:alert(${otpRef})'));
    const bad = await runJourney(token, name, { otpRef: '1' });
    expect(bad.status).toBe('COMPLETED_PROCESS_ERROR');
    expect((await storedInstance('demo', bad.id))?.redirect).toBeUndefined();
    expect((await latestSession('demo', bad.id))._redirect).toBeUndefined();

    // A whole reference whose value is a javascript: URL is judged the same.
    const fromData = `flow-ref-${fresh()}`;
    await publish(redirecting(fromData, '${target}'));
    const injected = await runJourney(token, fromData, { target: 'javascript:alert(1)' });
    expect(injected.status).toBe('COMPLETED_PROCESS_ERROR');
    expect((await storedInstance('demo', injected.id))?.redirect).toBeUndefined();
    // A scheme-less one is taken as https.
    const bare = await runJourney(token, fromData, { target: 'www.example.com/back' });
    expect(bare.status).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await storedInstance('demo', bare.id))?.redirect).toMatchObject({ url: 'https://www.example.com/back' });
  });
});

describe('Confirm Image (Generic User Task, screen preview)', () => {
  it('shows the capture; Take it again sets _photoConfirmed false and goes back, Use this photo sets it true', async () => {
    const name = `confirm-${fresh()}`;
    await publish(confirming(name));
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1' } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const id = created.json.processInstanceId as string;
    const c = new URL(created.json.redirectUrl).searchParams.get('c')!;
    const page = `/journey/${id}?c=${c}&lang=en`;
    const capture = `/journey/${id}/steps/captureFace/face?c=${c}&lang=en`;
    const confirm = `/journey/${id}/steps/confirm?c=${c}&lang=en`;

    await pageUntil(page, 'id="face-form"');
    expect((await call('POST', capture, multipart(FACE))).status).toBe(303);
    const preview = await pageUntil(page, 'Check your photo');
    expect(preview).toMatch(/<img src="data:image\/jpeg;base64,[A-Za-z0-9+/=]+" alt="The photo you took" width="480" height="360">/);
    expect(preview).toContain('value="retake">Take it again</button>');

    const retake = await call('POST', confirm, form({ 'arthr:action': 'retake' }));
    expect(retake.status).toBe(303);
    await pageUntil(page, 'id="face-form"');
    expect((await latestSession('demo', id)).vars).toMatchObject({ photoConfirmed: false, _photoConfirmed: false, confirmedPhoto: false });

    expect((await call('POST', capture, multipart(FACE))).status).toBe(303);
    await pageUntil(page, 'Check your photo');
    expect((await call('POST', confirm, form({ 'arthr:action': 'confirm' }))).status).toBe(303);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await latestSession('demo', id)).vars).toMatchObject({ photoConfirmed: true, _photoConfirmed: true, confirmedPhoto: true });

    const data = await userdata(id);
    expect(data.status, data.text).toBe(200);
    expect(data.json.summary).toMatchObject({ decision: 'PASS', checks: [expect.objectContaining({ checkId: 'face', result: 'PASS', valid: true, checkType: 'FACE_CAPTURE' })] });
    expect(data.json.summary.steps.map((s: { activityId: string }) => s.activityId)).toEqual(['captureFace', 'confirm']);
    expect(data.json.steps.find((s: { activityId: string }) => s.activityId === 'confirm').values).toMatchObject({ photoConfirmed: true });
  });
});
