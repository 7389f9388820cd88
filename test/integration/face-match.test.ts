/**
 * External Source Face Match v1 over HTTP, as a relying party and its end user meet it: the
 * relying party asks for an upload slot in the process token, uploads the reference photo with
 * the returned URL and headers, sends the end user to the journey (selfie-match), and reads the
 * match in the checks. Same person: PASS. Another person: the failed-match route back to the
 * capture, whose page says so, then "Exceed face match count" ends it. No face, two faces, not
 * an image, nothing uploaded: "Failed face template generation".
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, latestSession, multipart, pageUntil, selfieMatchInstance } from './client.js';
import { face, portrait, toJpeg, toPng } from '../support/face-images.js';
import { pngWithCorruptData, pngWithEmptyChunks, truncatedJpeg } from '../support/broken-images.js';

let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

/** The end user's camera: person B, then (for a mismatch) the same. */
const LIVE_B = toJpeg(portrait('person-b-crop-bar55-2.jpg'));
/** The reference photos: person B's other shot, and another person. */
const REFERENCE_B = toJpeg(portrait('person-b-crop-bar55.jpg'));
const REFERENCE_OTHER = face('eileen-collins.jpg');

beforeAll(async () => {
  token = await adminToken();
});

interface Journey {
  id: string;
  defnId: string;
  path: string;
  face: string;
}

/** A selfie-match instance with `reference` uploaded (or nothing), waiting at the capture. */
async function withReference(reference: Buffer | undefined): Promise<Journey> {
  const { id, defnId, redirectUrl } = await selfieMatchInstance(token, reference);
  const url = new URL(redirectUrl);
  const path = `${url.pathname}${url.search}&lang=en`;
  await pageUntil(path, 'id="face-form"');
  return { id, defnId, path, face: `/journey/${id}/steps/captureFace/face?c=${url.searchParams.get('c')}&lang=en` };
}

async function capture(j: Journey, bytes: Buffer): Promise<void> {
  const sent = await call('POST', j.face, multipart(bytes));
  expect(sent.status).toBe(303);
}

const checks = async (j: Journey) => {
  const res = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata/checks`, { token });
  expect(res.status).toBe(200);
  return res.json as { checkId: string; result: string; checkType: string; description: string; moreinfo?: string }[];
};
const matchCheck = async (j: Journey) => {
  const check = (await checks(j)).find((c) => c.checkId === 'faceMatch');
  expect(check).toBeDefined();
  return { ...check!, more: JSON.parse(check!.moreinfo!) };
};

describe('External Source Face Match v1', () => {
  it('matches the same person: PASS, with the similarity and threshold in moreinfo, and the upload in user data', async () => {
    const j = await withReference(REFERENCE_B);
    await capture(j, LIVE_B);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const check = await matchCheck(j);
    expect(check).toMatchObject({ result: 'PASS', checkType: 'FACE_MATCH' });
    expect(check.more).toMatchObject({ engine: 'embedded', externalImageKey: 'reference', liveFaceKey: 'face', threshold: 0.5, result: 'PASS' });
    expect(check.more.similarity).toBeGreaterThanOrEqual(0.5);

    const data = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata`, { token });
    const imageKeys = data.json.images.map((i: { imageKey: string }) => i.imageKey).sort();
    expect(imageKeys).toEqual(['face', 'reference']);
    const reference = data.json.images.find((i: { imageKey: string }) => i.imageKey === 'reference');
    expect(Buffer.from(reference.data, 'base64').equals(REFERENCE_B)).toBe(true);
    expect(reference).toMatchObject({ kind: 'FACE', format: 'JPEG', width: 640, height: 480, bytes: REFERENCE_B.length });
    const status = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    expect(status.json.status).toBe('COMPLETED_ENDED_SUCCESS');
  });

  it('takes the failed-match route for another person: the capture again, saying so, then Exceed face match count ends it', async () => {
    const j = await withReference(REFERENCE_OTHER);
    await capture(j, LIVE_B);
    // "Failed face to face match" leads back to the capture, whose page says why.
    await pageUntil(j.path, 'did not match the photo');
    let check = await matchCheck(j);
    expect(check).toMatchObject({ result: 'FAIL', checkType: 'FACE_MATCH' });
    expect(check.more).toMatchObject({ failedAttempts: 1, maxAttempts: 2, threshold: 0.5 });
    expect(check.more.similarity).toBeLessThan(0.5);

    await capture(j, LIVE_B);
    await pageUntil(j.path, 'did not match the photo');
    expect((await matchCheck(j)).more.failedAttempts).toBe(2);
    // The third failure exceeds Max Attempts (2): the decider's FAIL.
    await capture(j, LIVE_B);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
    check = await matchCheck(j);
    expect(check.more.failedAttempts).toBe(3);
    expect(check.description).toContain('failed attempts: 3; Max Attempts: 2');
  });

  it.each([
    ['no face', face('no-face-landscape.jpg'), 'noFace'],
    ['two faces', face('two-faces-bar55.jpg'), 'manyFaces'],
    ['not an image', Buffer.from('%PDF-1.7 not a photo at all'.padEnd(4000, ' ')), 'notAnImage'],
    ['nothing', undefined, 'notUploaded'],
    // Images the engine cannot decode: the routed failure, not COMPLETED_PROCESS_ERROR.
    ['a JPEG cut short', truncatedJpeg(), 'unreadable'],
    ['a PNG with 100,000 empty chunks', pngWithEmptyChunks(100_000), 'unreadable'],
    ['a PNG whose image data does not decode', pngWithCorruptData(), 'unreadable'],
  ] as const)('ends on "Failed face template generation" when the upload has %s', async (_label, reference, reason) => {
    const j = await withReference(reference);
    await capture(j, LIVE_B);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
    const check = await matchCheck(j);
    expect(check).toMatchObject({ result: 'FAIL', checkType: 'FACE_MATCH' });
    expect(check.more).toMatchObject({ reason });
    expect(check.more).not.toHaveProperty('similarity');
  });

  it('uses an upload of exactly 5 MiB, and refuses one byte more unread', async () => {
    const ofSize = (size: number) => Buffer.concat([REFERENCE_B, Buffer.alloc(size - REFERENCE_B.length, 0)]);
    const edge = await withReference(ofSize(5 * 1024 * 1024));
    await capture(edge, LIVE_B);
    expect(await finalStatus(edge.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await matchCheck(edge)).result).toBe('PASS');

    const over = await withReference(ofSize(5 * 1024 * 1024 + 1));
    await capture(over, LIVE_B);
    expect(await finalStatus(over.id, token)).toBe('COMPLETED_ENDED_ERROR');
    expect((await matchCheck(over)).more).toMatchObject({ reason: 'tooLarge' });
  });
});

