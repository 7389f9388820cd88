import { beforeAll, describe, expect, it } from 'vitest';
import { clientLogin, clientRegistration } from '../../functions/identity-store/passcodes/srp-client.js';
import { adminToken, call, finalStatus, pageUntil } from './client.js';
import { passcodeJourney } from './journeys.js';

let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);
const base = '/api/identity-store';

let definition: string;
let storeName: string;

beforeAll(async () => {
  token = await adminToken();
  definition = `passcodes-${fresh()}`;
  expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: passcodeJourney(definition) })).status).toBe(201);
  storeName = `journeys-${fresh()}`;
  const store = await call('POST', `${base}/stores`, {
    token,
    body: { name: storeName, passcodePolicies: { pin: { requirements: { minimumLength: 6, digitCount: 1 } } } },
  });
  expect(store.status).toBe(201);
});

async function start(externalId: string) {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `pj-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { externalId, storeName } },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const url = new URL(created.json.redirectUrl);
  return { id: created.json.processInstanceId as string, path: `${url.pathname}${url.search}&lang=en`, search: `${url.search}&lang=en` };
}

/** The SRP parameters the page hands its script. */
function srpOf(html: string): Record<string, any> {
  const m = /data-srp="([^"]*)"/.exec(html);
  if (!m) throw new Error(`no data-srp in ${html.slice(0, 200)}`);
  return JSON.parse(m[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
}

const post = (path: string, fields: Record<string, string>) =>
  call('POST', path, { rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

async function registerIn(j: { id: string; path: string; search: string }, passcode: string) {
  const page = await pageUntil(j.path, 'data-mode="register"');
  expect(page).toContain('<script src="/journey/assets/passcode.js" defer></script>');
  // The passcode fields have no name: a form post can never carry them.
  expect(page).toMatch(/<input type="password" id="pc-new" autocomplete="new-password"[^>]*>/);
  expect(page).not.toMatch(/<input type="password"[^>]*name=/);
  expect(page).toContain('data-rule="minimumLength"');
  expect(page).toContain('data-rule="digitCount"');
  const p = srpOf(page);
  const verifier = await clientRegistration({ identity: p.identity, password: passcode, salt: p.salt });
  return post(`/journey/${j.id}/steps/passcodeForm/passcode${j.search}`, { verifier, historyVerifiers: '' });
}

async function proveIn(j: { id: string; search: string; path: string }, passcode: string) {
  const page = await pageUntil(j.path, 'data-mode="authenticate"');
  const p = srpOf(page);
  expect(p.B).toBeDefined();
  expect(JSON.stringify(p)).not.toMatch(/"b"/);
  const { A, M1 } = await clientLogin({ identity: p.identity, password: passcode, salt: p.salt, B: p.B });
  return post(`/journey/${j.id}/steps/loginForm/passcode${j.search}`, { A, M1 });
}

describe('a passcode journey over HTTP, the browser played by the test', () => {
  it('adds the user, registers the passcode from its verifier, proves it after a wrong one, and logs each step', async () => {
    const externalId = `ext-${fresh()}`;
    const j = await start(externalId);
    // A verifier outside 1 < v < N (here 1) is refused with the page, and the step keeps waiting.
    await pageUntil(j.path, 'data-mode="register"');
    const refused = await post(`/journey/${j.id}/steps/passcodeForm/passcode${j.search}`, { verifier: 'AQ==', historyVerifiers: '' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Your passcode could not be set');

    expect((await registerIn(j, 'secret1')).status).toBe(303);
    const wrong = await proveIn(j, 'secret2');
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('That passcode is not right. Attempts left: 2.');
    expect((await proveIn(j, 'secret1')).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');

    const user = await call('GET', `${base}/stores/${storeName}/users/${externalId}/ext`, { token });
    expect(user.json.passcodes).toEqual([expect.objectContaining({ policyName: 'pin' })]);
    const authentications = await call('GET', `${base}/stores/${storeName}/users/${externalId}/authentications/ext`, { token });
    expect(authentications.json.content).toEqual([expect.objectContaining({ method: 'PASSCODE', policyName: 'pin' })]);
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    const userdata = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${j.id}/userdata`, { token });
    expect(JSON.stringify(userdata.json)).not.toMatch(/verifier|"A"|"M1"/);
    expect(userdata.json.checks).toEqual([expect.objectContaining({ checkId: 'login1', checkType: 'PASSCODE_AUTHENTICATION', result: 'PASS' })]);

    const q = await call('POST', `${base}/events/queries/start`, { token, body: { storeName, externalId } });
    const events = (await call('GET', `${base}/events/queries/${q.json.executionId}/result`, { token })).json.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['USER_ADDED', 'PASSCODE_REGISTERED', 'PASSCODE_AUTHENTICATION_FAILED', 'PASSCODE_AUTHENTICATED']);
    for (const e of events) expect(e.actor).toBe(`journey:${j.id}`);
    expect(events[2].details).toMatchObject({ policyName: 'pin', reason: 'BAD_PROOF' });
  });

  it('fails the check after three wrong passcodes; a right proof for an old challenge counts as wrong', async () => {
    const j = await start(`ext-${fresh()}`);
    expect((await registerIn(j, 'secret1')).status).toBe(303);
    const p1 = srpOf(await pageUntil(j.path, 'data-mode="authenticate"'));
    expect(p1.attemptsLeft).toBe(3);
    const rightForFirst = await clientLogin({ identity: p1.identity, password: 'secret1', salt: p1.salt, B: p1.B });
    expect((await proveIn(j, 'nope11')).status).toBe(400);
    // The first challenge is gone: its right proof no longer holds.
    const replay = await post(`/journey/${j.id}/steps/loginForm/passcode${j.search}`, { A: rightForFirst.A, M1: rightForFirst.M1 });
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('Attempts left: 1.');
    expect((await proveIn(j, 'nope33')).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
  });

  it('routes Add User’s ExtId Not Unique to the decider', async () => {
    const externalId = `ext-${fresh()}`;
    const first = await start(externalId);
    await pageUntil(first.path, 'data-mode="register"');
    const second = await start(externalId);
    expect(await finalStatus(second.id, token)).toBe('COMPLETED_ENDED_ERROR');
  });

  it('runs the passcode-registration example against the customers store npm start makes', async () => {
    const externalId = `ann-${fresh()}`;
    expect((await call('POST', `${base}/stores/customers/users`, { token, body: { externalId } })).status).toBe(201);
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `example-${fresh()}`, processDefnName: 'passcode-registration', processDefnVersion: 1, parameters: { externalId } },
    });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const url = new URL(created.json.redirectUrl);
    const page = await pageUntil(`${url.pathname}${url.search}&lang=en`, 'data-mode="register"');
    const p = srpOf(page);
    const verifier = await clientRegistration({ identity: p.identity, password: 'example-passcode-1', salt: p.salt });
    expect((await post(`/journey/${created.json.processInstanceId}/steps/passcodeForm/passcode${url.search}&lang=en`, { verifier, historyVerifiers: '' })).status).toBe(303);
    expect(await finalStatus(created.json.processInstanceId, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const user = await call('GET', `${base}/stores/customers/users/${externalId}/ext`, { token });
    expect(user.json.passcodes).toEqual([expect.objectContaining({ policyName: 'passcodeAuth1' })]);
  });

  it('serves the passcode script from the service', async () => {
    const js = await call('GET', '/journey/assets/passcode.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toContain('text/javascript');
    expect(js.text.length).toBeLessThan(40_000);
  });
});
