import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { adminToken, call, finalStatus, latestSession, pageUntil, storedInstance, type Reply } from './client.js';
import { backFirstJourney, switchJourney } from './switch-journeys.js';

/**
 * Switch Device over HTTP, as two devices use it: the computer's page with the QR code and the
 * link, the link opened by a second client (the phone), which then holds the journey, while the
 * computer's page follows it and takes it back at the step back to the computer. A link opened
 * twice, or after its step timed out, gives nothing.
 */
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);
const form = (values: Record<string, string>) => ({ rawBody: new URLSearchParams(values).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

async function publish(definition: Record<string, unknown>): Promise<string> {
  const res = await call('POST', '/api/process-manager/processDefinitions', { token, body: definition });
  expect(res.status, res.text).toBe(201);
  return definition.name as string;
}

async function start(definition: string) {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `sw-${fresh()}`, processDefnName: definition, processDefnVersion: 1 } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const url = new URL(created.json.redirectUrl);
  const id = created.json.processInstanceId as string;
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  return { id, defnId, c: url.searchParams.get('c')!, page: `${url.pathname}${url.search}` };
}

/** The switch link on the computer's page (absolute), as the path to request. */
function linkOf(html: string): { href: string; path: string } {
  const href = /<a id="switch-link" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  expect(href, html.slice(0, 400)).toBeDefined();
  const url = new URL(href!);
  return { href: href!, path: `${url.pathname}${url.search}` };
}

/** The error code the service logged for a request (journey pages answer with a page, not the code). */
async function loggedErrorCode(res: Reply): Promise<string | undefined> {
  const requestId = res.headers['x-request-id'];
  for (let i = 0; i < 20; i++) {
    const line = readFileSync(inject('logFile'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('{') && l.includes(`"requestId":"${requestId}"`) && l.includes('"message":"request"'));
    if (line) return (JSON.parse(line) as { errorCode?: string }).errorCode;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

beforeAll(async () => {
  token = await adminToken();
});

describe('Switch Device', () => {
  it('moves the journey to a phone by its single-use link, follows it on the computer, and takes it back', async () => {
    const j = await start(await publish(switchJourney(`switch-${fresh()}`)));

    // The computer: the instructions, the QR code (inline SVG) and the link, with no script but the pages' own (which follows the journey).
    const desktop = await pageUntil(j.page, 'id="switch-link"');
    expect(desktop).toContain('data-screen="scan-qr"');
    expect(desktop).toContain('<section id="instructions">');
    expect(desktop).toMatch(/<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="qr" role="img" aria-label="QR code of the link[^"]*" viewBox="0 0 \d+ \d+"/);
    expect(desktop).toMatch(/<path fill="#000" d="(M\d+ \d+h\d+v1h-\d+z)+"\/>/);
    expect(desktop.match(/<script[^>]*>/g)).toEqual(['<script src="/journey/assets/page.js" defer>']);
    expect(desktop).toMatch(/<body data-sending="Sending…" data-refresh="4" data-shown="[A-Za-z0-9_-]{22}">/);
    expect(desktop).toContain('<noscript><meta http-equiv="refresh" content="4"></noscript>');
    const link = linkOf(desktop);
    expect(link.href).toMatch(new RegExp(`^http://demo\\.fir\\.localhost:${inject('port')}/journey/${j.id}/switch\\?s=[A-Za-z0-9_-]{43}&lang=en$`));
    expect(link.href).not.toContain(j.c);
    // The same link whenever the page is shown.
    expect(linkOf((await call('GET', j.page)).text).href).toBe(link.href);

    // The phone opens it: redirected to the journey page with a capability of its own.
    const opened = await call('GET', link.path);
    expect(opened.status, opened.text).toBe(303);
    const phone = String(opened.headers.location);
    expect(phone).toMatch(new RegExp(`^/journey/${j.id}\\?c=[A-Za-z0-9_-]{43}&lang=en$`));
    expect(phone).not.toContain(j.c);
    // It continues at the next step, and the journey's data says it came from the computer.
    expect(await pageUntil(phone, 'Your details')).toContain('name="city"');
    expect((await latestSession('demo', j.id)).vars).toMatchObject({ H_isSwitchedFromDesktop: true, isMobile: true });

    // The computer follows: where the journey is, not its step.
    const following = await call('GET', j.page);
    expect(following.status).toBe(200);
    expect(following.text).toContain('data-screen="mobile-switch-status"');
    expect(following.text).toContain('Continue on your phone');
    expect(following.text).toContain('<meta http-equiv="refresh" content="3">');
    expect(following.text).not.toContain('Your details');
    const holderBefore = (await storedInstance('demo', j.id))!.holder;

    // Opened again: refused with a stable code, and nothing changes.
    const twice = await call('GET', link.path);
    expect(twice.status).toBe(409);
    expect(twice.text).toContain('This link no longer works');
    expect(await loggedErrorCode(twice)).toBe('SWITCH_LINK_USED');
    expect((await storedInstance('demo', j.id))!.holder).toEqual(holderBefore);
    expect(await pageUntil(phone, 'Your details')).toContain('name="city"');

    // The phone fills in the form, then reaches the step back to the computer.
    const step = (activityId: string) => phone.replace('?', `/steps/${activityId}?`);
    expect((await call('POST', step('details'), form({ city: 'Bonn' }))).status).toBe(303);
    const back = await pageUntil(phone, 'data-screen="switch-to-desktop"');
    expect(back).toContain('Go back to your computer');

    // The computer's next load takes the journey back: its page moves on to the next step there.
    expect(await pageUntil(j.page, 'Anything else?')).toContain('name="note"');
    expect((await latestSession('demo', j.id)).vars).toMatchObject({ H_isSwitchedFromDesktop: true, isMobile: false, details: { city: 'Bonn' } });
    // ... and the phone follows the computer now.
    expect(await pageUntil(phone, 'Continue on your computer')).toContain('data-screen="mobile-switch-status"');

    const done = await call('POST', `/journey/${j.id}/steps/confirm?c=${j.c}&lang=en`, form({ note: 'none' }));
    expect(done.status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    // Both devices show the end.
    expect(await pageUntil(phone, 'Thank you')).toBeTruthy();
    expect(await pageUntil(j.page, 'Thank you')).toBeTruthy();

    // Neither the link's secret nor the phone's capability is ever logged.
    const log = readFileSync(inject('logFile'), 'utf8');
    expect(log).not.toContain(new URL(link.href).searchParams.get('s')!);
    expect(log).not.toContain(new URLSearchParams(phone.split('?')[1]).get('c')!);

    const data = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata`, { token });
    expect(data.status).toBe(200);
    const steps = data.json.steps as { activityId: string; activityType: string; values: unknown }[];
    expect(steps.find((s) => s.activityId === 'toPhone')).toMatchObject({ activityType: 'SWITCH_DEVICE', values: { device: 'phone' } });
    expect(steps.find((s) => s.activityId === 'toComputer')).toMatchObject({ activityType: 'SWITCH_DEVICE', values: { device: 'computer' } });
  });

  it('refuses a link whose step timed out, and gives nothing', async () => {
    const j = await start(await publish(switchJourney(`switch-timer-${fresh()}`, 'PT10S')));
    const link = linkOf(await pageUntil(j.page, 'id="switch-link"'));
    // The timer leads to an error end.
    const deadline = Date.now() + 25_000;
    while ((await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.status === 'ACTIVE') {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');

    const late = await call('GET', link.path);
    expect(late.status).toBe(409);
    expect(await loggedErrorCode(late)).toBe('SWITCH_LINK_EXPIRED');
    expect(late.headers.location).toBeUndefined();
    const stored = await storedInstance('demo', j.id);
    expect(stored!.holder).toBeUndefined();
    expect(stored!.status).toBe('COMPLETED_ENDED_ERROR');
  }, 40_000);

  it('refuses a link it never made, or of another instance, as it refuses a wrong journey link', async () => {
    const definition = await publish(switchJourney(`switch-wrong-${fresh()}`));
    const [a, b] = [await start(definition), await start(definition)];
    const link = linkOf(await pageUntil(a.page, 'id="switch-link"'));
    const made = new URL(link.href).searchParams.get('s')!;
    const forged = `${made.slice(0, -2)}${made.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const path of [`/journey/${a.id}/switch?s=${forged}`, `/journey/${b.id}/switch?s=${made}`]) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(404);
      expect(await loggedErrorCode(res)).toBe('JOURNEY_NOT_AVAILABLE');
    }
    expect((await call('GET', `/journey/${a.id}/switch?s=short`)).status).toBe(400);
    // The right link still works.
    expect((await call('GET', link.path)).status).toBe(303);
  });

  it('continues on the same device at a step back to the computer when the journey never moved', async () => {
    const j = await start(await publish(backFirstJourney(`switch-back-${fresh()}`)));
    const here = await pageUntil(`${j.page}&lang=de`, 'data-screen="switch-to-desktop"');
    expect(here).toContain('Auf diesem Gerät fortfahren');
    expect(here).toContain(`action="/journey/${j.id}/steps/toComputer?c=${j.c}&amp;lang=de"`);
    const posted = await call('POST', `/journey/${j.id}/steps/toComputer?c=${j.c}&lang=de`, form({}));
    expect(posted.status).toBe(303);
    expect(await pageUntil(j.page, 'Your details')).toContain('name="city"');
    expect((await storedInstance('demo', j.id))!.holder).toBeUndefined();
  });
});
