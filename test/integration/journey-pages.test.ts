import { beforeAll, describe, expect, it } from 'vitest';
import { identityCheck } from '../../statemachines/examples/index.js';
import { adminToken, call, issueToken, keyWith, pageUntil } from './client.js';
import { inject } from 'vitest';

/** A refused submission: 303 to the journey page (post, redirect, get), which shows what to fix and what was entered. */
async function shown(res: Awaited<ReturnType<typeof call>>, what?: string): Promise<Awaited<ReturnType<typeof call>>> {
  expect(res.status, what).toBe(303);
  return call('GET', String(res.headers.location));
}


let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

/** A one-form journey: the identity-check form, then a decision that passes. */
const formOnly = () => {
  const def = structuredClone(identityCheck as Record<string, any>);
  def.name = `form-only-${fresh()}`;
  def.activities.personalDetails.next = 'decide';
  delete def.activities.captureFace;
  def.activities.decide.rules = [{ when: { errorEvent: true }, outcome: 'FAIL' }];
  def.activities.decide.default = 'PASS';
  return def;
};

async function start(definition: string, version = 1): Promise<{ id: string; path: string; c: string; defnId: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `jp-${fresh()}`, processDefnName: definition, processDefnVersion: version, parameters: { firstName: 'Ann', _redirectUrl: 'https://rp.example/back?x=1' } },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const url = new URL(created.json.redirectUrl);
  const read = await call('GET', `/api/process-manager/processInstances/${created.json.processInstanceId}`, { token });
  return { id: created.json.processInstanceId, path: `${url.pathname}${url.search}`, c: url.searchParams.get('c')!, defnId: read.json.processDefnId };
}

