import { describe, expect, it, vi } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import { redirectTarget, redirectVariables, run } from '../../../functions/activities/redirect-user-v2.js';
import { resolveInputs } from '../../../functions/activities/inputs.js';
import { spec } from '../../../functions/activities/specs/redirect-user-v2.js';
import type { ActivityDeps, Session } from '../../../functions/activities/contract.js';
import { journeyPage, journeyScreens, pendingRedirect } from '../../../functions/journey/pages.js';
import { SCREENS } from '../../../functions/activities/index.generated.js';
import { identityStores } from '../../../functions/identity-store/deps.js';
import type { ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import { validateDefinition } from '../../../statemachines/validate.js';

const FAMILY = '${idv.config._redirectUrl > "" ? idv.config._redirectUrl : "www.nab.com.au"}&otpRefId=${idv.otp.otpRef}';
const NOW = new Date('2030-01-02T03:04:05.000Z');

function setup(parameters: Record<string, string> = {}, vars: Record<string, unknown> = {}) {
  const setRedirect = vi.fn(async () => true);
  const putUserData = vi.fn(async () => undefined);
  const deps = { ...activityDeps, instances: { ...activityDeps.instances, setRedirect, putUserData } } as ActivityDeps;
  const session = { instance: { tenantId: 'demo', processInstanceId: 'p1' }, parameters, vars: { ...parameters, ...vars }, _checks: {} } as Session;
  const redirect = (url: string) => run({ activityId: 'sendAway', inputs: { 'Redirect URL': url }, session, tenantId: 'demo', actor: 'journey:p1', now: NOW, expiresAt: 2_000_000_000, deps });
  return { redirect, setRedirect, putUserData };
}

describe('Redirect User V2: the URL', () => {
  it('takes an absolute http(s) URL as it is (normalised), and text with no scheme as https', () => {
    expect(redirectTarget('https://rp.example/back?a=1&b=2')).toBe('https://rp.example/back?a=1&b=2');
    expect(redirectTarget('http://rp.example')).toBe('http://rp.example/');
    expect(redirectTarget('  www.example.com/back?x=1 ')).toBe('https://www.example.com/back?x=1');
    expect(redirectTarget('www.example.com:8443/back')).toBe('https://www.example.com:8443/back');
    expect(redirectTarget('//rp.example/x')).toBe('https://rp.example/x');
    expect(redirectTarget('https://rp.example/a b')).toBe('https://rp.example/a%20b');
  });

  it('never gives anything but an http(s) URL with a host and no credentials', () => {
    for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<b>x</b>', 'mailto:a@b.example', 'ftp://x.example/', 'file:///etc/passwd', '/back', '?x=1', '#top', '\\\\evil.example', '', '   ', 'https://user:pw@rp.example/', `https://rp.example/${'a'.repeat(2048)}`]) {
      expect(redirectTarget(bad), bad).toBeUndefined();
    }
    // Whatever text goes in, what comes out is http(s).
    for (const odd of ['javascript:1', 'vbscript:x', 'data:,x', 'localhost:', 'a:b:c', ' \tjavascript:alert(1)']) {
      const out = redirectTarget(odd);
      if (out !== undefined) expect(new URL(out).protocol, odd).toMatch(/^https?:$/);
    }
  });

  it("reads idv.config as the token's parameters unless the journey has its own", () => {
    const session = (vars: Record<string, unknown>) => ({ instance: { tenantId: 't', processInstanceId: 'p' }, parameters: { _redirectUrl: 'https://rp.example' }, vars }) as Session;
    expect(redirectVariables(session({})).idv).toEqual({ config: { _redirectUrl: 'https://rp.example' } });
    expect(redirectVariables(session({ idv: { otp: { otpRef: 'R' } } })).idv).toEqual({ otp: { otpRef: 'R' }, config: { _redirectUrl: 'https://rp.example' } });
    expect(redirectVariables(session({ idv: { config: { x: 1 } } })).idv).toEqual({ config: { x: 1 } });
  });
});

