/**
 * Select Document Type and Capture Document Image through the local runtime over HTTP: the
 * family's BPMN (test/fixtures/bpmn/documents.bpmn) uploaded and run, the choice refused and
 * taken, "Choose another document" routed back, a side refused at its limit and stored, and the
 * side read back by the relying party (userdata, getdata) and from S3.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { adminToken, call, finalStatus, pageUntil } from './client.js';
import { MAX_DOCUMENT_IMAGE_BYTES } from '../../functions/journey/document-limits.js';

const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/bpmn/documents.bpmn'));
const fresh = () => Math.random().toString(36).slice(2, 10);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A JPEG of `width` × `height`: a light card on a dark ground. */
function card(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inside = x > width * 0.1 && x < width * 0.9 && y > height * 0.15 && y < height * 0.85;
      data.fill(inside ? 220 : 30, (y * width + x) * 4, (y * width + x) * 4 + 3);
      data[(y * width + x) * 4 + 3] = 255;
    }
  return Buffer.from(jpeg.encode({ width, height, data }, 85).data);
}

/** A multipart form post as the capture page sends it. */
async function multipart(fields: Record<string, string | Buffer>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([v], { type: 'image/jpeg' }), 'document.jpg');
  }
  const res = new Response(form);
  return { rawBody: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}