const form = (values: Record<string, string>) => ({
  rawBody: new URLSearchParams(values).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

beforeAll(async () => {
  token = await adminToken();
});

describe('GET /journey/{id} (the redirect URL)', () => {
  it('shows the waiting data form in the chosen language with its defaults, and makes the instance ACTIVE', async () => {
    const j = await start('identity-check');
    const page = await pageUntil(`${j.path}&lang=de`, 'Vorname');
    expect(page).toContain('<html lang="de">');
    expect(page).toMatch(/id="f-firstName" name="firstName"[^>]*value="Ann"/);
    const res = await call('GET', `${j.path}&lang=de`);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("form-action 'self'");
    expect(res.headers['cache-control']).toBe('no-store');
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    expect(read.json.status).toBe('ACTIVE');
    expect((await call('GET', `${j.path}&lang=fr`)).text).toContain('First name'); // English fallback
  });

  it('answers a wrong, malformed or foreign link with a page, not data', async () => {
    const j = await start('identity-check');
    const wrong = await call('GET', `/journey/${j.id}?c=${'A'.repeat(43)}`);
    expect(wrong.status).toBe(404);
    expect(wrong.text).toContain('This link no longer works');
    expect(wrong.headers['content-type']).toContain('text/html');
    expect((await call('GET', `/journey/${j.id}?c=short`)).status).toBe(400);
    expect((await call('GET', `/journey/${j.id}`)).status).toBe(400);
    expect((await call('GET', j.path, { tenant: 'other' })).status).toBe(404);
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    expect(read.json.status).toBe('PENDING');
  });
});

describe('POST /journey/{id}/steps/{activityId}', () => {
  it('re-renders a wrong submission with its messages and what was typed, then resumes on a right one', async () => {
    const j = await start('identity-check');
    await pageUntil(j.path, 'First name');
    const action = `/journey/${j.id}/steps/personalDetails?c=${j.c}&lang=en`;
    const wrong = await shown(await call('POST', action, form({ firstName: 'Ann<b>', lastName: '', dateOfBirth: '2020-01-01' })));
    expect(wrong.text).toContain('Enter your last name.');
    expect(wrong.text).toContain('You must be 18 or older.');
    expect(wrong.text).toContain('value="Ann&lt;b&gt;"');
    expect(wrong.text).toContain('role="alert"');

    const right = await call('POST', action, form({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' }));
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe(`/journey/${j.id}?c=${j.c}&lang=en`);
    await pageUntil(j.path, 'id="face-form"');
    // The same submission again (a browser retry, a second click) gets the same answer; another one is refused.
    const again = await call('POST', action, form({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' }));
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(right.headers.location);
    const other = await call('POST', action, form({ firstName: 'Bob', lastName: 'Lee', dateOfBirth: '1990-05-17' }));
    expect(other.status).toBe(409);
    const userdata = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata`, { token });
    expect(userdata.status).toBe(200);
    expect(JSON.stringify(userdata.json)).toContain('"firstName":"Ann"');
    expect(JSON.stringify(userdata.json)).not.toContain('Bob');
  });

  it('takes a step once when the same submission arrives twice at once: both go on, one result resumes the journey', async () => {
    const def = formOnly();
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: def })).status).toBe(201);
    const j = await start(def.name);
    await pageUntil(j.path, 'First name');
    const action = `/journey/${j.id}/steps/personalDetails?c=${j.c}&lang=en`;
    const replies = await Promise.all([
      call('POST', action, form({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' })),
      call('POST', action, form({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' })),
      call('POST', action, form({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' })),
    ]);
    expect(replies.map((r) => r.status)).toEqual([303, 303, 303]);
    const deadline = Date.now() + 10_000;
    let status = '';
    while (Date.now() < deadline && (status = (await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.status) !== 'COMPLETED_ENDED_SUCCESS') {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('COMPLETED_ENDED_SUCCESS');
  });

  it('refuses a submission with the wrong capability, and a body that is not a form', async () => {
    const j = await start('identity-check');
    await pageUntil(j.path, 'First name');
    expect((await call('POST', `/journey/${j.id}/steps/personalDetails?c=${'B'.repeat(43)}`, form({ firstName: 'x' }))).status).toBe(404);
    const json = await call('POST', `/journey/${j.id}/steps/personalDetails?c=${j.c}`, { body: { firstName: 'x' } });
    expect(json.status).toBe(415);
  });

  it('ends on a final page that sends the end user to the _redirectUrl', async () => {
    const def = formOnly();
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: def })).status).toBe(201);
    const j = await start(def.name);
    await pageUntil(j.path, 'First name');
    const res = await call('POST', `/journey/${j.id}/steps/personalDetails?c=${j.c}&lang=de`, form({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' }));
    expect(res.status).toBe(303);
    const done = await pageUntil(`${j.path}&lang=de`, 'Vielen Dank');
    expect(done).toContain('content="3;url=https://rp.example/back?x=1"');
    expect(done).toContain('href="https://rp.example/back?x=1"');
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    expect(read.json.status).toBe('COMPLETED_ENDED_SUCCESS');

    // What the end user gave, through the user data API.
    const userdata = `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${j.id}/userdata`;
    const data = await call('GET', userdata, { token });
    expect(data.status).toBe(200);
    expect(data.json).toMatchObject({
      processInstanceId: j.id,
      status: 'COMPLETED_ENDED_SUCCESS',
      forms: { personalDetails: { firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' } },
      steps: [{ activityId: 'personalDetails', activityType: 'DATA_FORM', dataKey: 'personalDetails' }],
    });
    expect(data.json.data).toBeUndefined();
    // Another definition id in the path, another tenant, or no permission: nothing.
    const otherDefn = userdata.replace(read.json.processDefnId, '00000000-0000-4000-8000-000000000000');
    expect((await call('GET', otherDefn, { token })).status).toBe(404);
    expect((await call('GET', userdata, { tenant: 'other', token: await issueToken(inject('otherKey'), 'other') })).status).toBe(404);
    const { secret } = await keyWith(['ProcessManager:getProcessInstance']);
    expect((await call('GET', userdata, { token: await issueToken(secret) })).status).toBe(403);

    // The same as one binary document, and as a password-protected zip.
    const binary = await call('GET', userdata.replace(/userdata$/, 'getdata'), { token });
    expect(binary.status).toBe(200);
    expect(JSON.parse(Buffer.from(binary.json.data, 'base64').toString('utf8'))).toEqual(data.json);
    const archive = userdata.replace(/userdata$/, 'userdataarchive');
    for (const password of ['short1A!', 'alllowercaseletters', 'ALLUPPER12345678']) {
      const weak = await call('POST', archive, { token, body: { config: { password } } });
      expect(weak.status, password).toBe(400);
      expect(weak.json.details[0].location).toBe('body.config.password');
    }
    expect((await call('POST', archive, { token, body: { config: {} } })).status).toBe(400);
    expect((await call('POST', archive, { token, body: {} })).status).toBe(400);
    const zipped = await call('POST', archive, { token, body: { config: { password: 'Correct-Horse-9' } } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-type']).toBe('application/zip');
    const zip = await import('@zip.js/zip.js');
    zip.configure({ useWebWorkers: false });
    const entries = await new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(zipped.raw)), { password: 'Correct-Horse-9' }).getEntries();
    expect(entries.map((e) => [e.filename, e.encrypted])).toEqual([['userdata.json', true]]);
    const file = entries[0] as import('@zip.js/zip.js').FileEntry;
    expect(JSON.parse(await file.getData(new zip.TextWriter()))).toEqual(data.json);
    const locked = await new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(zipped.raw)), { password: 'Wrong-Horse-99' }).getEntries();
    await expect((locked[0] as import('@zip.js/zip.js').FileEntry).getData(new zip.TextWriter())).rejects.toThrow();
  });
});

describe('a user step that times out', () => {
  it('ends the instance COMPLETED_TERMINATED and the link says so', async () => {
    const def = formOnly();
    def.activities.personalDetails.inputs['Step Timeout (Seconds)'] = 60; // the shortest a step may wait
    expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: def })).status).toBe(201);
    const j = await start(def.name);
    await pageUntil(j.path, 'First name');
    const deadline = Date.now() + 80_000;
    let status = '';
    while (Date.now() < deadline) {
      status = (await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.status;
      if (status === 'COMPLETED_TERMINATED') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(status).toBe('COMPLETED_TERMINATED');
    const page = await call('GET', j.path);
    expect(page.text).toContain('This link no longer works');
    const late = await call('POST', `/journey/${j.id}/steps/personalDetails?c=${j.c}`, form({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-05-17' }));
    expect(late.status).toBe(409);
  }, 100_000);
});
