import { describe, expect, it, vi } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import { begin, evaluateSessionData, MAX_SESSION_DATA_BYTES, recordedFrame, submission } from '../../../functions/activities/custom-page.js';
import type { ActivityDeps, Session, StepView } from '../../../functions/activities/contract.js';
import type { spec } from '../../../functions/activities/specs/custom-page.js';
import { asText, sendFields } from '../../../functions/journey/client/custom-page-send.js';
import { renderCustomPage } from '../../../functions/journey/screens/custom-page.js';
import { mergeSession, replacing } from '../../../functions/journey/steps.js';
import { readPayload } from '../../../functions/activities/payload.js';
import { SERVED_CONTRACTS } from '../../../functions/shared/activity-contract.js';
import type { CustomPageRecord } from '../../../functions/theme-server/model.js';
import { useConfigEnv } from '../../support/config-env.js';

useConfigEnv({ PAGES_ORIGIN: 'https://pages.example.test', TABLE_NAME: process.env.TABLE_NAME ?? 'arthr-test' });

const session = (vars: Record<string, unknown> = {}, parameters: Record<string, string> = {}): Session =>
  ({ instance: { tenantId: 'demo', processInstanceId: 'p1' }, parameters, vars: { ...parameters, ...vars } }) as Session;

const record = (over: Partial<CustomPageRecord> = {}): CustomPageRecord =>
  ({
    tenantId: 'demo',
    id: 'page-id',
    name: 'PageName',
    version: 3,
    status: 'DEPLOYED_ACTIVE',
    baseAppUrl: null,
    servingSecret: '0123456789abcdef0123456789abcdef',
    archiveEntries: ['/index.html'],
    archiveBytes: 10,
    ...over,
  }) as CustomPageRecord;

function starting(inputs: Record<string, unknown>, s: Session, page: CustomPageRecord | 'none' = record(), timeoutSeconds?: number) {
  const found = page === 'none' ? undefined : page;
  const getVersion = vi.fn(async () => found);
  const get = vi.fn(async () => found);
  const deps = { ...activityDeps, customPages: { ...activityDeps.customPages, get, getVersion } } as ActivityDeps;
  return begin({
    activityId: 'CPG01_name',
    inputs: { 'Custom Page Name': 'PageName', 'Custom Page Version': 3, 'Custom Page Key': 'nameForm', ...inputs } as never,
    session: s,
    tenantId: 'demo',
    actor: 'journey:p1',
    now: new Date(),
    deps,
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
  });
}