describe('Redirect User V2: the step', () => {
  it("builds the family's URL from the journey's data and records it on the instance, in the session and in user data", async () => {
    const { redirect, setRedirect, putUserData } = setup({ _redirectUrl: 'https://rp.example/back?s=1' }, { idv: { otp: { otpRef: 'R42' } } });
    const after = await redirect(FAMILY);
    const url = 'https://rp.example/back?s=1&otpRefId=R42';
    expect(after._redirect).toEqual({ url, at: NOW.toISOString() });
    expect(after.vars).toMatchObject({ idv: { otp: { otpRef: 'R42' } } });
    expect(setRedirect).toHaveBeenCalledWith('demo', 'p1', { url, at: NOW.toISOString(), activityId: 'sendAway' });
    expect(putUserData).toHaveBeenCalledWith('demo', 'p1', expect.objectContaining({ activityId: 'sendAway', activityType: 'REDIRECT_USER_V2', dataKey: 'redirect', values: { url, at: NOW.toISOString() } }), 2_000_000_000);
  });

  it('takes the literal branch when the token gave no _redirectUrl, as https', async () => {
    const { redirect } = setup();
    expect((await redirect(FAMILY))._redirect).toMatchObject({ url: 'https://www.nab.com.au&otprefid=/' });
    expect((await redirect('https://rp.example/${lang == "de" ? "de" : "en"}/done'))._redirect).toMatchObject({ url: 'https://rp.example/en/done' });
  });

  it('fails as RedirectUrlNotAllowed for a URL that is not http(s), recording nothing and naming no part of it', async () => {
    const { redirect, setRedirect, putUserData } = setup({ target: 'javascript:alert(document.cookie)' });
    for (const url of ['${target}', 'javascript:alert(1)', 'data:text/html,x', '/relative/${target}']) {
      const failure = await redirect(url).catch((e: Error) => e);
      expect(failure, url).toMatchObject({ name: 'RedirectUrlNotAllowed' });
      expect((failure as Error).message).not.toContain('alert');
    }
    expect(setRedirect).not.toHaveBeenCalled();
    expect(putUserData).not.toHaveBeenCalled();
  });

  it('fails as RedirectUrlExpressionInvalid for an expression that does not parse or cannot be evaluated', async () => {
    const { redirect } = setup({ n: 'text' });
    await expect(redirect('https://x.example/${a ==}')).rejects.toMatchObject({ name: 'RedirectUrlExpressionInvalid' });
    await expect(redirect('https://x.example/${n + 1}')).rejects.toMatchObject({ name: 'RedirectUrlExpressionInvalid' });
  });

  it('gets its template unresolved: a value read from the journey is never evaluated again', async () => {
    const state = { instance: { tenantId: 'demo', processInstanceId: 'p' }, vars: { url: 'https://a.example/${secret}', secret: 'S' } };
    expect(resolveInputs(spec, { 'Redirect URL': '${url}' }, state)).toEqual({ 'Redirect URL': '${url}' });
    const { redirect } = setup({}, { url: 'https://a.example/${secret}', secret: 'S' });
    expect((await redirect('${url}'))._redirect).toMatchObject({ url: 'https://a.example/$%7Bsecret%7D' });
  });

  it('is accepted at publish with text around its expressions', () => {
    const definition = {
      name: 'redirecting',
      version: 1,
      startActivityId: 'away',
      activities: { away: { type: 'REDIRECT_USER_V2', inputs: { 'Redirect URL': 'https://rp.example/back?ref=${otpRef}' }, next: 'done' }, done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } },
    };
    expect(() => validateDefinition(definition)).not.toThrow();
  });
});

describe('the journey page after a redirect', () => {
  const screens = journeyScreens(SCREENS, { identityStores });
  const at = '2030-01-02T03:04:05.000Z';
  const record = (over: Partial<ProcessInstanceRecord>) =>
    ({ id: 'p1', tenantId: 'demo', status: 'ACTIVE', parameters: { _redirectUrl: 'https://rp.example/end' }, redirect: { url: 'https://bank.example/otp?r=1&s=2', at, activityId: 'away' }, ...over }) as ProcessInstanceRecord;
  const step = (activityType: string, inputs: Record<string, unknown> = {}) => ({ activityId: 'a', activityType, inputs, state: {}, taskToken: 't', since: at });
  const form = { title: { values: { en: 'Details' } }, components: [{ type: 'textfield', id: 'city', label: { values: { en: 'City' } } }] };
  const page = (r: ProcessInstanceRecord) => journeyPage(screens, r, 'cap', 'en');
  const sendsTo = (html: string) => /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(html)?.[1];

  it('sends the browser there between steps, at a step with no screen here, and at the end', async () => {
    expect(sendsTo(await page(record({})))).toBe('https://bank.example/otp?r=1&amp;s=2');
    expect(sendsTo(await page(record({ currentStep: step('AN_ACTIVITY_WITH_NO_SCREEN') })))).toBe('https://bank.example/otp?r=1&amp;s=2');
    // Steps whose pages only wait: the family's Pause Instance, Redirect User V2, Waiting for Resume; and the back office's wait.
    for (const waiting of ['WAIT_RESUME_INSTANCE', 'REVIEW_FROM_BACK_OFFICE']) {
      expect(sendsTo(await page(record({ status: 'PAUSED', currentStep: step(waiting) }))), waiting).toBe('https://bank.example/otp?r=1&amp;s=2');
    }
    for (const status of ['COMPLETED_ENDED_SUCCESS', 'REVIEW', 'COMPLETED_ENDED_ERROR'] as const) {
      const html = await page(record({ status }));
      expect(sendsTo(html), status).toBe('https://bank.example/otp?r=1&amp;s=2');
      expect(html).toContain('<a class="button" href="https://bank.example/otp?r=1&amp;s=2">Continue</a>');
      expect(html).not.toContain('<script');
    }
  });

  it('shows a step the end user acts on, a failed journey as it is, and the usual end once a later step is finished', async () => {
    const formPage = await page(record({ currentStep: step('DATA_FORM', { Form: form, 'Form data Key': 'details' }) }));
    expect(formPage).toContain('name="city"');
    expect(formPage).not.toContain('http-equiv="refresh"');
    expect(sendsTo(await page(record({ status: 'COMPLETED_PROCESS_ERROR' })))).toBeUndefined();
    const later = record({ status: 'COMPLETED_ENDED_SUCCESS', lastStep: { activityId: 'form', at: '2030-01-02T03:05:00.000Z' } });
    expect(pendingRedirect(later)).toBeUndefined();
    expect(await page(later)).toContain('content="3;url=https://rp.example/end"');
    expect(pendingRedirect(record({ lastStep: { activityId: 'form', at: '2030-01-02T03:00:00.000Z' } }))).toBe('https://bank.example/otp?r=1&s=2');
  });

  it('never sends the browser to a stored URL the rule does not allow', async () => {
    const bad = record({ redirect: { url: 'javascript:alert(1)', at, activityId: 'away' } });
    expect(pendingRedirect(bad)).toBeUndefined();
    expect(await page(bad)).not.toContain('javascript:');
  });
});
