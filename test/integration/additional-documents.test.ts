/**
 * Select Additional Document Type V2, Capture Additional Document v3 and Additional Capture
 * Decider through the local runtime over HTTP (test/fixtures/bpmn/additional-documents.bpmn:
 * selection → capture → decider → gateway back to the selection or on): "finished" refused
 * before the required document, an encrypted PDF refused, photos and a PDF stored, the loop
 * ended by the end user, and the pages read back by the relying party and from S3.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { adminToken, call, finalStatus, pageUntil } from './client.js';

const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/bpmn/additional-documents.bpmn'));
const fresh = () => Math.random().toString(36).slice(2, 10);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const grey = (width: number, height: number) => Buffer.from(jpeg.encode({ width, height, data: Buffer.alloc(width * height * 4, 128) }, 80).data);

/** A PDF of `pages` pages, as a generator writes one. */
function pdf(pages: number, trailer = ''): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = ['1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj', `2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj`, ...Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj`)];
  return Buffer.from(`%PDF-1.7\n${objects.join('\n')}\nxref\ntrailer\n<< /Root 1 0 R ${trailer}>>\nstartxref\n0\n%%EOF\n`, 'latin1');
}

async function multipart(files: { bytes: Buffer; type: string }[], fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('file', new Blob([f.bytes], { type: f.type }), 'page');
  const res = new Response(form);
  return { rawBody: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}
const formPost = (fields: Record<string, string>) => ({ rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

let token: string;
let name: string;
let runtime: { s3Endpoint: string; imagesBucket: string };

beforeAll(async () => {
  token = await adminToken();
  runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8'));
  name = `additional-${fresh()}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: { name, serverType: 'CAMUNDA', resources: { bpmn: { data: BPMN.toString('base64'), type: 'BPMN' } }, status: 'DEPLOYED_ACTIVE', tenantId: 'demo' },
  });
  expect(made.status, made.text).toBe(201);
});

describe('the additional document steps, over HTTP', () => {
  it('loops through selection, capture and decider until the end user is finished, and the relying party reads the pages', async () => {
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
    expect(pt.status, pt.text).toBe(201);
    const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(made.status, made.text).toBe(201);
    const url = new URL(made.json.redirectUrl);
    const c = url.searchParams.get('c')!;
    const id = made.json.processInstanceId as string;
    const path = `${url.pathname}${url.search}&lang=en`;
    const select = `/journey/${id}/steps/Activity_selectAdditional?c=${c}&lang=en`;
    const capture = `/journey/${id}/steps/Activity_captureAdditional/face?c=${c}&lang=en`;

    let page = await pageUntil(path, 'id="add-doc-select-form"');
    expect(page).toContain('Utility bill (Required)');
    expect(page).not.toContain('value="_finished"');
    // "Finished" before the required document: refused, the page says why.
    const early = await call('POST', select, formPost({ document: '_finished' }));
    expect(early.status).toBe(303);
    expect((await call('GET', String(early.headers.location))).text).toContain('Provide the required documents first.');

    expect((await call('POST', select, formPost({ document: 'utilityBill' }))).status).toBe(303);
    page = await pageUntil(path, 'id="add-doc-form"');
    expect(page).toContain('<h1>Utility bill</h1>');
    expect(page).toContain('Pages: 1–2');
    // An encrypted PDF, then three photos for a document of at most two pages: each refused.
    const encrypted = await call('POST', capture, await multipart([{ bytes: pdf(1, '/Encrypt 5 0 R '), type: 'application/pdf' }]));
    expect((await call('GET', String(encrypted.headers.location))).text).toContain('This PDF is protected by a password.');
    const photo = grey(600, 800);
    const three = await call('POST', capture, await multipart([photo, photo, photo].map((bytes) => ({ bytes, type: 'image/jpeg' }))));
    expect((await call('GET', String(three.headers.location))).text).toContain('This document has too many pages.');
    expect((await call('POST', capture, await multipart([photo, photo].map((bytes) => ({ bytes, type: 'image/jpeg' }))))).status).toBe(303);

    // Back at the selection (the decider: requirements met, not finished), a PDF of 3 pages.
    page = await pageUntil(path, 'id="add-doc-select-form"');
    expect(page).toContain('Utility bill (Required, Provided)');
    expect(page).toContain('value="_finished"');
    expect((await call('POST', select, formPost({ document: 'birthCertificate' }))).status).toBe(303);
    await pageUntil(path, 'id="add-doc-form"');
    const certificate = pdf(3);
    expect((await call('POST', capture, await multipart([{ bytes: certificate, type: 'application/pdf' }]))).status).toBe(303);
    // Every document captured: the decider ends the loop.
    expect(await finalStatus(id, token)).toBe('COMPLETED_ENDED_SUCCESS');

    const listed = await new S3Client({ endpoint: runtime.s3Endpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }).send(
      new ListObjectsV2Command({ Bucket: runtime.imagesBucket, Prefix: `tenants/demo/instances/${id}/additional/` }),
    );
    expect((listed.Contents ?? []).map((o) => o.Key!.split('.').pop()).sort()).toEqual(['jpg', 'jpg', 'pdf']);

    const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId;
    const data = await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata`, { token });
    expect(data.status, data.text).toBe(200);
    const images = data.json.images as Record<string, unknown>[];
    expect(images.map((i) => [i.kind, i.documentId, i.page, i.format]).sort()).toEqual([
      ['ADDITIONAL_DOCUMENT', 'birthCertificate', 1, 'PDF'],
      ['ADDITIONAL_DOCUMENT', 'utilityBill', 1, 'JPEG'],
      ['ADDITIONAL_DOCUMENT', 'utilityBill', 2, 'JPEG'],
    ]);
    const asPdf = images.find((i) => i.format === 'PDF')!;
    expect(asPdf).toMatchObject({ contentType: 'application/pdf', pages: 3, sha256: sha256(certificate) });
    expect(Buffer.from(asPdf.data as string, 'base64').equals(certificate)).toBe(true);
  });
});