describe('Custom Page: when the step starts', () => {
  it('records the version it frames, where it is served, and what the page is told', async () => {
    const recorded = await starting(
      { 'Session Data': { greeting: 'Hello ${firstName}!', config: '${idv.config}', n: '${2 + 1}' }, Constants: { brand: 'x' }, 'List of Screens': ['custom-page'] },
      session({}, { firstName: 'Ada' }),
      record(),
      270,
    );
    const frame = recordedFrame({ activityType: 'CUSTOM_PAGE', inputs: recorded })!;
    expect(frame.page).toEqual({ id: 'page-id', name: 'PageName', version: 3 });
    expect(frame.origin).toBe('https://pages.example.test');
    expect(frame.indexUrl).toBe('https://pages.example.test/tenants/demo/custom-pages/page-id/0123456789abcdef0123456789abcdef/index.html');
    expect(frame.constants).toEqual({ brand: 'x', baseUrl: frame.indexUrl.replace(/index\.html$/, ''), screenId: 'custom-page', screens: ['custom-page'], timeoutInSeconds: 270 });
    // A whole expression keeps its type; text with expressions is text.
    expect(frame.sessionData).toEqual({ greeting: 'Hello Ada!', config: { firstName: 'Ada' }, n: 3 });
  });

  it('counts down from the Step Timeout where no timer says otherwise, and frames a base app URL from its own origin', async () => {
    const recorded = await starting({ 'Step Timeout (Seconds)': 600 }, session(), record({ baseAppUrl: 'https://app.bank.test/kyc', servingSecret: null }));
    const frame = recordedFrame({ activityType: 'CUSTOM_PAGE', inputs: recorded })!;
    expect(frame).toMatchObject({ origin: 'https://app.bank.test', indexUrl: 'https://app.bank.test/kyc', constants: { baseUrl: 'https://app.bank.test/kyc/', timeoutInSeconds: 600 } });
  });

  it('fails under its own names: a page that is missing, archived or without files, or Session Data that cannot be evaluated or is too large', async () => {
    await expect(starting({}, session(), 'none')).rejects.toMatchObject({ name: 'CustomPageNotFound' });
    await expect(starting({}, session(), record({ status: 'ARCHIVED' }))).rejects.toMatchObject({ name: 'CustomPageArchived' });
    await expect(starting({}, session(), record({ servingSecret: null }))).rejects.toMatchObject({ name: 'CustomPageHasNoFiles' });
    const bad = starting({ 'Session Data': { attempt: '${name - 1}' } }, session({ name: 'Ada' }));
    await expect(bad).rejects.toMatchObject({ name: 'CustomPageSessionDataInvalid' });
    // The message names the key, never the value the journey holds.
    expect(((await bad.catch((e: Error) => e)) as Error).message).not.toContain('Ada');
    const big = 'x'.repeat(MAX_SESSION_DATA_BYTES);
    await expect(starting({ 'Session Data': { big: '${big}' } }, session({ big }))).rejects.toMatchObject({ name: 'CustomPageSessionDataInvalid' });
  });

  it("evaluates the family's real Session Data expressions", () => {
    const vars = { idv: { attemptNo: 3, config: { assisted: '' } }, dvsAttempt: null };
    expect(
      evaluateSessionData('a', { attempt: '${idv.attemptNo!=null?idv.attemptNo-1: 0}', assisted: '${idv.config.assisted > "" ? idv.config.assisted : "0"}', idv: '${idv}', none: '${dvsAttempt}' }, vars as never),
    ).toEqual({ attempt: 2, assisted: '0', idv: vars.idv, none: null });
  });
});

const view = (inputs: Record<string, unknown>) =>
  ({
    step: { activityId: 'CPG01_name', activityType: 'CUSTOM_PAGE', inputs, state: {}, taskToken: 't', since: '' },
    inputs,
    record: { id: 'p1' },
    capability: 'cap',
    lang: 'en',
  }) as unknown as StepView<typeof spec>;

describe('Custom Page: a SEND', () => {
  const frame = { page: { id: 'page-id', name: 'PageName', version: 3 }, origin: 'https://pages.example.test', indexUrl: 'https://pages.example.test/i/index.html', constants: {}, sessionData: {} };
  const inputs = { 'Custom Page Key': 'nameForm', 'Custom Page Frame': frame };
  const now = new Date('2030-01-01T00:00:00Z');

  it('is kept as the family keeps it, text under customPageParameters, replacing the last capture', async () => {
    const outcome = await submission.submit(view(inputs), { body: { 'arthr:event': 'SEND', 'var:preferredName': 'Ada', 'var:goback': 'false' } }, now);
    expect(outcome).toEqual({
      complete: {
        result: {
          vars: {
            _customUis: {
              nameForm: replacing({
                currentCapture: {
                  customPageParameters: { preferredName: { value: 'Ada' }, goback: { value: 'false' } },
                  capturedAt: '2030-01-01T00:00:00.000Z',
                  customPageName: 'PageName',
                  customPageVersion: 3,
                },
              }),
            },
          },
        },
        values: { preferredName: 'Ada', goback: 'false' },
        dataKey: 'nameForm',
      },
    });
    // A retake's capture takes the place of the last one: its goback does not linger.
    const before = { vars: { _customUis: { nameForm: { currentCapture: { customPageParameters: { goback: { value: 'true' } } } }, other: { kept: 1 } } } };
    const after = mergeSession(before, (outcome as { complete: { result: Record<string, unknown> } }).complete.result) as { vars: { _customUis: Record<string, { currentCapture: { customPageParameters: Record<string, unknown> } }> } };
    expect(Object.keys(after.vars._customUis.nameForm!.currentCapture.customPageParameters)).toEqual(['preferredName', 'goback']);
    expect(after.vars._customUis.other).toEqual({ kept: 1 });
    expect(mergeSession({}, { vars: { a: replacing({ b: 1 }) } })).toEqual({ vars: { a: { b: 1 } } });
  });

  it('is refused, and the step keeps waiting, for a post that is not a SEND, a name conditions cannot read, or too many variables', async () => {
    expect(await submission.submit(view(inputs), { body: { 'var:a': '1' } }, now)).toEqual({ refused: { code: 'CUSTOM_PAGE_NOT_SENT', errors: {} } });
    for (const name of ['a.b', '$replace', '1a', 'x'.repeat(65), '__proto__.x', '']) {
      expect(await submission.submit(view(inputs), { body: { 'arthr:event': 'SEND', [`var:${name}`]: '1' } }, now)).toEqual({ refused: { code: 'CUSTOM_PAGE_VARIABLE_NAMES', errors: {} } });
    }
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`var:v${i}`, '1']));
    expect(await submission.submit(view(inputs), { body: { 'arthr:event': 'SEND', ...many } }, now)).toEqual({ refused: { code: 'CUSTOM_PAGE_TOO_MANY_VARIABLES', errors: {} } });
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`var:v${i}`, '1']));
    expect(await submission.submit(view(inputs), { body: { 'arthr:event': 'SEND', ...hundred } }, now)).toHaveProperty('complete');
  });
});

