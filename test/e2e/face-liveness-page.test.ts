/**
 * The Rekognition Face Liveness capture page (Liveness Check REKOGNITION) in Chromium with the
 * fake camera. The local runtime has no Rekognition Face Liveness (it refuses the option at
 * publish), so the page is rendered here as the journey page renders it and served with the CSP
 * showJourney gives it; the session route answers as startFaceLivenessSession does on AWS. What
 * is proved: Amazon's component, bundled as the stack bundles it, mounts under the page's CSP in
 * the page's language, opens the camera, and opens its stream to the region's Rekognition
 * endpoint signed with the credentials the route gave (no violation of the CSP; without the
 * page's additions the stream is blocked). Rekognition is out of this machine's reach, so the
 * stream fails there, and the page takes the end user back to Start, saying so; each Start is a
 * new session.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, PHONE, SHOTS } from './browser.js';
import { buildFaceLivenessAsset } from '../../lib/liveness-asset.js';
import { REPO_ROOT } from '../../lib/stack.js';
import { renderFaceCapture } from '../../functions/journey/screens/face-capture.js';
import { PAGE_JS } from '../../functions/journey/assets.generated.js';
import { PAGE_CSP } from '../../functions/http/wrapper.js';
import { faceLivenessCsp } from '../../functions/faces/liveness-service.js';

const SESSION = '0f3c3b2e-6a61-4d5e-9b1a-2c7d9e8f1a2b';
const REGION = 'eu-west-1';
let browser: Browser;
let server: Server;
let origin: string;
let script: Buffer;
const sessions: string[] = [];

function page(lang: 'en' | 'de') {
  return renderFaceCapture({
    lang,
    action: '/submit',
    maxBytes: 1,
    notice: { retentionDays: 30, required: false },
    rekognition: { url: '/session', flashing: true, offerAnotherWay: true },
  });
}

beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'face-liveness-'));
  script = readFileSync(await buildFaceLivenessAsset(REPO_ROOT, out));
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    if (url.pathname === '/journey/en' || url.pathname === '/journey/de' || url.pathname === '/journey/plain') {
      return send(200, 'text/html; charset=utf-8', page(url.pathname.endsWith('de') ? 'de' : 'en'), {
        'content-security-policy': url.pathname.endsWith('plain') ? PAGE_CSP : faceLivenessCsp(PAGE_CSP, REGION),
        'permissions-policy': 'camera=(self), microphone=(), geolocation=(), payment=(), usb=()',
      });
    }
    if (url.pathname === '/journey/liveness/face-liveness.js') return send(200, 'text/javascript; charset=utf-8', script);
    if (url.pathname === '/journey/assets/page.js') return send(200, 'text/javascript; charset=utf-8', PAGE_JS);
    if (url.pathname === '/session' && req.method === 'POST') {
      sessions.push(SESSION);
      return send(200, 'application/json', JSON.stringify({
        sessionId: SESSION,
        region: REGION,
        challenge: 'FaceMovementAndLightChallenge',
        credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token', expiration: new Date(Date.now() + 900_000).toISOString() },
      }));
    }
    return send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((done) => server?.close(done));
});

/** The page in a phone-sized tab: its CSP violations, the camera's openings and the WebSockets it opens recorded. */
async function open(lang: 'en' | 'de', path = `/journey/${lang}`) {
  const context = await browser.newContext({ ...PHONE, permissions: ['camera'] });
  const tab = await context.newPage();
  const sockets: string[] = [];
  await tab.addInitScript(() => {
    // In the page (no DOM types in the tests' compile).
    const g = globalThis as any;
    g.__csp = [];
    g.__camera = 0;
    g.document.addEventListener('securitypolicyviolation', (e: { violatedDirective: string; blockedURI: string }) => g.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    const media = g.navigator.mediaDevices;
    const open = media.getUserMedia.bind(media);
    media.getUserMedia = (constraints: unknown) => {
      g.__camera += 1;
      return open(constraints);
    };
  });
  tab.on('websocket', (ws) => sockets.push(ws.url()));
  await tab.goto(`${origin}${path}`);
  return {
    tab,
    sockets,
    violations: () => tab.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp),
    cameraOpened: () => tab.evaluate(() => (globalThis as unknown as { __camera: number }).__camera),
  };
}

describe('the Rekognition Face Liveness page in Chromium', () => {
  it("mounts Amazon's component under the page's CSP, opens the camera and the signed stream, and goes back to Start when the stream fails", async () => {
    const { tab, sockets, violations, cameraOpened } = await open('en');
    await tab.getByRole('heading', { name: 'A short live check' }).waitFor({ timeout: 15_000 });
    // What happens, and the flashing, said before anything starts.
    expect(await tab.locator('#face-flash').isVisible()).toBe(true);
    await tab.locator('#face-liveness-start').click();
    await tab.locator('[data-testid="liveness-detector"]').waitFor({ state: 'attached', timeout: 30_000 });
    expect(sessions).toEqual([SESSION]);
    // The stream to the region's endpoint, SigV4-signed with the route's credentials (query auth).
    await expect.poll(() => sockets.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const stream = new URL(sockets[0]!);
    expect(stream.origin).toBe(`wss://streaming-rekognition.${REGION}.amazonaws.com`);
    expect(stream.searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`^ASIAEXAMPLE/\\d{8}/${REGION}/rekognition/aws4_request$`));
    expect(stream.searchParams.get('X-Amz-Security-Token')).toBe('token');
    await expect.poll(cameraOpened, { timeout: 30_000 }).toBeGreaterThan(0);
    // Rekognition is out of reach: the component reports an error, and the page takes the end user back to Start.
    await tab.locator('#face-liveness-start').waitFor({ state: 'visible', timeout: 60_000 });
    await expect.poll(() => tab.locator('#face-status').textContent()).toContain('The check stopped before it was done');
    expect(await tab.locator('#face-liveness').isHidden()).toBe(true);
    expect(await tab.locator('#face-liveness-session').inputValue()).toBe('');
    await tab.screenshot({ path: join(SHOTS, 'face-liveness-stopped.png'), fullPage: true });
    expect(await violations()).toEqual([]);
    // Start again: a new session.
    await tab.locator('#face-liveness-start').click();
    await expect.poll(() => sessions.length, { timeout: 15_000 }).toBe(2);
    await tab.context().close();
  }, 180_000);

  it('speaks German on a German page and offers another way; without the CSP additions the stream is blocked', async () => {
    const de = await open('de');
    await de.tab.locator('#face-liveness-start').click();
    await de.tab.locator('[data-testid="liveness-detector"]').waitFor({ state: 'attached', timeout: 30_000 });
    await expect.poll(() => de.tab.locator('[data-testid="liveness-detector"]').textContent(), { timeout: 30_000 }).toContain('Warnung vor Lichtempfindlichkeit');
    expect(await de.tab.locator('#face-decline').isVisible()).toBe(true);
    expect(await de.violations()).toEqual([]);
    await de.tab.context().close();
    // The control: the pages' own CSP, without what this step adds, refuses the stream.
    const plain = await open('en', '/journey/plain');
    await plain.tab.locator('#face-liveness-start').click();
    await expect.poll(plain.violations, { timeout: 30_000 }).toContainEqual(expect.stringMatching(/^connect-src wss:\/\/streaming-rekognition\.eu-west-1\.amazonaws\.com/));
    await plain.tab.context().close();
  }, 180_000);
});
