import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, pageUntil } from './client.js';
import { DOCUMENT_NUMBER, addDocumentParser, applicantJourney, builderForm, builderJourney, uploadForm } from './data-form-journeys.js';

/** A refused submission: 303 to the journey page (post, redirect, get), which shows what to fix and what was entered. */
async function shown(res: Awaited<ReturnType<typeof call>>, what?: string): Promise<Awaited<ReturnType<typeof call>>> {
  expect(res.status, what).toBe(303);
  return call('GET', String(res.headers.location));
}


/**
 * Data forms by name and version over HTTP, as a relying party's deployment tools and its end
 * users' browsers use them: a form uploaded to /api/process-manager/customDataForms, a JSON
 * definition naming it, its journey completed through the pages (with a refusal, a retake and
 * a confirmation), and what the end user gave read back through the user data API.
 */
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

const form = (values: Record<string, string>) => ({
  rawBody: new URLSearchParams(values).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

const VALID = {
  firstName: 'Anna',
  city: 'Köln',
  note: 'Two lines\r\nof note',
  email: 'anna@example.org',
  mobile: '0151 23456789',
  landline: '+43 1 5880000',
  income: '52000,50',
  dateOfBirth: '1990-05-17',
  country: 'DE',
  document: 'idCard',
  consent: 'on',
};

async function publish(formName: string): Promise<string> {
  const name = `applicant-${fresh()}`;
  const res = await call('POST', '/api/process-manager/processDefinitions', { token, body: applicantJourney(name, formName) });
  expect(res.status, res.text).toBe(201);
  return name;
}

async function start(definition: string) {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `df-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Anna' } },
  });
  expect(pt.status).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const url = new URL(created.json.redirectUrl);
  const c = url.searchParams.get('c')!;
  const id = created.json.processInstanceId as string;
  return { id, page: `${url.pathname}${url.search}`, step: (activityId: string) => `/journey/${id}/steps/${activityId}?c=${c}&lang=de` };
}

beforeAll(async () => {
  token = await adminToken();
});

describe('a journey with a data form named by name and version', () => {
  it('shows the uploaded form, refuses a wrong submission, confirms read-only, retakes, and keeps the typed values', async () => {
    const formName = `applicant ${fresh()}`;
    await uploadForm(token, formName);
    const j = await start(await publish(formName));

    const first = await pageUntil(`${j.page}&lang=de`, 'Angaben zur Person');
    expect(first).toMatch(/id="f-firstName" name="firstName"[^>]*value="Anna"/);
    expect(first).toContain('Eine Nummer ohne Ländervorwahl gilt als Nummer in Deutschland (+49).');
    expect(first).toContain('<img src="data:image/png;base64,');

    const wrong = await shown(await call('POST', j.step('details'), form({ ...VALID, city: 'K', email: 'anna', dateOfBirth: '2015-01-01', consent: '' })));
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain('2 bis 40 Buchstaben.');
    expect(wrong.text).toContain('Geben Sie eine E-Mail-Adresse ein, etwa name@example.com.');
    expect(wrong.text).toContain('Sie müssen mindestens 18 Jahre alt sein.');
    expect(wrong.text).toContain('Verbleibende Versuche: 1.');
    expect(wrong.text).toContain('value="anna"');

    expect((await call('POST', j.step('details'), form({ ...VALID, city: 'Bonn' }))).status).toBe(303);
    const confirm = await pageUntil(`${j.page}&lang=de`, 'Stimmt das?');
    expect(confirm).toContain('<input type="text" id="f-city" name="city" readonly aria-readonly="true" value="Bonn">');
    expect(confirm).toContain('value="Personalausweis" readonly');
    expect(confirm).toContain('name="arthr:action" value="retake"');

    // Retake: back to the details (its refusals start again), then on with another city.
    expect((await call('POST', j.step('confirm'), form({ 'arthr:action': 'retake' }))).status).toBe(303);
    const again = await pageUntil(`${j.page}&lang=de`, 'Angaben zur Person');
    expect(again).not.toContain('Verbleibende Versuche');
    expect((await call('POST', j.step('details'), form(VALID))).status).toBe(303);
    await pageUntil(`${j.page}&lang=de`, 'value="Köln"');
    // A read-only field keeps what it showed, whatever is posted.
    expect((await call('POST', j.step('confirm'), form({ city: 'Mallory' }))).status).toBe(303);

    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    const data = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${j.id}/userdata`, { token });
    expect(data.json.forms.details).toEqual({
      firstName: 'Anna',
      city: 'Köln',
      note: 'Two lines\nof note',
      email: 'anna@example.org',
      mobile: '+4915123456789',
      landline: '+4315880000',
      income: 52000.5,
      dateOfBirth: '1990-05-17',
      country: 'DE',
      document: 'idCard',
      consent: true,
    });
    expect(data.json.forms.confirmed).toEqual({ firstName: 'Anna', city: 'Köln', document: 'idCard' });
  });

  it('raises Max Attempts Exceeded on the last refused submission, which the definition routes to FAIL', async () => {
    const formName = `applicant ${fresh()}`;
    await uploadForm(token, formName, undefined, 'DEPLOYED_ACTIVE');
    const j = await start(await publish(formName));
    await pageUntil(j.page, 'Applicant details');
    expect((await call('POST', j.step('details'), form({ ...VALID, email: '' }))).status).toBe(303);
    // A Retake the page does not offer is a plain submission, refused like any other.
    const last = await call('POST', j.step('details'), form({ ...VALID, email: '', 'arthr:action': 'retake' }));
    expect(last.status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
    expect((await call('POST', j.step('details'), form(VALID))).status).toBe(409);
  });

  it('fails the step when the form version it names was archived after publishing', async () => {
    const formName = `applicant ${fresh()}`;
    const uploaded = await uploadForm(token, formName);
    const definition = await publish(formName);
    expect((await call('POST', `/api/process-manager/customDataForms/${uploaded.id}/status/ARCHIVED`, { token })).status).toBe(200);
    const j = await start(definition);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_PROCESS_ERROR');
  });
});

