import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, call, finalStatus } from '../integration/client.js';
import { identityJourney, passkeyJourney } from '../integration/journeys.js';
import { PHONE, SHOTS, launchChromium } from './browser.js';

/**
 * Passkeys in Chromium with its virtual authenticator (a platform authenticator with user
 * verification, driven over the DevTools protocol): in a journey on the service's own pages,
 * and through the API as a relying party's own page on localhost would use it.
 */
let browser: Browser;
let token: string;
let rp: Server;
let rpOrigin: string;
const fresh = () => Math.random().toString(36).slice(2, 8);
const base = '/api/identity-store';

beforeAll(async () => {
  browser = await launchChromium();
  token = await adminToken();
  // The relying party's own page, on localhost: @simplewebauthn/browser's bundle and nothing else.
  const bundle = readFileSync(resolve(import.meta.dirname, '../../node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js'), 'utf8');
  rp = createServer((req, res) => {
    if (req.url === '/webauthn.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Bank</title><script src="/webauthn.js"></script><h1>Bank</h1>');
  });
  await new Promise<void>((ok) => rp.listen(0, '127.0.0.1', ok));
  rpOrigin = `http://localhost:${(rp.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((ok) => rp?.close(ok));
});

/** A context whose pages have one virtual platform authenticator that verifies its user. */
async function withAuthenticator(page: Page): Promise<{ credentials(): Promise<{ signCount: number }[]> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

async function storeFor(rpId: string, origin: string): Promise<string> {
  const store = `e2e-pk-${fresh()}`;
  expect((await call('POST', `${base}/stores`, { token, body: { name: store } })).status).toBe(201);
  const config = {
    rpId,
    rpName: 'Bank',
    allowedOrigins: [origin],
    registrationPolicies: { default: { authenticatorSelection: { residentKey: 'required', userVerification: 'required' } } },
    authenticationPolicies: { default: { userVerification: 'required' } },
  };
  expect((await call('POST', `${base}/stores/${store}/passkeyConfig`, { token, body: config })).status).toBe(201);
  return store;
}

describe('passkeys in Chromium with a virtual authenticator', () => {
  let context: BrowserContext | undefined;
  afterAll(async () => context?.close());

  it('in a journey: the end user creates a passkey, then signs in with it', async () => {
    const rpId = 'demo.fir.localhost';
    const store = await storeFor(rpId, `http://demo.fir.localhost:${inject('port')}`);
    const name = `e2e-passkey-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: passkeyJourney(name, store, rpId) })).status).toBe(201);
    const externalId = `anna-${fresh()}`;
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name, processDefnName: name, processDefnVersion: 1, parameters: { externalId } } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });

    context = await browser.newContext(PHONE);
    const page = await context.newPage();
    const authenticator = await withAuthenticator(page);
    await page.goto(`${created.json.redirectUrl}&lang=en`);
    await page.getByRole('heading', { name: 'Create a passkey' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: `${SHOTS}/14-passkey-create-en.png`, fullPage: true });
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.getByRole('heading', { name: 'Sign in with your passkey' }).waitFor({ timeout: 15_000 });
    expect(await authenticator.credentials()).toHaveLength(1);
    await page.screenshot({ path: `${SHOTS}/15-passkey-sign-in-en.png`, fullPage: true });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(0);

    expect(await finalStatus(created.json.processInstanceId, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const user = await call('GET', `${base}/stores/${store}/users/${externalId}/ext`, { token });
    const authentications = await call('GET', `${base}/stores/${store}/users/${user.json.id}/authentications`, { token });
    expect(authentications.json.content).toEqual([expect.objectContaining({ method: 'PASSKEY', rpId })]);
  });

  it('the identity store end to end in one journey: user added, passcode registered and proved, passkey created and used, passcode deregistered, all in the event log', async () => {
    const rpId = 'demo.fir.localhost';
    const store = await storeFor(rpId, `http://demo.fir.localhost:${inject('port')}`);
    const policy = await call('POST', `${base}/stores/${store}`, { token, body: { passcodePolicies: { pin: { requirements: { minimumLength: 6, digitCount: 1 } } } } });
    expect(policy.status).toBe(200);
    const name = `e2e-identity-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: identityJourney(name, rpId) })).status).toBe(201);
    const externalId = `cara-${fresh()}`;
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name, processDefnName: name, processDefnVersion: 1, parameters: { externalId, storeName: store } },
    });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });

    const ctx = await browser.newContext(PHONE);
    const page = await ctx.newPage();
    await withAuthenticator(page);
    await page.goto(`${created.json.redirectUrl}&lang=en`);
    await page.getByRole('heading', { name: 'Choose a passcode' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Passcode', { exact: true }).fill('river42');
    await page.getByLabel('Passcode again').fill('river42');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Enter your passcode' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Passcode').fill('river42');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Create a passkey' }).click({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click({ timeout: 15_000 });
    await page.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 15_000 });
    await ctx.close();
    expect(await finalStatus(created.json.processInstanceId, token)).toBe('COMPLETED_ENDED_SUCCESS');

    const user = await call('GET', `${base}/stores/${store}/users/${externalId}/ext`, { token });
    expect(user.json.passcodes).toEqual([]);
    const q = await call('POST', `${base}/events/queries/start`, { token, body: { storeName: store, userId: user.json.id } });
    const events = (await call('GET', `${base}/events/queries/${q.json.executionId}/result`, { token })).json.events as { type: string; actor: string }[];
    expect(events.map((e) => e.type)).toEqual([
      'USER_ADDED',
      'PASSCODE_REGISTERED',
      'PASSCODE_AUTHENTICATED',
      'PASSKEY_REGISTERED',
      'PASSKEY_AUTHENTICATED',
      'PASSCODE_DEREGISTERED',
    ]);
    for (const e of events) expect(e.actor).toBe(`journey:${created.json.processInstanceId}`);
    const authentications = await call('GET', `${base}/stores/${store}/users/${user.json.id}/authentications`, { token });
    expect(authentications.json.content.map((a: { method: string }) => a.method)).toEqual(['PASSKEY', 'PASSCODE']);
  });

  it("through the API, from a relying party's own page: register, then authenticate by user and discoverably", async () => {
    const store = await storeFor('localhost', rpOrigin);
    const user = (await call('POST', `${base}/stores/${store}/users`, { token, body: { externalId: `bob-${fresh()}` } })).json;
    const page = await browser.newPage();
    await withAuthenticator(page);
    await page.goto(`${rpOrigin}/`);
    await page.waitForFunction(() => typeof (globalThis as any).SimpleWebAuthnBrowser === 'object');
    const inPage = <T>(fn: string, optionsJSON: unknown) =>
      page.evaluate(async ([f, o]) => (globalThis as any).SimpleWebAuthnBrowser[f as string]({ optionsJSON: o }), [fn, optionsJSON] as const) as Promise<T>;

    // The relying party's backend starts the ceremony; its page runs it; the backend completes it.
    const reg = await call('POST', `${base}/stores/${store}/users/${user.id}/passkeys/relyingParties/localhost/registrations/default`, { token, body: {} });
    const attestation = await inPage('startRegistration', reg.json.publicKey);
    const registered = await call('POST', `${base}/stores/${store}/passkeys/registrations/sessions/${reg.json.sessionId}`, { token, body: { response: attestation } });
    expect(registered.status, registered.text).toBe(200);
    const audit = await call('GET', `${base}/stores/${store}/users/${user.id}/passkeys/${registered.json.passkey.id}/registrationAudit`, { token });
    expect(audit.json).toMatchObject({ origin: rpOrigin, userVerified: true, attestationFormat: 'none' });

    const byUser = await call('POST', `${base}/stores/${store}/users/${user.id}/passkeys/relyingParties/localhost/authentications/default`, { token, body: {} });
    const assertion = await inPage('startAuthentication', byUser.json.publicKey);
    const first = await call('POST', `${base}/stores/${store}/passkeys/authentications`, { token, body: { sessionId: byUser.json.sessionId, response: assertion } });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ verified: true, user: { id: user.id } });
    // The same assertion cannot be used twice.
    expect((await call('POST', `${base}/stores/${store}/passkeys/authentications`, { token, body: { sessionId: byUser.json.sessionId, response: assertion } })).status).toBe(404);

    const discoverable = await call('POST', `${base}/stores/${store}/passkeys/relyingParties/localhost/authentications/default`, { token, body: {} });
    const second = await call('POST', `${base}/stores/${store}/passkeys/authentications`, {
      token,
      body: { sessionId: discoverable.json.sessionId, response: await inPage('startAuthentication', discoverable.json.publicKey) },
    });
    expect(second.status, second.text).toBe(200);
    expect(second.json.user.externalId).toBe(user.externalId);
    expect(second.json.passkey.counter).toBeGreaterThan(first.json.passkey.counter);
    await page.close();
  });
});
