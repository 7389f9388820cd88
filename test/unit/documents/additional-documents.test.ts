import jpeg from 'jpeg-js';
import { describe, expect, it, vi } from 'vitest';
import { begin as beginSelect, screens as selectScreens, submission as selectSubmission } from '../../../functions/activities/select-additional-document-type.js';
import { judgeAdditionalFiles, screens as captureScreens, submission as captureSubmission } from '../../../functions/activities/capture-additional-document.js';
import { run as decide } from '../../../functions/activities/additional-capture-decider.js';
import type { ServiceContext, Session, StepView } from '../../../functions/activities/contract.js';
import type { spec as selectSpec } from '../../../functions/activities/specs/select-additional-document-type.js';
import type { spec as captureSpec } from '../../../functions/activities/specs/capture-additional-document.js';
import type { spec as deciderSpec } from '../../../functions/activities/specs/additional-capture-decider.js';
import { parseAdditionalDocuments, type AdditionalDocument } from '../../../functions/shared/additional-documents.js';
import { inspectPdf } from '../../../functions/journey/pdf-check.js';
import { MAX_DOCUMENT_IMAGE_BYTES } from '../../../functions/journey/document-limits.js';
import { screenOf } from '../../../functions/journey/screen-context.js';
import { mergeSession } from '../../../functions/journey/steps.js';
import { objectKeys } from '../../../functions/store/keys.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { ValidationError } from '../../../functions/errors.js';
import { single } from '../statemachines/fixtures.js';
import type { ProcessInstanceRecord } from '../../../functions/process-manager/model.js';

/** The family's shape: titles by language, maxPages -1 for "no maximum". */
const CONFIG = {
  additionalDocuments: {
    utilityBill: { id: 'utilityBill', required: true, title: { values: { en: 'Utility bill', de: 'Rechnung' } }, subtitle: 'Less than 3 months old', instructions: [{ values: { en: 'Every corner in view' } }], pages: { bounded: true, minPages: 1, maxPages: 2 } },
    birthCertificate: { id: 'birthCertificate', required: false, title: 'Birth certificate', pages: { bounded: true, minPages: 1, maxPages: -1 } },
    payslip: { id: 'payslip', required: false, title: 'Payslip' },
  },
  requirements: { minAdditionalDocuments: 2 },
};
const CONFIG_TEXT = JSON.stringify(CONFIG);
const withDoc = (id: string, doc: Record<string, unknown>, min = 0) => JSON.stringify({ additionalDocuments: { [id]: { id, title: 'T', ...doc } }, requirements: { minAdditionalDocuments: min } });
const problemOf = (text: string) => {
  const parsed = parseAdditionalDocuments(text);
  return 'problem' in parsed ? parsed.problem : undefined;
};

