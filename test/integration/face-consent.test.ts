import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, pageUntil } from './client.js';

/**
 * Capture Face Image's Require Consent and Require Live Camera, judged on the server: a photo
 * sent without the consent box, or a chosen file where the step takes the camera's only, is
 * refused with its stable code (303 to the page, which shows it), and nothing is kept; the
 * consent given is kept with the capture's user data.
 */
const FACE = readFileSync(resolve(import.meta.dirname, '../fixtures/face-640x480.jpg'));
const fresh = () => Math.random().toString(36).slice(2, 8);
let token: string;

beforeAll(async () => {
  token = await adminToken();
});

/** A multipart post of the face image and the fields beside it. */
function post(fields: Record<string, string>, image: Buffer = FACE) {
  const boundary = `----arthr${fresh()}`;
  const parts: Buffer[] = Object.entries(fields).map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="face.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`), image, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { rawBody: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function atConsentStep(inputs: Record<string, unknown>) {
  const name = `consent-${fresh()}`;
  const definition = {
    name,
    version: 1,
    retentionDays: 12,
    presentation: { name: 'Nordbank', privacyUrl: 'https://nordbank.example/privacy' },
    startActivityId: 'captureFace',
    activities: { captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face', ...inputs } } },
  };
  expect((await call('POST', '/api/process-manager/processDefinitions', { token, body: definition })).status).toBe(201);
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name, processDefnName: name, processDefnVersion: 1 } });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const url = new URL(created.json.redirectUrl);
  const c = url.searchParams.get('c')!;
  const id = created.json.processInstanceId as string;
  const page = await pageUntil(`${url.pathname}${url.search}&lang=en`, 'id="face-form"');
  return { id, page, face: `/journey/${id}/steps/captureFace/face?c=${c}&lang=en` };
}

const refusal = async (res: Awaited<ReturnType<typeof call>>) => {
  expect(res.status).toBe(303);
  const shown = await call('GET', String(res.headers.location));
  return /data-refusal="([A-Z_]+)"/.exec(shown.text)?.[1];
};

describe('Capture Face Image: consent and the live camera', () => {
  it('names the bank, the retention and its notice before the capture, refuses a photo without consent, and keeps the consent given', async () => {
    const j = await atConsentStep({ 'Require Consent': true });
    expect(j.page).toContain('Nordbank receives the photo of your face');
    expect(j.page).toContain('It is kept for 12 days, then deleted.');
    expect(j.page).toContain('href="https://nordbank.example/privacy"');
    expect(await refusal(await call('POST', j.face, post({})))).toBe('CONSENT_REQUIRED');
    expect(await refusal(await call('POST', j.face, post({ consent: 'no' })))).toBe('CONSENT_REQUIRED');
    expect((await call('POST', j.face, post({ consent: 'yes' }))).status).toBe(303);
    await finalStatus(j.id, token);
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    const data = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${j.id}/userdata`, { token });
    const kept = JSON.stringify(data.json);
    expect(kept).toContain('"noticeVersion":"face-capture-notice/1"');
    expect(kept).toContain('"consentRequired":true');
    expect(kept).toMatch(/"consentGivenAt":"20\d\d-/);
  });

  it('under Require Live Camera offers no file and refuses one with FACE_UPLOAD_NOT_ALLOWED; the camera\'s photo is taken', async () => {
    const j = await atConsentStep({ 'Require Live Camera': true });
    expect(j.page).not.toContain('<label for="face-file">');
    expect(j.page).not.toContain('id="face-consent"');
    expect(await refusal(await call('POST', j.face, post({})))).toBe('FACE_UPLOAD_NOT_ALLOWED');
    expect(await refusal(await call('POST', j.face, post({ source: 'file' })))).toBe('FACE_UPLOAD_NOT_ALLOWED');
    expect((await call('POST', j.face, post({ source: 'camera' }))).status).toBe(303);
    expect(await finalStatus(j.id, token)).toMatch(/^COMPLETED_/);
  });
});