const formPost = (fields: Record<string, string>) => ({ rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

let token: string;
let name: string;
let runtime: { s3Endpoint: string; imagesBucket: string };
let s3: S3Client;

beforeAll(async () => {
  token = await adminToken();
  runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8'));
  s3 = new S3Client({ endpoint: runtime.s3Endpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  name = `documents-${fresh()}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: { name, serverType: 'CAMUNDA', resources: { bpmn: { data: BPMN.toString('base64'), type: 'BPMN' } }, status: 'DEPLOYED_ACTIVE', tenantId: 'demo' },
  });
  expect(made.status, made.text).toBe(201);
});

async function start() {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
  expect(pt.status, pt.text).toBe(201);
  const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(made.status, made.text).toBe(201);
  const url = new URL(made.json.redirectUrl);
  const c = url.searchParams.get('c')!;
  const id = made.json.processInstanceId as string;
  return {
    id,
    path: `${url.pathname}${url.search}&lang=en`,
    select: `/journey/${id}/steps/Activity_selectDocument?c=${c}&lang=en`,
    front: `/journey/${id}/steps/Activity_captureFront/face?c=${c}&lang=en`,
  };
}

describe('the document capture steps, over HTTP', () => {
  it('chooses a document, goes back to change it, refuses a side too small, stores one and shows it to the relying party', async () => {
    const j = await start();
    const page = await pageUntil(j.path, 'id="doc-type-form"');
    // The allowed countries, by name, Australia (defaultCountry au) selected; the types of Document Types.
    expect(page).toContain('<option value="AU" selected>Australia</option>');
    expect(page).toContain('<option value="GB">United Kingdom</option>');
    expect(page).toContain('<option value="NZ">New Zealand</option>');
    expect(page).not.toContain('value="OTHER"');

    // New Zealand offers no ID card (the Countries configuration): refused, and the page says so.
    const refused = await call('POST', j.select, formPost({ documentType: 'ID_CARD', country: 'nz' }));
    expect(refused.status).toBe(303);
    const again = await call('GET', String(refused.headers.location));
    expect(again.text).toContain('This type of document is not accepted from the country you chose.');
    expect(again.text).toContain('<option value="NZ" selected>New Zealand</option>');

    expect((await call('POST', j.select, formPost({ documentType: 'PASSPORT', country: 'nz' }))).status).toBe(303);
    const capture = await pageUntil(j.path, 'id="doc-form"');
    expect(capture).toContain('<h1>The front of your document</h1>');
    expect(capture).toContain('data-aspect="1.58"');
    expect(capture).toContain('<script src="/journey/assets/document-capture.js" defer></script>');
    const script = await call('GET', '/journey/assets/document-capture.js');
    expect(script.status).toBe(200);
    expect(script.text).toContain('getUserMedia');

    // "Choose another document": the journey routes back to the choice (changeDocument).
    expect((await call('POST', j.front, await multipart({ action: 'change' }))).status).toBe(303);
    await pageUntil(j.path, 'id="doc-type-form"');
    expect((await call('POST', j.select, formPost({ documentType: 'PASSPORT', country: 'GB' }))).status).toBe(303);
    await pageUntil(j.path, 'id="doc-form"');

    // 599 pixels on the shorter side: refused, nothing stored.
    const small = await call('POST', j.front, await multipart({ image: card(946, 599), source: 'file' }));
    expect(small.status).toBe(303);
    const said = await call('GET', String(small.headers.location));
    expect(said.text).toContain('data-refusal="DOCUMENT_IMAGE_REFUSED"');
    expect(said.text).toContain('The photo is too small.');

    const image = card(948, 600);
    expect((await call('POST', j.front, await multipart({ image, source: 'camera' }))).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');

    // In S3 under the instance, the bytes as sent.
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: runtime.imagesBucket, Prefix: `tenants/demo/instances/${j.id}/` }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^tenants/demo/instances/${j.id}/documents/[A-Za-z0-9_-]+/[0-9a-f-]{36}\\.jpg$`));
    const object = await s3.send(new GetObjectCommand({ Bucket: runtime.imagesBucket, Key: keys[0] }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(image)).toBe(true);

    // The relying party reads it as it reads face images: listed, inline, with its side.
    const defnId = (await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.processDefnId;
    const base = `/api/userdata-server/processDefinitions/${defnId}/processInstances/${j.id}`;
    const data = await call('GET', `${base}/userdata`, { token });
    expect(data.status, data.text).toBe(200);
    expect(data.json.images).toHaveLength(1);
    expect(data.json.images[0]).toMatchObject({ imageKey: 'doc1', kind: 'DOCUMENT', side: 'FRONT', format: 'JPEG', width: 948, height: 600, bytes: image.length, sha256: sha256(image) });
    expect(Buffer.from(data.json.images[0].data, 'base64').equals(image)).toBe(true);
    const steps = data.json.steps as { activityId: string; values?: Record<string, unknown> }[];
    expect(steps.map((s) => s.activityId)).toEqual(['Activity_selectDocument', 'Activity_captureFront']);
    const binary = await call('GET', `${base}/getdata`, { token });
    expect(binary.status, binary.text).toBe(200);
    const decoded = JSON.parse(Buffer.from(binary.json.data, 'base64').toString('utf8'));
    expect(decoded.images[0]).toMatchObject({ kind: 'DOCUMENT', side: 'FRONT', sha256: sha256(image) });
  });

  it('takes a side of exactly 4 MiB over HTTP and refuses one byte more; the relying party gets it by URL past the budget', async () => {
    const j = await start();
    await pageUntil(j.path, 'id="doc-type-form"');
    expect((await call('POST', j.select, formPost({ documentType: 'DRIVERS_LICENSE', country: 'AU' }))).status).toBe(303);
    await pageUntil(j.path, 'id="doc-form"');
    const base = card(948, 600);
    // Padded after its end marker: still a JPEG by its bytes.
    const padded = (size: number) => Buffer.concat([base, Buffer.alloc(size - base.length)]);
    const over = await call('POST', j.front, await multipart({ image: padded(MAX_DOCUMENT_IMAGE_BYTES + 1) }));
    expect(over.status).toBe(303);
    expect((await call('GET', String(over.headers.location))).text).toContain('The photo is larger than 4 MB');
    const atLimit = padded(MAX_DOCUMENT_IMAGE_BYTES);
    expect((await call('POST', j.front, await multipart({ image: atLimit }))).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const defnId = (await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.processDefnId;
    const data = await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${j.id}/userdata`, { token });
    expect(data.status, data.text).toBe(200);
    const image = data.json.images[0];
    expect(image).toMatchObject({ kind: 'DOCUMENT', side: 'FRONT', bytes: MAX_DOCUMENT_IMAGE_BYTES, sha256: sha256(atLimit) });
    // 4 MiB is 5.6 MB of base64: past the document's 5.5 MB budget, so a pre-signed URL.
    expect(image.data).toBeUndefined();
    const fetched = await fetch(image.url);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(atLimit)).toBe(true);
  });
});