describe('External Source Face Upload v1', () => {
  it('puts an upload URL and its headers into the output variables, and the match reads what was PUT there', async () => {
    const name = `upload-step-${fresh()}`;
    const published = await call('POST', '/api/process-manager/processDefinitions', {
      token,
      body: {
        name,
        version: 1,
        retentionDays: 1,
        startActivityId: 'makeUpload',
        activities: {
          makeUpload: { type: 'EXTERNAL_SOURCE_FACE_UPLOAD_V1', inputs: { 'Image Key': 'idPhoto', 'Image Format': 'PNG', 'Output Variable': 'uploadURL' }, next: 'captureFace' },
          captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face' }, next: 'matchFace' },
          matchFace: { type: 'EXTERNAL_SOURCE_FACE_MATCH_V1', inputs: { 'External Image Key': 'idPhoto', 'Live Face Key': 'face' }, next: 'decide' },
          decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: '_checks.faceMatch.result', equals: 'PASS' }, outcome: 'PASS' }], default: 'FAIL' },
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `fu-${fresh()}`, processDefnName: name, processDefnVersion: 1 } });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const id = created.json.processInstanceId;
    const url = new URL(created.json.redirectUrl);
    await pageUntil(`${url.pathname}${url.search}&lang=en`, 'id="face-form"');

    const vars = (await latestSession('demo', id)).vars;
    expect(vars.uploadURL_headers).toEqual({ 'Content-Type': 'image/png' });
    const segment = Buffer.from('idPhoto').toString('base64url');
    expect(new URL(vars.uploadURL).pathname).toMatch(new RegExp(`/tenants/demo/instances/${id}/uploads/${segment}/[0-9a-f-]{36}\\.png$`));
    // What a cloud function given uploadURL and uploadURL_headers does.
    const png = toPng(portrait('person-b-crop-bar55.jpg'));
    expect((await fetch(vars.uploadURL, { method: 'PUT', body: png, headers: { 'Content-Type': 'image/jpeg' } })).status).toBe(403);
    expect((await fetch(vars.uploadURL, { method: 'PUT', body: png, headers: vars.uploadURL_headers })).status).toBe(200);

    expect((await call('POST', `/journey/${id}/steps/captureFace/face?c=${url.searchParams.get('c')}&lang=en`, multipart(LIVE_B))).status).toBe(303);
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId;
    const check = await matchCheck({ id, defnId, path: '', face: '' });
    expect(check).toMatchObject({ result: 'PASS' });
    expect(check.more.externalImageKey).toBe('idPhoto');
  });
});
