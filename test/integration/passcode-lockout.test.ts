import { beforeAll, describe, expect, it } from 'vitest';
import { clientLogin, clientRegistration } from '../../functions/identity-store/passcodes/srp-client.js';
import { adminToken, call, finalStatus, pageUntil } from './client.js';
import { passcodeJourney } from './journeys.js';

/**
 * Passcode guessing is limited per user, not per journey: the attack that worked (three wrong
 * passcodes in each of four journeys, then the right one in a fifth) now meets a lockout after
 * the fifth wrong passcode in a row, recorded as PASSCODE_LOCKED, during which even the right
 * passcode gets nowhere.
 */
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);
const base = '/api/identity-store';
let storeName: string;
let login: string;

const loginJourney = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'startLogin',
  activities: {
    startLogin: {
      type: 'START_PASSCODE_AUTHENTICATION',
      inputs: { 'Passcode Policy': 'pin', 'Store Name': '${storeName}', 'User External ID': '${externalId}', 'Passcode Registration Key': 'login1' },
      next: 'loginForm',
    },
    loginForm: {
      type: 'PASSCODE_AUTHENTICATION_FORM',
      inputs: { 'Data form name': 'passcode-login', 'Passcode Registration Key': 'login1', 'Starting Component ID': 'passcode-authentication' },
      next: 'decide',
    },
    decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: '_checks.login1.result', equals: 'PASS' }, outcome: 'PASS' }], default: 'FAIL' },
  },
});

beforeAll(async () => {
  token = await adminToken();
  storeName = `lockout-${fresh()}`;
  expect((await call('POST', `${base}/stores`, { token, body: { name: storeName, passcodePolicies: { pin: { requirements: { minimumLength: 6 } } } } })).status).toBe(201);
  login = `login-${fresh()}`;
  expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: loginJourney(login) })).status).toBe(201);
});

async function start(definition: string, externalId: string) {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `pl-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { externalId, storeName } },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const url = new URL(created.json.redirectUrl);
  return { id: created.json.processInstanceId as string, path: `${url.pathname}${url.search}&lang=en`, search: `${url.search}&lang=en` };
}

function srpOf(html: string): Record<string, any> {
  const m = /data-srp="([^"]*)"/.exec(html);
  if (!m) throw new Error(`no data-srp in ${html.slice(0, 200)}`);
  return JSON.parse(m[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
}

const post = (path: string, fields: Record<string, string>) =>
  call('POST', path, { rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

async function prove(j: { id: string; path: string; search: string }, step: string, passcode: string) {
  const p = srpOf(await pageUntil(j.path, 'data-mode="authenticate"'));
  const { A, M1 } = await clientLogin({ identity: p.identity, password: passcode, salt: p.salt, B: p.B });
  return post(`/journey/${j.id}/steps/${step}/passcode${j.search}`, { A, M1 });
}

describe('passcode lockout per user', () => {
  it('locks after five wrong passcodes in a row over several journeys, even for the right passcode', async () => {
    const externalId = `ext-${fresh()}`;
    // Registered (and proved) in a first journey.
    const first = await start((await registerDefinition()), externalId);
    const p = srpOf(await pageUntil(first.path, 'data-mode="register"'));
    const verifier = await clientRegistration({ identity: p.identity, password: 'secret1', salt: p.salt });
    expect((await post(`/journey/${first.id}/steps/passcodeForm/passcode${first.search}`, { verifier, historyVerifiers: '' })).status).toBe(303);
    expect((await prove(first, 'loginForm', 'secret1')).status).toBe(303);
    expect(await finalStatus(first.id, token)).toBe('COMPLETED_ENDED_SUCCESS');

    // Three wrong in one journey: it fails, four and five in the next: the passcode locks.
    const second = await start(login, externalId);
    for (let i = 0; i < 3; i++) await prove(second, 'loginForm', `wrong${i}`);
    expect(await finalStatus(second.id, token)).toBe('COMPLETED_ENDED_ERROR');
    const third = await start(login, externalId);
    expect((await prove(third, 'loginForm', 'wrong3')).status).toBe(400);
    expect((await prove(third, 'loginForm', 'wrong4')).status).toBe(303);
    expect(await finalStatus(third.id, token)).toBe('COMPLETED_ENDED_ERROR');

    // Locked: a new journey cannot even start a login, so the right passcode gets nowhere.
    const fourth = await start(login, externalId);
    expect(await finalStatus(fourth.id, token)).toBe('COMPLETED_PROCESS_ERROR');

    const q = await call('POST', `${base}/events/queries/start`, { token, body: { storeName, externalId } });
    const events = (await call('GET', `${base}/events/queries/${q.json.executionId}/result`, { token })).json.events as { type: string; details: Record<string, unknown> }[];
    const locked = events.filter((e) => e.type === 'PASSCODE_LOCKED');
    expect(locked).toHaveLength(1);
    expect(locked[0]!.details).toMatchObject({ policyName: 'pin', failures: '5' });
    expect(new Date(String(locked[0]!.details.lockedUntil)).getTime() - Date.now()).toBeGreaterThan(30_000);
  });
});

let registerName: string | undefined;
async function registerDefinition(): Promise<string> {
  if (registerName) return registerName;
  registerName = `register-${fresh()}`;
  expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: passcodeJourney(registerName) })).status).toBe(201);
  return registerName;
}
