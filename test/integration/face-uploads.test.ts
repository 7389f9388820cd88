/**
 * External face uploads: a process token with processInstanceInit.externalSources.faceUploads
 * makes the creation response carry a pre-signed S3 PUT per image key, bound to that instance
 * and key, which takes the image only with the headers returned.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call } from './client.js';
import { face } from '../support/face-images.js';

let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

beforeAll(async () => {
  token = await adminToken();
});

async function tokenWithUploads(faceUploads: Record<string, { imageFormat: string }>): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: {
      name: `up-${fresh()}`,
      processDefnName: 'identity-check',
      processDefnVersion: 1,
      parameters: { firstName: 'Ann' },
      processInstanceInit: { externalSources: { faceUploads } },
    },
  });
  expect(pt.status).toBe(201);
  return pt.json.id;
}

const put = (url: string, body: Buffer, headers: Record<string, string>) => fetch(url, { method: 'PUT', body, headers });

describe('external face uploads at instance creation', () => {
  it('answers an upload per image key, which takes the image with the headers returned and nothing else', async () => {
    const pt = await tokenWithUploads({ reference: { imageFormat: 'JPEG' }, second: { imageFormat: 'PNG' } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt}`, { token });
    expect(created.status).toBe(201);
    const uploads = created.json.externalSources.faceUploads;
    expect(Object.keys(uploads).sort()).toEqual(['reference', 'second']);
    const ref = uploads.reference;
    expect(ref).toMatchObject({ imageFormat: 'JPEG', captureKey: expect.stringMatching(/^[0-9a-f-]{36}$/), uploadHeaders: { 'Content-Type': 'image/jpeg' } });
    expect(uploads.second.uploadHeaders).toEqual({ 'Content-Type': 'image/png' });
    // Bound to this instance and image key.
    const segment = (key: string) => Buffer.from(key).toString('base64url');
    expect(new URL(ref.uploadUrl).pathname).toContain(`/tenants/demo/instances/${created.json.processInstanceId}/uploads/${segment('reference')}/${ref.captureKey}.jpg`);
    expect(new URL(ref.uploadUrl).searchParams.get('X-Amz-SignedHeaders')).toContain('content-type');

    const bytes = face('person-b-crop-bar55.jpg');
    // Another Content-Type than the one signed, or the URL pointed at another key: refused.
    expect((await put(ref.uploadUrl, bytes, { 'Content-Type': 'image/png' })).status).toBe(403);
    const elsewhere = ref.uploadUrl.replace(`/uploads/${segment('reference')}/`, `/uploads/${segment('second')}/`);
    expect((await put(elsewhere, bytes, ref.uploadHeaders)).status).toBe(403);
    expect((await put(ref.uploadUrl, bytes, ref.uploadHeaders)).status).toBe(200);
  });

  it('answers the same uploads to a templated token, and none to a token without processInstanceInit', async () => {
    const pt = await tokenWithUploads({ passport: { imageFormat: 'JPEG' } });
    const templated = await call('POST', '/api/process-manager/processInstances', { token, body: { processTokenId: pt, parameters: { lastName: 'Lee' } } });
    expect(templated.status).toBe(201);
    expect(Object.keys(templated.json.externalSources.faceUploads)).toEqual(['passport']);

    const plain = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `up-${fresh()}`, processDefnName: 'identity-check', processDefnVersion: 1 },
    });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${plain.json.id}`, { token });
    expect(created.status).toBe(201);
    expect(created.json).not.toHaveProperty('externalSources');
  });
});