/** A PDF of `pages` pages, written as a generator writes one (a page tree, its pages, an xref, a trailer). */
function pdf(pages: number, extra: { trailer?: string; eof?: boolean; pad?: number } = {}): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj',
    `2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj`,
    ...Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj`),
  ];
  const body = `%PDF-1.7\n%\xe2\xe3\xcf\xd3\n${objects.join('\n')}\n${extra.pad ? `% ${'x'.repeat(extra.pad)}\n` : ''}xref\n0 ${pages + 3}\ntrailer\n<< /Size ${pages + 3} /Root 1 0 R ${extra.trailer ?? ''}>>\nstartxref\n0\n`;
  return Buffer.from(extra.eof === false ? body : `${body}%%EOF\n`, 'latin1');
}
const grey = (width: number, height: number) => Buffer.from(jpeg.encode({ width, height, data: Buffer.alloc(width * height * 4, 128) }, 80).data);

describe('the additional documents configuration', () => {
  it("takes the family's shape: language maps, plain texts, maxPages -1 as 20, pages not bounded as 1 to 20", () => {
    const parsed = parseAdditionalDocuments(CONFIG_TEXT);
    expect(parsed).toMatchObject({
      minAdditionalDocuments: 2,
      documents: [
        { id: 'utilityBill', required: true, pages: { bounded: true, minPages: 1, maxPages: 2 } },
        { id: 'birthCertificate', required: false, pages: { bounded: true, minPages: 1, maxPages: 20 } },
        { id: 'payslip', required: false, pages: { bounded: false, minPages: 1, maxPages: 20 } },
      ],
    });
  });

  it('refuses pages out of 1..20 and minPages over maxPages, at their edges', () => {
    expect(problemOf(withDoc('a', { pages: { bounded: true, minPages: 1, maxPages: 20 } }))).toBeUndefined();
    expect(problemOf(withDoc('a', { pages: { bounded: true, minPages: 20, maxPages: 20 } }))).toBeUndefined();
    expect(problemOf(withDoc('a', { pages: { bounded: true, minPages: 0, maxPages: 2 } }))).toBe('document "a": pages.minPages must be a whole number from 1 to 20');
    expect(problemOf(withDoc('a', { pages: { bounded: true, minPages: 1, maxPages: 21 } }))).toBe('document "a": pages.maxPages must be a whole number from 1 to 20 (or -1: no maximum)');
    expect(problemOf(withDoc('a', { pages: { bounded: true, minPages: 1.5, maxPages: 2 } }))).toMatch(/minPages must be a whole number/);
    expect(problemOf(withDoc('a', { pages: { bounded: true, minPages: 3, maxPages: 2 } }))).toBe('document "a": pages.minPages (3) is more than pages.maxPages (2)');
    expect(problemOf(withDoc('a', { pages: { bounded: true, minPages: 2, maxPages: 2 } }))).toBeUndefined();
  });

  it('refuses an id not matching its key, ids alike but for case, a bad title, and minAdditionalDocuments over the documents offered', () => {
    expect(problemOf(JSON.stringify({ additionalDocuments: { a: { id: 'b', title: 'T' } } }))).toBe('document "a" has the id "b": an id must match its key');
    expect(problemOf(JSON.stringify({ additionalDocuments: { bill: { title: 'T' }, Bill: { title: 'U' } } }))).toBe('names the document "Bill" twice (ids are compared without case)');
    expect(problemOf(JSON.stringify({ additionalDocuments: { 'a b': { title: 'T' } } }))).toMatch(/an id is 1 to 64 letters/);
    expect(problemOf(withDoc('a', { title: { values: {} } }))).toBe('document "a": title must be a text or {"values": {"en": "..."}}');
    expect(problemOf(withDoc('a', {}, 1))).toBeUndefined();
    expect(problemOf(withDoc('a', {}, 2))).toBe('requirements.minAdditionalDocuments (2) is more than the 1 document offered');
    expect(problemOf(withDoc('a', {}, -1))).toBe('requirements.minAdditionalDocuments must be a whole number, 0 or more');
    expect(problemOf('{"additionalDocuments": {}}')).toBe('offers no document: "additionalDocuments" is empty');
    expect(problemOf('not json')).toMatch(/^must be JSON/);
  });

  it('is checked at publish on each of the three steps, naming the input', () => {
    const problems = (type: string, inputs: Record<string, unknown>) => {
      try {
        validateDefinition(single(type, inputs));
        return [];
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
        return ((e as ValidationError).details ?? []).map((d) => d.message);
      }
    };
    for (const type of ['SELECT_ADDITIONAL_DOCUMENT_TYPE_V2', 'CAPTURE_ADDITIONAL_DOCUMENT_V3', 'ADDITIONAL_CAPTURE_DECIDER']) {
      expect(problems(type, { 'Additional Documents': CONFIG_TEXT })).toEqual([]);
      const refused = problems(type, { 'Additional Documents': withDoc('a', { pages: { bounded: true, minPages: 3, maxPages: 2 } }) });
      expect(refused.join('\n')).toContain('pages.minPages (3) is more than pages.maxPages (2)');
      expect(refused.join('\n')).toContain('Additional Documents');
    }
  });
});

describe('a PDF judged by its bytes', () => {
  it('counts the pages of a good PDF (its /Pages node not counted)', () => {
    expect(inspectPdf(pdf(1))).toEqual({ pages: 1 });
    expect(inspectPdf(pdf(3))).toEqual({ pages: 3 });
  });
  it('refuses one without %%EOF in its last 1 KiB, an encrypted one, one with no page, and bytes that are no PDF', () => {
    expect(inspectPdf(pdf(1, { eof: false }))).toEqual({ problem: 'truncated' });
    // %%EOF followed by 1024 bytes more: outside the window.
    expect(inspectPdf(Buffer.concat([pdf(1), Buffer.alloc(1024, 0x20)]))).toEqual({ problem: 'truncated' });
    expect(inspectPdf(Buffer.concat([pdf(1), Buffer.alloc(1000, 0x20)]))).toEqual({ pages: 1 });
    expect(inspectPdf(pdf(2, { trailer: '/Encrypt 9 0 R ' }))).toEqual({ problem: 'encrypted' });
    expect(inspectPdf(pdf(0))).toEqual({ problem: 'noPages' });
    expect(inspectPdf(Buffer.from('%PDX-1.7\n%%EOF\n'))).toEqual({ problem: 'notPdf' });
    expect(inspectPdf(grey(10, 10))).toEqual({ problem: 'notPdf' });
    expect(inspectPdf(Buffer.from(pdf(1).toString('latin1').replace('/Type /Catalog', '/Type /ObjStm'), 'latin1'))).toEqual({ problem: 'unreadable' });
  });
  it('refuses one over 4 MiB and takes one of exactly 4 MiB', () => {
    const base = pdf(1);
    const sized = (n: number) => pdf(1, { pad: n - base.length - 3 });
    expect(sized(MAX_DOCUMENT_IMAGE_BYTES).length).toBe(MAX_DOCUMENT_IMAGE_BYTES);
    expect(inspectPdf(sized(MAX_DOCUMENT_IMAGE_BYTES))).toEqual({ pages: 1 });
    expect(inspectPdf(sized(MAX_DOCUMENT_IMAGE_BYTES + 1))).toEqual({ problem: 'tooLarge' });
  });
});

describe('the pages of a document against its bounds', () => {
  const doc = (min: number, max: number): AdditionalDocument => ({ id: 'd', required: false, title: 'D', instructions: [], pages: { bounded: true, minPages: min, maxPages: max } });
  it('takes photos or one PDF within the bounds and refuses too many, too few, both kinds, and a small photo', () => {
    const page = grey(600, 800);
    expect(judgeAdditionalFiles([page, page], doc(1, 2))).toHaveLength(2);
    expect(judgeAdditionalFiles([page, page, page], doc(1, 2))).toEqual({ problem: 'tooManyPages' });
    expect(judgeAdditionalFiles([page], doc(2, 3))).toEqual({ problem: 'tooFewPages' });
    expect(judgeAdditionalFiles([pdf(3)], doc(1, 3))).toMatchObject([{ format: 'PDF', contentType: 'application/pdf', pages: 3 }]);
    expect(judgeAdditionalFiles([pdf(4)], doc(1, 3))).toEqual({ problem: 'tooManyPages' });
    expect(judgeAdditionalFiles([pdf(1), page], doc(1, 3))).toEqual({ problem: 'mixed' });
    expect(judgeAdditionalFiles([pdf(1, { trailer: '/Encrypt 9 0 R ' })], doc(1, 3))).toEqual({ problem: 'encrypted' });
    expect(judgeAdditionalFiles([grey(599, 800)], doc(1, 3))).toEqual({ problem: 'tooSmall' });
    expect(judgeAdditionalFiles([Buffer.from('hello')], doc(1, 3))).toEqual({ problem: 'notAnImage' });
    expect(judgeAdditionalFiles([], doc(1, 3))).toEqual({ problem: 'missing' });
  });
});

const record = { id: 'p1', tenantId: 'demo' } as ProcessInstanceRecord;
const stepOf = (activityType: string, inputs: Record<string, unknown>, state: Record<string, unknown> = {}) =>
  ({ activityId: 'add', activityType, inputs, state, taskToken: 't', since: '' }) as unknown as NonNullable<ProcessInstanceRecord['currentStep']>;
const inputs = { 'Add Doc Key': 'addDoc1', 'Additional Documents': CONFIG_TEXT };
const formBody = (body: Record<string, string>) => ({ body });

async function multipart(files: Buffer[], fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('file', new Blob([f]), 'page');
  const response = new Response(form);
  return { contentType: response.headers.get('content-type')!, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('the loop: selection, capture, decider', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const selectView = (state: Record<string, unknown>) =>
    ({ ...screenOf(record, stepOf('SELECT_ADDITIONAL_DOCUMENT_TYPE_V2', inputs, state), 'cap', 'en', 'selection'), inputs, deps: {} }) as unknown as StepView<typeof selectSpec>;
  const put = vi.fn(async () => {});
  const captureView = (state: Record<string, unknown>) =>
    ({ ...screenOf(record, stepOf('CAPTURE_ADDITIONAL_DOCUMENT_V3', inputs, state), 'cap', 'en', 'capture'), inputs, deps: { images: { put }, additionalDocumentKey: objectKeys.additionalDocument } }) as unknown as StepView<typeof captureSpec, 'images' | 'additionalDocumentKey'>;
  const decided = async (session: Record<string, unknown>) => {
    const out = await decide({ activityId: 'd', inputs, session: session as Session } as unknown as ServiceContext<typeof deciderSpec>);
    return { capture: out.vars?._additionalCaptureFinished, docs: out.vars?._additionalDocsFinished };
  };
  const completed = (outcome: unknown) => (outcome as { complete: { result: Record<string, unknown> } }).complete.result;

  it('fails at its start (InvalidInput) when a referenced configuration is bad', async () => {
    await expect(beginSelect({ activityId: 'a', inputs: { ...inputs, 'Additional Documents': withDoc('a', {}, 3) } } as never)).rejects.toMatchObject({ name: 'InvalidInput' });
  });

  it('offers required documents first, refuses "finished" until the requirements are met, and the decider follows', async () => {
    let session: Record<string, unknown> = {};
    const html = await selectScreens.render.selection!(selectView(session));
    expect(html.indexOf('Utility bill (Required)')).toBeGreaterThan(-1);
    expect(html.indexOf('Utility bill')).toBeLessThan(html.indexOf('Birth certificate'));
    expect(html).not.toContain('value="_finished"');
    expect(await selectSubmission.submit(selectView(session), formBody({ document: '_finished' }), now)).toMatchObject({ refused: { errors: { choice: 'notYetFinished' } } });
    expect(await selectSubmission.submit(selectView(session), formBody({ document: 'visa' }), now)).toMatchObject({ refused: { errors: { choice: 'choiceMissing' } } });
    expect(await decided(session)).toEqual({ capture: false, docs: false });

    // Utility bill, two photos: stored under the instance, listed as ADDITIONAL_DOCUMENT pages 1 and 2.
    session = mergeSession(session, completed(await selectSubmission.submit(selectView(session), formBody({ document: 'utilityBill' }), now)));
    expect(await captureScreens.render.capture!(captureView(session))).toContain('<h1>Utility bill</h1>');
    const page = grey(600, 800);
    const captured = await captureSubmission.submit(captureView(session), { upload: await multipart([page, page]) }, now);
    const images = (captured as unknown as { complete: { images: Record<string, unknown>[] } }).complete.images;
    expect(images.map((i) => [i.kind, i.documentId, i.page, i.format])).toEqual([
      ['ADDITIONAL_DOCUMENT', 'utilityBill', 1, 'JPEG'],
      ['ADDITIONAL_DOCUMENT', 'utilityBill', 2, 'JPEG'],
    ]);
    expect(images[0]!.objectKey).toMatch(/^tenants\/demo\/instances\/p1\/additional\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/[0-9a-f-]{36}\.jpg$/);
    expect(put).toHaveBeenCalledTimes(2);
    session = mergeSession(session, completed(captured));
    // One of two: the required one is there, the least (2) is not.
    expect(await decided(session)).toEqual({ capture: false, docs: false });

    // A PDF of 3 pages as the birth certificate.
    session = mergeSession(session, completed(await selectSubmission.submit(selectView(session), formBody({ document: 'birthCertificate' }), now)));
    const asPdf = await captureSubmission.submit(captureView(session), { upload: await multipart([pdf(3)]) }, now);
    // The step's user data record lists every document's pages: the bill's two again, then the PDF.
    const listed = (asPdf as unknown as { complete: { images: Record<string, unknown>[] } }).complete.images;
    expect(listed.map((i) => [i.documentId, i.page, i.format])).toEqual([['utilityBill', 1, 'JPEG'], ['utilityBill', 2, 'JPEG'], ['birthCertificate', 1, 'PDF']]);
    expect(listed[0]).toEqual(images[0]);
    expect(listed[2]).toMatchObject({ format: 'PDF', contentType: 'application/pdf', pages: 3, width: 0, height: 0 });
    session = mergeSession(session, completed(asPdf));
    expect(await decided(session)).toEqual({ capture: false, docs: true });
    expect(await selectScreens.render.selection!(selectView(session))).toContain('value="_finished"');

    session = mergeSession(session, completed(await selectSubmission.submit(selectView(session), formBody({ document: '_finished' }), now)));
    expect(await decided(session)).toEqual({ capture: true, docs: true });
  });

  it('refuses an encrypted PDF and too many pages with the page again, and "another document" keeps nothing', async () => {
    const session = { _additionalDocuments: { addDoc1: { selected: 'utilityBill' } } };
    const encrypted = await captureSubmission.submit(captureView(session), { upload: await multipart([pdf(1, { trailer: '/Encrypt 9 0 R ' })]) }, now);
    expect(encrypted).toMatchObject({ refused: { code: 'ADDITIONAL_DOCUMENT_REFUSED', errors: { file: 'encrypted' } } });
    const refusedView = { ...captureView(session), refusal: { code: 'ADDITIONAL_DOCUMENT_REFUSED', errors: { file: 'tooManyPages' }, at: now.toISOString() } } as unknown as ReturnType<typeof captureView>;
    expect(await captureScreens.render.capture!(refusedView)).toContain('This document has too many pages.');
    const change = await captureSubmission.submit(captureView(session), { upload: await multipart([], { action: 'change' }) }, now);
    expect(completed(change)).toEqual({ vars: { changeDocument: true } });
  });

  it('says every document captured is finished even without the end user saying so', async () => {
    const documents = Object.fromEntries(['utilityBill', 'birthCertificate', 'payslip'].map((id) => [id, { captureId: id }]));
    expect(await decided({ _additionalDocuments: { addDoc1: { documents } } })).toEqual({ capture: true, docs: true });
  });
});
