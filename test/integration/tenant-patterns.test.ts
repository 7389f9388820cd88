import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, pageUntil } from './client.js';
import { uploadForm } from './data-form-journeys.js';

/**
 * A tenant's regular expressions never run on a backtracking engine against end users' input:
 * a data form field's `validate.pattern` is matched by RE2 (linear time), and a pattern RE2
 * cannot run is refused when the form is saved, inline or by name.
 */
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

const formWith = (pattern: string) =>
  JSON.stringify({
    title: { values: { en: 'Code' } },
    components: [{ type: 'textfield', id: 'code', label: { values: { en: 'Code' } }, validate: { required: true, pattern, maxLength: 100_000 } }],
  });

const journey = (name: string, formName: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'code',
  activities: {
    code: { type: 'DATA_FORM', name: 'Code', inputs: { 'Data form name': formName, 'Data form version': '${1}', 'Form data Key': 'code' } },
  },
});

beforeAll(async () => {
  token = await adminToken();
});

describe('tenant patterns', () => {
  it('refuses a data form whose pattern RE2 cannot run, at the pattern', async () => {
    for (const pattern of ['(?=a)b', '(a)\\1', '(?<!x)y']) {
      const res = await call('POST', '/api/process-manager/customDataForms', {
        token,
        body: { name: `bad ${fresh()}`, version: '1', resource: formWith(pattern) },
      });
      expect(res.status, pattern).toBe(400);
      expect(res.json.code).toBe('VALIDATION_FAILED');
      expect(res.json.details[0].location).toBe('body.resource.components.0.validate.pattern');
      expect(res.json.details[0].message).toContain('RE2');
    }
  });

  it('refuses an inline form with such a pattern when the definition is published', async () => {
    const name = `inline-${fresh()}`;
    const res = await call('POST', '/api/process-manager/processDefinitions', {
      token,
      body: {
        name,
        version: 1,
        startActivityId: 'code',
        activities: { code: { type: 'DATA_FORM', inputs: { 'Form data Key': 'code', Form: JSON.parse(formWith('(?=a)')) } } },
      },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.details.map((d: { location: string }) => d.location)).toContain('body.activities.code.inputs.Form.components.0.validate.pattern');
  });

  it('runs a catastrophic pattern against a long input in linear time, and still matches', async () => {
    const formName = `code ${fresh()}`;
    await uploadForm(token, formName, formWith('(a+)+b'));
    const definition = `patterns-${fresh()}`;
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(definition, formName) })).status).toBe(201);
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `p-${fresh()}`, processDefnName: definition, processDefnVersion: 1 } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const url = new URL(created.json.redirectUrl);
    const step = `/journey/${created.json.processInstanceId}/steps/code?c=${url.searchParams.get('c')}`;
    await pageUntil(`${url.pathname}${url.search}`, 'name="code"');
    const post = (code: string) => call('POST', step, { rawBody: new URLSearchParams({ code }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    // On a backtracking engine 30 characters already take seconds; this would never end.
    // Refused: 303 to the journey page, which shows the refusal (post, redirect, get).
    const shown = async (res: Awaited<ReturnType<typeof post>>) => {
      expect(res.status).toBe(303);
      return call('GET', String(res.headers.location));
    };
    expect((await shown(await post('aaac'))).text).toContain('role="alert"');
    const refused = await shown(await post(`${'a'.repeat(9_000)}c`));
    expect(refused.text, refused.text.slice(-3000)).toContain('name="code"');
    expect(refused.text).toContain('role="alert"');
    expect((await post('aaab')).status).toBe(303);
    expect(await finalStatus(created.json.processInstanceId, token)).toBe('COMPLETED_ENDED_SUCCESS');
  });
});
