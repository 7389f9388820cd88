/**
 * The Regula Document Processor step through a tenant's own Regula Document Reader service, over
 * HTTP as a relying party meets it: the tenant names the service in a cloud secret called as the
 * step's Service ID, and the step reads through it (a stand-in of the service on this machine,
 * test/support/regula-stand-in.ts; the local runtime lets a document service be on loopback as it
 * lets webhooks). A service that answers 503 once is tried again; a secret that names no service
 * fails the step; a check digit Regula read wrong takes the error route, judged here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, multipart, pageUntil } from './client.js';
import { mrzLines, PEOPLE, renderSpecimen } from '../support/specimens.js';
import { startRegulaStandIn, type RegulaStandIn } from '../support/regula-stand-in.js';

let token: string;
let standIn: RegulaStandIn;
let passport: Buffer;
const fresh = () => Math.random().toString(36).slice(2, 10);
const SECRETS = '/api/process-manager/cloudSecrets';

function definition(name: string, serviceId: string) {
  return {
    name,
    version: 1,
    description: "A passport read by the tenant's Regula service.",
    startActivityId: 'selectDocument',
    status: 'DEPLOYED_ACTIVE',
    activities: {
      selectDocument: { type: 'SELECT_DOCUMENT_TYPE', inputs: { 'Doc Key': 'doc1', 'Document Types': ['PASSPORT'], 'Default Country': 'gb' }, next: 'captureFront' },
      captureFront: { type: 'CAPTURE_DOCUMENT_IMAGE', inputs: { 'Doc Key': 'doc1', 'Document Side': 'FRONT', 'Document Aspect Ratio': 1.42 }, next: 'read' },
      read: {
        type: 'DOCUMENT_PROCESSOR',
        inputs: { 'Document Key': 'doc1', 'Service ID': serviceId, Scenario: 'FullProcess', 'Image Profile': 'Uncropped' },
        errorEvents: { 'Failed Document Processing': 'readingFailed', 'Exceeded Failed Document Processor': 'readingFailed' },
        next: 'decide',
      },
      decide: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      readingFailed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
    },
  };
}

const form = (fields: Record<string, string>) => ({ rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

/** A definition reading through the service the secret value names, an instance of it, and its passport sent. */
async function journeyWith(secretValue: string) {
  const serviceId = `docprocessor-regula-71-${fresh()}`;
  expect((await call('POST', SECRETS, { token, body: { name: serviceId, value: secretValue } })).status).toBe(201);
  const name = `regula-${fresh()}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', { token, body: definition(name, serviceId) });
  expect(made.status, made.text).toBe(201);
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-pt`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const url = new URL(created.json.redirectUrl);
  const c = url.searchParams.get('c')!;
  const id = created.json.processInstanceId as string;
  const path = `${url.pathname}${url.search}&lang=en`;
  const step = (activityId: string, part = '') => `/journey/${id}/steps/${activityId}${part}?c=${c}&lang=en`;
  await pageUntil(path, 'id="doc-type-form"');
  expect((await call('POST', step('selectDocument'), form({ documentType: 'PASSPORT', country: 'GB' }))).status).toBe(303);
  await pageUntil(path, 'id="doc-form"');
  const before = standIn.requests.length;
  expect((await call('POST', step('captureFront', '/face'), multipart(passport, { field: 'image', name: 'passport.jpg' }))).status).toBe(303);
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  return { id, defnId, serviceId, before };
}

async function readingCheck(j: { id: string; defnId: string }) {
  const res = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata/checks`, { token });
  expect(res.status, res.text).toBe(200);
  const c = (res.json as { checkId: string; result: string; moreinfo?: string }[]).find((x) => x.checkId === 'doc1.reading');
  return c && { result: c.result, more: JSON.parse(c.moreinfo ?? '{}') as Record<string, unknown> };
}

beforeAll(async () => {
  token = await adminToken();
  standIn = await startRegulaStandIn();
  passport = await renderSpecimen({ person: 'a' });
}, 60_000);
afterAll(() => standIn?.close());

describe("the Regula step through the tenant's Regula service", () => {
  it('reads through the service the Service ID names, after one 503, with the Authorization header the secret gives', async () => {
    standIn.answer({ status: 503, body: 'warming up' });
    standIn.answer({
      mrzLines: mrzLines('TD3', PEOPLE.a),
      fields: { 8: 'PEDERSEN', 9: 'JESPER', 2: 'L898902C3', 17: '1 Harbour Road', 76: '1 Harbour Road' },
      documentName: 'Utopia - Passport (2020)',
    });
    const j = await journeyWith(JSON.stringify({ url: standIn.url, authorization: 'Bearer tenant-licence' }));
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const sent = standIn.requests.slice(j.before);
    // The first call met a 503; the Task's retry sent the same side again.
    expect(sent).toHaveLength(2);
    for (const r of sent) {
      expect(r.path).toBe('/api/process');
      expect(r.headers.authorization).toBe('Bearer tenant-licence');
      expect(r.body.processParam).toMatchObject({ scenario: 'FullProcess', alreadyCropped: false });
      expect(Buffer.from(r.body.List![0]!.ImageData!.image!, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    }
    const check = await readingCheck(j);
    expect(check).toMatchObject({ result: 'PASS', more: { engine: 'regula', serviceId: j.serviceId, regulaStatus: { overallStatus: 1 }, mrz: { format: 'TD3', valid: true } } });
    // The secret's value is nowhere in what the relying party reads back.
    expect(JSON.stringify(check)).not.toContain('tenant-licence');
  });

  it("takes the error route when a check digit Regula read does not match: judged here, whatever Regula's status", async () => {
    standIn.answer({ mrzLines: mrzLines('TD3', PEOPLE.a, 'birthDate'), overallStatus: 1 });
    const j = await journeyWith(standIn.url);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
    expect(await readingCheck(j)).toMatchObject({ result: 'FAIL', more: { engine: 'regula', mrz: { valid: false } } });
  });

  it('fails the step when the secret names no service, and sends nothing', async () => {
    const j = await journeyWith('{"url": "not a url"}');
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_PROCESS_ERROR');
    expect(standIn.requests.length).toBe(j.before);
  });
});