describe("a journey with a form from the family's visual builder", () => {
  it('fills the template defaults from the journey, shows both password fields, and keeps their values apart', async () => {
    const formName = `builder ${fresh()}`;
    await uploadForm(token, formName, builderForm);
    const parser = `document-parse-${fresh()}`;
    await addDocumentParser(token, parser);
    const name = `builder-${fresh()}`;
    const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: builderJourney(name, formName, parser) });
    expect(published.status, published.text).toBe(201);
    const j = await start(name);

    const page = await pageUntil(`${j.page}&lang=de`, 'Ihr Konto');
    expect(page).toContain('<p class="para" id="f-intro">Diese Angaben haben wir aus Ihrem Ausweis gelesen.</p>');
    expect(page).toMatch(/id="f-documentNumber" name="documentNumber"[^>]*value="C01X00T47"/);
    expect(page).toMatch(/id="f-firstName" name="firstName"[^>]*value="Anna"/);
    expect(page).toContain('<label for="f-password_2">Passwort wiederholen</label><input type="text" id="f-password_2" name="password_2"');
    expect(page).toContain('<script src="/journey/assets/data-form.js" defer></script>');
    const script = await call('GET', '/journey/assets/data-form.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toContain('text/javascript');

    const values = { documentNumber: DOCUMENT_NUMBER, firstName: 'Anna', password: 'correct horse', password_2: 'correct horse!' };
    const refused = await shown(await call('POST', j.step('account'), form({ ...values, password: 'short' })));
    expect(refused.text).toContain('<a href="#f-password">Passwort: Mindestens 8 Zeichen.</a>');
    expect(refused.text).toMatch(/name="password_2"[^>]*value="correct horse!"/);
    expect((await call('POST', j.step('account'), form(values))).status).toBe(303);

    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    const data = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${j.id}/userdata`, { token });
    expect(data.json.forms.account).toEqual(values);
  });
});
