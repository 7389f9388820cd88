import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import * as zip from '@zip.js/zip.js';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { MAX_FACE_IMAGE_BYTES } from '../../functions/journey/face-limits.js';
import { adminToken, call, expireItem, finalStatus, issueToken, multipart, pageUntil } from './client.js';
import { blurred, face, lit } from '../support/face-images.js';

/** A refused submission: 303 to the journey page (post, redirect, get), which shows what to fix and what was entered. */
async function shown(res: Awaited<ReturnType<typeof call>>, what?: string): Promise<Awaited<ReturnType<typeof call>>> {
  expect(res.status, what).toBe(303);
  return call('GET', String(res.headers.location));
}


const FIXTURES = resolve(import.meta.dirname, '../fixtures');
const FACE = readFileSync(join(FIXTURES, 'face-640x480.jpg'));
const LOW_RES = readFileSync(join(FIXTURES, 'face-320x240.png'));
const SMALL = readFileSync(join(FIXTURES, 'small-200x150.jpg'));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let token: string;
let runtime: { s3Endpoint: string; imagesBucket: string; dynamodbEndpoint: string; tableName: string };
let s3: S3Client;
const fresh = () => Math.random().toString(36).slice(2, 10);

beforeAll(async () => {
  token = await adminToken();
  runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8'));
  s3 = new S3Client({ endpoint: runtime.s3Endpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});

/** A JPEG whose header says `width`×`height` (the bytes after the header are the fixture's). */
function jpegSized(width: number, height: number): Buffer {
  const b = Buffer.from(FACE);
  for (let i = 2; i < b.length - 9; i++) {
    if (b[i] === 0xff && b[i + 1] === 0xc0) {
      b.writeUInt16BE(height, i + 5);
      b.writeUInt16BE(width, i + 7);
      return b;
    }
  }
  throw new Error('no SOF0 in the fixture');
}

/** The fixture padded after its end marker to exactly `size` bytes (still a JPEG by its bytes). */
const jpegOfSize = (size: number) => Buffer.concat([FACE, Buffer.alloc(size - FACE.length, 0)]);

/** An identity-check instance with its form done, waiting at the face capture. */
async function atFaceStep(): Promise<{ id: string; defnId: string; path: string; face: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `fc-${fresh()}`, processDefnName: 'identity-check', processDefnVersion: 1, parameters: { firstName: 'Ann' } },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  const url = new URL(created.json.redirectUrl);
  const path = `${url.pathname}${url.search}&lang=en`;
  const c = url.searchParams.get('c')!;
  await pageUntil(path, 'name="firstName"');
  const posted = await call('POST', `/journey/${created.json.processInstanceId}/steps/personalDetails?c=${c}&lang=en`, {
    rawBody: new URLSearchParams({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-04-01' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(posted.status).toBe(303);
  await pageUntil(path, 'id="face-form"');
  const defnId = (await call('GET', `/api/process-manager/processInstances/${created.json.processInstanceId}`, { token })).json.processDefnId;
  return { id: created.json.processInstanceId, defnId, path, face: `/journey/${created.json.processInstanceId}/steps/captureFace/face?c=${c}&lang=en` };
}

const userdata = (j: { id: string; defnId: string }, suffix = 'userdata', t = token) =>
  call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/${suffix}`, { token: t });

async function objectsOf(instanceId: string): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: runtime.imagesBucket, Prefix: `tenants/demo/instances/${instanceId}/` }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

describe('the Capture Face Image step', () => {
  it('shows a camera page with a file fallback, its own script allowed and the camera permitted', async () => {
    const j = await atFaceStep();
    const res = await call('GET', j.path);
    expect(res.text).toContain('enctype="multipart/form-data"');
    expect(res.text).toMatch(/<input type="file" id="face-file" name="image" accept="image\/jpeg,image\/png" capture="user"/);
    expect(res.text).toContain('<script src="/journey/assets/face-capture.js" defer></script>');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe/);
    expect(res.headers['permissions-policy']).toContain('camera=(self)');
    const de = await call('GET', j.path.replace('lang=en', 'lang=de'));
    expect(de.text).toContain('Ein Foto Ihres Gesichts');
  });

  it('serves its script from the service with an ETag, and nothing else under assets', async () => {
    const js = await call('GET', '/journey/assets/face-capture.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toContain('text/javascript');
    expect(js.text).toContain('getUserMedia');
    const again = await call('GET', '/journey/assets/face-capture.js', { headers: { 'if-none-match': String(js.headers.etag) } });
    expect(again.status).toBe(304);
    expect((await call('GET', '/journey/assets/other.js')).status).toBe(400);
    expect((await call('GET', '/journey/assets/..%2Froutes.ts')).status).toBeGreaterThanOrEqual(400);
  });

  it('stores the image in S3 under the tenant and instance, resumes, and the decision is PASS', async () => {
    const j = await atFaceStep();
    const sent = await call('POST', j.face, multipart(FACE, { name: 'anything.txt', type: 'application/octet-stream' }));
    expect(sent.status).toBe(303);
    expect(sent.headers.location).toBe(j.path);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');

    const keys = await objectsOf(j.id);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^tenants/demo/instances/${j.id}/faces/[A-Za-z0-9_-]+/[0-9a-f-]{36}\\.jpg$`));
    const object = await s3.send(new GetObjectCommand({ Bucket: runtime.imagesBucket, Key: keys[0] }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(FACE)).toBe(true);
    expect(object.ContentType).toBe('image/jpeg');

    const data = await userdata(j);
    expect(data.status).toBe(200);
    expect(data.json.forms.personalDetails).toEqual({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-04-01' });
    expect(data.json.images).toHaveLength(1);
    const image = data.json.images[0];
    expect(image).toMatchObject({ imageKey: 'face', kind: 'FACE', format: 'JPEG', contentType: 'image/jpeg', width: 640, height: 480, bytes: FACE.length, sha256: sha256(FACE) });
    expect(Buffer.from(image.data, 'base64').equals(FACE)).toBe(true);
    expect(image.objectKey).toBeUndefined();
    expect(data.json.steps.map((s: { activityId: string }) => s.activityId)).toEqual(['personalDetails', 'captureFace']);

    const checks = await userdata(j, 'userdata/checks');
    expect(checks.status).toBe(200);
    expect(checks.json).toEqual([
      expect.objectContaining({ checkId: 'face', activityId: 'captureFace', checkType: 'FACE_CAPTURE', result: 'PASS', displayName: 'Face image capture' }),
    ]);
    expect(checks.json[0].reports[0].description).toContain('640×480');
    expect(checks.json[0].reports.map((r: { name: string }) => r.name)).toEqual(['format', 'face', 'pose', 'eyes', 'quality', 'liveness']);
    // What the engine measured, and the thresholds it was judged by.
    const more = JSON.parse(checks.json[0].moreinfo);
    expect(more).toMatchObject({ engine: 'embedded', faceCount: 1, liveness: { result: 'PASS' } });
    expect(more.face.pixels).toBeGreaterThan(200);
    expect(more.face.eyes.open).toBeGreaterThanOrEqual(more.thresholds.minEyesOpen);
    expect(more.face.eyes.visible).toBeGreaterThanOrEqual(more.thresholds.minEyesVisible);
    for (const r of checks.json[0].reports) expect(r).not.toHaveProperty('reportType');
    expect(data.json.checks).toEqual(checks.json);

    const binary = await userdata(j, 'getdata');
    const decoded = JSON.parse(Buffer.from(binary.json.data, 'base64').toString('utf8'));
    expect(decoded.images[0].data).toBe(image.data);

    const zipped = await call('POST', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdataarchive`, {
      token,
      body: { config: { password: 'Correct-Horse-9' } },
    });
    expect(zipped.status).toBe(200);
    const entries = (await new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(zipped.raw)), { password: 'Correct-Horse-9' }).getEntries()) as zip.FileEntry[];
    expect(entries.map((e) => e.filename)).toEqual(['userdata.json', `images/face-${image.captureId}.jpg`]);
    for (const e of entries) expect(e.encrypted).toBe(true);
    const archivedImage = await entries[1]!.getData(new zip.Uint8ArrayWriter());
    expect(Buffer.from(archivedImage).equals(FACE)).toBe(true);
    const archivedJson = JSON.parse(await entries[0]!.getData(new zip.TextWriter()));
    expect(archivedJson.images[0]).toMatchObject({ file: `images/face-${image.captureId}.jpg`, sha256: sha256(FACE) });
    expect(archivedJson.images[0].objectKey).toBeUndefined();
  });

  it('refuses a photo without exactly one usable face, saying what to fix in the end user language, and the step waits', async () => {
    // The photos first: blurring one is seconds of CPU, better spent before the journey's requests
    // than between them.
    const cases: [string, Buffer, string, string][] = [
      ['a landscape', face('no-face-landscape.jpg'), 'No face could be found', 'Im Foto wurde kein Gesicht gefunden'],
      ['a cat', face('no-face-cat.png'), 'No face could be found', 'Im Foto wurde kein Gesicht gefunden'],
      ['two people', face('two-faces-bar55.jpg'), 'More than one face', 'mehr als ein Gesicht'],
      ['a dark room', lit('person-a-1.jpg', 0.35), 'too dark', 'zu dunkel'],
      ['a shaken camera', blurred('person-a-1.jpg', 12), 'blurred', 'unscharf'],
    ];
    const j = await atFaceStep();
    for (const [what, bytes, english, german] of cases) {
      const res = await shown(await call('POST', j.face, multipart(bytes, { name: 'me.jpg', type: 'image/jpeg' })), what);
      expect(res.text, what).toContain(english);
      const de = await shown(await call('POST', j.face.replace('lang=en', 'lang=de'), multipart(bytes, { name: 'me.jpg', type: 'image/jpeg' })), what);
      expect(de.text, what).toContain(german);
    }
    expect(await objectsOf(j.id)).toEqual([]);
    expect((await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.status).toBe('ACTIVE');
    // The step still waits: a usable photo completes it.
    expect((await call('POST', j.face, multipart(LOW_RES, { name: 'me.png', type: 'image/png' }))).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
  });

  it('refuses what is not a usable image, by its bytes, with the page again, and loses nothing', async () => {
    const j = await atFaceStep();
    const cases: [string, ReturnType<typeof multipart>, string][] = [
      ['no file', multipart(undefined), 'Take a photo or choose one.'],
      ['an empty file', multipart(Buffer.alloc(0)), 'Take a photo or choose one.'],
      ['another field', multipart(FACE, { field: 'photo' }), 'Take a photo or choose one.'],
      ['a GIF named .jpg', multipart(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')), 'not a JPEG or PNG'],
      ['text named .jpg', multipart(Buffer.from('<script>alert(1)</script>')), 'not a JPEG or PNG'],
      ['a truncated JPEG', multipart(FACE.subarray(0, 40)), 'could not be read'],
      ['200×150', multipart(SMALL), 'too small'],
      ['239 high', multipart(jpegSized(640, 239)), 'too small'],
      ['one byte over the limit', multipart(jpegOfSize(MAX_FACE_IMAGE_BYTES + 1)), 'larger than 3 MB'],
    ];
    for (const [what, body, message] of cases) {
      const res = await shown(await call('POST', j.face, body), what);
      expect(res.headers['content-type'], what).toContain('text/html');
      expect(res.text, what).toContain('data-refusal="FACE_IMAGE_REFUSED"');
      expect(res.text, what).toContain(message);
      expect(res.text, what).toContain('id="face-form"');
    }
    expect(await objectsOf(j.id)).toEqual([]);
    expect((await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.status).toBe('ACTIVE');
    expect((await userdata(j)).json.forms.personalDetails).toMatchObject({ firstName: 'Ann' });

    // The edges that pass: exactly the byte limit, and 240 pixels on the shorter side.
    const edge = await call('POST', j.face, multipart(jpegOfSize(MAX_FACE_IMAGE_BYTES)));
    expect(edge.status).toBe(303);
    const j2 = await atFaceStep();
    expect((await call('POST', j2.face, multipart(LOW_RES, { name: 'me.png', type: 'image/png' }))).status).toBe(303);
    expect(await finalStatus(j2.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
  });

  it('refuses a non-multipart body, a wrong link, the wrong step and a second capture, and answers the same capture sent again as the first', async () => {
    const j = await atFaceStep();
    const form = await call('POST', j.face, { rawBody: 'image=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    const wrongLink = await call('POST', j.face.replace(/c=[^&]+/, `c=${'A'.repeat(43)}`), multipart(FACE));
    expect(wrongLink.status).toBe(404);
    expect(wrongLink.text).not.toContain('face-form');
    const wrongStep = await call('POST', j.face.replace('/captureFace/', '/personalDetails/'), multipart(FACE));
    expect(wrongStep.status).toBe(409);
    const asForm = await call('POST', j.face.replace('/face?', '?'), { rawBody: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(asForm.status).toBe(409);
    expect((await call('POST', j.face, multipart(FACE))).status).toBe(303);
    // The same image again (a second tap, a browser retry) gets the same answer, and is not stored twice.
    const twice = await call('POST', j.face, multipart(FACE));
    expect(twice.status).toBe(303);
    await finalStatus(j.id, token);
    const another = await call('POST', j.face, multipart(jpegSized(320, 240)));
    expect(another.status).toBe(409);
    expect(await objectsOf(j.id)).toHaveLength(1);
  });
});

describe('user data of an instance with images', () => {
  it('is not found from another tenant, or under another definition', async () => {
    const j = await atFaceStep();
    expect((await call('POST', j.face, multipart(FACE))).status).toBe(303);
    await finalStatus(j.id, token);
    const other = await issueToken(inject('otherKey'), 'other');
    for (const suffix of ['userdata', 'userdata/checks', 'getdata']) {
      const foreign = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/${suffix}`, { token: other, tenant: 'other' });
      expect(foreign.status, suffix).toBe(404);
      const wrongDefn = await userdata({ id: j.id, defnId: '00000000-0000-4000-8000-000000000000' }, suffix);
      expect(wrongDefn.status, suffix).toBe(404);
    }
    const archive = await call('POST', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdataarchive`, {
      token: other,
      tenant: 'other',
      body: { config: { password: 'Correct-Horse-9' } },
    });
    expect(archive.status).toBe(404);
  });

  it('goes from S3 when the instance is past its retention', async () => {
    const j = await atFaceStep();
    expect((await call('POST', j.face, multipart(FACE))).status).toBe(303);
    await finalStatus(j.id, token);
    expect(await objectsOf(j.id)).toHaveLength(1);
    await expireItem(`TNT#demo#PI#${j.id}`, 'PI');
    expect((await userdata(j)).status).toBe(404);
    const deadline = Date.now() + 15_000;
    while ((await objectsOf(j.id)).length > 0) {
      if (Date.now() > deadline) throw new Error('the images were not deleted');
      await new Promise((r) => setTimeout(r, 250));
    }
  });
});