describe('the host page', () => {
  const frame = { page: { id: 'i', name: 'n', version: 1 }, origin: 'https://pages.example.test', indexUrl: 'https://pages.example.test/t/index.html', constants: { a: '</script><script>alert(1)</script>' }, sessionData: { b: '<!--' } };
  const html = renderCustomPage({ lang: 'de', action: '/journey/p1/steps/s?c=x&lang=de', frame });

  it('frames the page sandboxed, sends no referrer, and carries what the page is told as inert JSON', () => {
    expect(html).toContain('<iframe id="custom-page" class="custom-page-frame" title="Die auszufüllende Seite" src="https://pages.example.test/t/index.html" sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads" referrerpolicy="no-referrer"');
    const json = /<script type="application\/json" id="custom-page-told">([^<]*)<\/script>/.exec(html)![1]!;
    expect(JSON.parse(json)).toEqual({ origin: frame.origin, variables: { constants: { ...frame.constants, language: 'de' }, sessionData: frame.sessionData } });
    expect(html.match(/<script/g)).toHaveLength(3); // its two scripts by URL and the JSON: nothing the constants brought
  });
});

describe('the host script: what a SEND posts', () => {
  it('turns each variable into text: a string as it is, a date as ISO text, anything else as JSON; undefined is left out', () => {
    expect(sendFields({ a: 'x', b: true, c: 12, d: null, e: { f: [1] }, g: undefined, h: new Date('2030-01-01T00:00:00Z') })).toEqual([
      ['a', 'x'],
      ['b', 'true'],
      ['c', '12'],
      ['d', 'null'],
      ['e', '{"f":[1]}'],
      ['h', '2030-01-01T00:00:00.000Z'],
    ]);
    expect(sendFields(undefined)).toEqual([]);
    expect(asText(new Date(Number.NaN))).toBe('');
  });

  it('refuses what the step would refuse: not an object, a bad name, too many, a value too long', () => {
    for (const bad of ['x', 3, [1, 2], { 'a.b': 1 }, { $replace: 1 }, { a: 'x'.repeat(10_001) }, Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, 1]))]) {
      expect(sendFields(bad)).toBeUndefined();
    }
    expect(sendFields({ a: 'x'.repeat(10_000) })).toHaveLength(1);
  });
});

describe('the activity payload: a user step timeoutSeconds', () => {
  const raw = { contract: 2, activityId: 'a', activityType: 'CUSTOM_PAGE', inputs: '{}', keep: [], state: {} };
  it('is read when it is a whole number of seconds, absent otherwise, and refused when it is anything else', () => {
    expect(readPayload({ ...raw, timeoutSeconds: 270 }, SERVED_CONTRACTS).timeoutSeconds).toBe(270);
    expect(readPayload(raw, SERVED_CONTRACTS)).not.toHaveProperty('timeoutSeconds');
    for (const bad of [0, -1, 1.5, '270']) expect(() => readPayload({ ...raw, timeoutSeconds: bad }, SERVED_CONTRACTS)).toThrow(/timeoutSeconds/);
  });
});
