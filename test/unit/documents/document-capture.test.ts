import { deflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { describe, expect, it, vi } from 'vitest';
import { begin as beginSelect, screens as selectScreens, submission as selectSubmission } from '../../../functions/activities/select-document-type.js';
import { inspectDocumentImage, screens as captureScreens, submission as captureSubmission } from '../../../functions/activities/capture-document-image.js';
import { latestDocumentCapture, readDocumentCapture } from '../../../functions/activities/document-capture-read.js';
import { spec as selectSpec } from '../../../functions/activities/specs/select-document-type.js';
import { spec as captureSpec } from '../../../functions/activities/specs/capture-document-image.js';
import type { ActivityDeps, Session, StepView } from '../../../functions/activities/contract.js';
import type { ActivitySpec } from '../../../functions/activities/spec.js';
import { DOCUMENT_TYPES } from '../../../functions/documents/model.js';
import { COUNTRY_CODES, countryCode, documentChoices, DOCUMENT_TYPE_NAMES, parseDocumentCountries } from '../../../functions/shared/document-countries.js';
import { MAX_DOCUMENT_IMAGE_BYTES, MIN_DOCUMENT_IMAGE_SIDE } from '../../../functions/journey/document-limits.js';
import { screenOf } from '../../../functions/journey/screen-context.js';
import { mergeSession } from '../../../functions/journey/steps.js';
import { objectKeys } from '../../../functions/store/keys.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { ValidationError } from '../../../functions/errors.js';
import { single } from '../statemachines/fixtures.js';
import type { ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import { pngChunk, jpegClaiming } from '../../support/broken-images.js';

/** A grey JPEG of `width` × `height` (jpeg-js, quality 80). */
const grey = (width: number, height: number) => Buffer.from(jpeg.encode({ width, height, data: Buffer.alloc(width * height * 4, 128) }, 80).data);

/** A grey 8-bit greyscale PNG, built by hand: cheap at any size (its rows deflate to almost nothing). */
function greyPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width, 128)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND')]);
}

/** A multipart body as the page posts it. */
async function multipart(fields: Record<string, string | Buffer>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([v], { type: 'image/jpeg' }), 'document.jpg');
  }
  const response = new Response(form);
  return { contentType: response.headers.get('content-type')!, bytes: Buffer.from(await response.arrayBuffer()) };
}

const record = { id: 'p1', tenantId: 'demo' } as ProcessInstanceRecord;
const stepOf = (activityType: string, inputs: Record<string, unknown>, state: Record<string, unknown> = {}) =>
  ({ activityId: 'doc', activityType, inputs, state, taskToken: 't', since: '' }) as unknown as NonNullable<ProcessInstanceRecord['currentStep']>;

describe('the countries configuration and the choices it gives', () => {
  it('holds the document types equal to the document model and the 249 assigned country codes', () => {
    expect([...DOCUMENT_TYPE_NAMES].sort()).toEqual([...DOCUMENT_TYPES].sort());
    expect(COUNTRY_CODES).toHaveLength(249);
    expect(countryCode('au')).toBe('AU');
    expect(countryCode(' nz ')).toBe('NZ');
    // Region codes that are no issuing country: the EU, a withdrawn code, a user-assigned one.
    for (const code of ['EU', 'YU', 'XK', 'ZZ', 'A', 'AUS', 7]) expect(countryCode(code)).toBeUndefined();
  });

  it('takes a map from country to types, in any case, and refuses everything else with a reason', () => {
    expect(parseDocumentCountries('{"au": ["drivers_license", "PASSPORT", "PASSPORT"], "NZ": ["PASSPORT"]}')).toEqual({ countries: { AU: ['DRIVERS_LICENSE', 'PASSPORT'], NZ: ['PASSPORT'] } });
    expect(parseDocumentCountries('')).toEqual({ countries: {} });
    const problem = (text: string) => (parseDocumentCountries(text) as { problem: string }).problem;
    expect(problem('{')).toMatch(/must be JSON/);
    expect(problem('["AU"]')).toMatch(/JSON object/);
    expect(problem('{"EU": ["PASSPORT"]}')).toMatch(/"EU", which is not an ISO 3166-1 alpha-2/);
    expect(problem('{"AU": ["PASSPORT"], "au": ["ID_CARD"]}')).toMatch(/lists AU twice/);
    expect(problem('{"AU": []}')).toMatch(/non-empty list/);
    expect(problem('{"AU": "PASSPORT"}')).toMatch(/non-empty list/);
    expect(problem('{"AU": ["VISA"]}')).toMatch(/"VISA", which is not one of/);
  });

  it('offers a listed country its types within Document Types, any other all of them, and drops a country left with none', () => {
    const choices = documentChoices({ documentTypes: ['PASSPORT', 'DRIVERS_LICENSE'], allowedCountries: ['au', 'NZ', 'de'], countries: '{"AU": ["DRIVERS_LICENSE", "ID_CARD"], "DE": ["ID_CARD"]}', defaultCountry: 'au' });
    expect(choices).toEqual({ types: ['PASSPORT', 'DRIVERS_LICENSE'], countries: { AU: ['DRIVERS_LICENSE'], NZ: ['PASSPORT', 'DRIVERS_LICENSE'] }, defaultCountry: 'AU' });
    // Every type and every country when not given; a default that is not offered is not selected.
    const all = documentChoices({});
    expect('countries' in all && Object.keys(all.countries)).toHaveLength(249);
    expect('types' in all && all.types).toEqual(['PASSPORT', 'ID_CARD', 'DRIVERS_LICENSE', 'OTHER']);
    expect(documentChoices({ allowedCountries: ['NZ'], defaultCountry: 'au' })).not.toHaveProperty('defaultCountry');
    expect(documentChoices({ allowedCountries: ['DE'], countries: '{"DE": ["OTHER"]}', documentTypes: ['PASSPORT'] })).toEqual({ problem: 'no country offers any of the Document Types' });
    expect(documentChoices({ defaultCountry: 'xx' })).toEqual({ problem: 'Default Country is not an ISO 3166-1 alpha-2 country code' });
  });
});

describe('publish: the document steps\' inputs are checked', () => {
  const problems = (inputs: Record<string, unknown>, type = 'SELECT_DOCUMENT_TYPE') => {
    try {
      validateDefinition(single(type, inputs));
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return ((e as ValidationError).details ?? []).map((d) => d.message);
    }
  };

  it('takes a good configuration and refuses a bad one, a bad country and a bad type, naming the input', () => {
    expect(problems({ 'Doc Key': 'doc1', 'Default Country': 'au', 'Document Types': ['PASSPORT', 'id_card'], Countries: '{"AU": ["PASSPORT"]}', 'Allowed Countries': ['au', 'nz'] })).toEqual([]);
    expect(problems({ Countries: '{"AU": ["VISA"]}' }).join()).toMatch(/input "Countries" gives AU "VISA"/);
    expect(problems({ Countries: 'not json' }).join()).toMatch(/input "Countries" must be JSON/);
    expect(problems({ 'Default Country': 'Australia' }).join()).toMatch(/input "Default Country" must be an ISO 3166-1 alpha-2/);
    expect(problems({ 'Allowed Countries': ['AU', 'EU'] }).join()).toMatch(/input "Allowed Countries" names "EU"/);
    expect(problems({ 'Document Types': ['PASSPORT', 'VISA'] }).join()).toMatch(/input "Document Types" names "VISA"/);
    // A reference is checked when the step begins, not at publish.
    expect(problems({ Countries: '${countriesConfig}' })).toEqual([]);
  });

  it("checks the capture step's side, ratio and tolerance", () => {
    expect(problems({ 'Document Side': 'back', 'Document Aspect Ratio': '1.42', 'Cropping Tolerance': '0.06' }, 'CAPTURE_DOCUMENT_IMAGE')).toEqual([]);
    expect(problems({ 'Document Side': 'SIDE' }, 'CAPTURE_DOCUMENT_IMAGE').join()).toMatch(/must be one of FRONT, BACK/);
    expect(problems({ 'Document Aspect Ratio': '3.5' }, 'CAPTURE_DOCUMENT_IMAGE').join()).toMatch(/must be at most 3/);
    expect(problems({ 'Document Aspect Ratio': '0.49' }, 'CAPTURE_DOCUMENT_IMAGE').join()).toMatch(/must be at least 0.5/);
    expect(problems({ 'Cropping Tolerance': '0.31' }, 'CAPTURE_DOCUMENT_IMAGE').join()).toMatch(/must be at most 0.3/);
    expect(problems({ 'Cropping Tolerance': 'six percent' }, 'CAPTURE_DOCUMENT_IMAGE').join()).toMatch(/must be a number/);
  });

  it("names the family's beans and inputs", () => {
    expect(selectSpec.family).toEqual({ beans: ['selectDocumentTypeV1'], endBean: 'selectDocumentTypeEndV1' });
    expect(captureSpec.family).toEqual({ beans: ['captureDocumentImageV1'], endBean: 'captureDocumentImageEndV1' });
    const names = (s: ActivitySpec) => s.inputs.flatMap((i) => (i.family?.name ? [i.family.name] : []));
    expect(names(selectSpec)).toEqual(['docKey', 'defaultCountry', 'documentTypes', 'countries', 'allowedCountries']);
    expect(names(captureSpec)).toEqual(['docKey', 'docSide', 'allowBack', 'cameraWidth', 'cameraHeight', 'docImageFormat', 'croppingTolerance', 'documentAspectRatio', 'captureOrientation', 'timeoutInSeconds', 'useNativeCapture']);
  });
});

describe('Select Document Type', () => {
  const inputs = { 'Doc Key': 'doc1', 'Default Country': 'au', 'Document Types': ['PASSPORT', 'DRIVERS_LICENSE'], Countries: '{"NZ": ["PASSPORT"]}', 'Allowed Countries': ['AU', 'NZ'] };
  const started = async (given: Record<string, unknown> = inputs) =>
    beginSelect({ activityId: 'pick', inputs: given as never, session: {} as Session, tenantId: 'demo', actor: 'journey:p1', now: new Date(), deps: {} as ActivityDeps });
  const view = async (state: Record<string, unknown> = {}) => {
    const recorded = await started();
    return { ...screenOf(record, stepOf('SELECT_DOCUMENT_TYPE', recorded, state), 'cap', 'en', 'document-type-selection'), inputs: recorded, deps: {} } as unknown as StepView<typeof selectSpec>;
  };

  it('fails at its start (InvalidInput) when a referenced configuration is bad', async () => {
    await expect(started({ ...inputs, Countries: '{"AU": ["VISA"]}' })).rejects.toMatchObject({ name: 'InvalidInput' });
    await expect(started({ ...inputs, 'Allowed Countries': ['EU'] })).rejects.toMatchObject({ name: 'InvalidInput' });
  });

  it('shows the types and the allowed countries, by name, the default selected', async () => {
    const html = await selectScreens.render['document-type-selection']!(await view());
    expect(html).toContain('<legend>Type of document</legend>');
    expect(html).toContain('id="doc-type-PASSPORT" name="documentType" value="PASSPORT"');
    expect(html).toContain('id="doc-type-DRIVERS_LICENSE"');
    expect(html).not.toContain('doc-type-ID_CARD');
    expect(html).toContain('<option value="AU" selected>Australia</option><option value="NZ">New Zealand</option>');
    expect(html).not.toContain('value="DE"');
    expect(html).toContain('<label for="doc-country">Issuing country</label>');
    // The countries that take fewer types are named up front (the page works without script).
    expect(html).toContain('Not every type is accepted from every country: New Zealand: Passport.');
    // The family's other screen is the same page.
    expect(selectScreens.render['country-selection']).toBe(selectScreens.render['document-type-selection']);
  });

  it('keeps the type and the country, upper case, in the outputs and under Doc Key', async () => {
    const outcome = await selectSubmission.submit(await view(), { body: { documentType: 'PASSPORT', country: 'nz' } }, new Date());
    expect(outcome).toEqual({
      complete: {
        result: { vars: { _documentType: 'PASSPORT', _documentCountry: 'NZ' }, _documents: { doc1: { documentType: 'PASSPORT', country: 'NZ', captures: [] } } },
        values: { docKey: 'doc1', documentType: 'PASSPORT', country: 'NZ' },
        dataKey: 'doc1',
      },
    });
    // A new choice starts the document again; another key's document stays.
    const before = { _documents: { doc1: { documentType: 'ID_CARD', country: 'AU', captures: [{ captureId: 'old' }] }, doc2: { country: 'DE' } } };
    const merged = mergeSession(before, (outcome as { complete: { result: Record<string, unknown> } }).complete.result);
    expect(merged._documents).toEqual({ doc1: { documentType: 'PASSPORT', country: 'NZ', captures: [] }, doc2: { country: 'DE' } });
  });

  it('refuses what it does not offer, saying which, with the choices kept', async () => {
    const v = await view();
    expect(await selectSubmission.submit(v, { body: { country: 'AU' } }, new Date())).toMatchObject({ refused: { errors: { choice: 'typeMissing' } } });
    expect(await selectSubmission.submit(v, { body: { documentType: 'ID_CARD', country: 'AU' } }, new Date())).toMatchObject({ refused: { errors: { choice: 'typeMissing' } } });
    expect(await selectSubmission.submit(v, { body: { documentType: 'PASSPORT', country: 'DE' } }, new Date())).toMatchObject({ refused: { errors: { choice: 'countryMissing' } } });
    expect(await selectSubmission.submit(v, { body: { documentType: 'PASSPORT' } }, new Date())).toMatchObject({ refused: { errors: { choice: 'countryMissing' } } });
    const refused = await selectSubmission.submit(v, { body: { documentType: 'DRIVERS_LICENSE', country: 'NZ' } }, new Date());
    expect(refused).toEqual({ refused: { code: 'DOCUMENT_CHOICE_REFUSED', errors: { choice: 'typeNotOffered' }, values: { documentType: 'DRIVERS_LICENSE', country: 'NZ' } } });
    const again = await view();
    const html = await selectScreens.render['document-type-selection']!({ ...again, refusal: { ...(refused as { refused: { code: string; errors: Record<string, string>; values: Record<string, string> } }).refused, at: '' } });
    expect(html).toContain('This type of document is not accepted from the country you chose.');
    expect(html).toContain('value="DRIVERS_LICENSE" required checked');
    expect(html).toContain('<option value="NZ" selected>New Zealand</option>');
    expect(html).toContain('role="alert"');
  });
});

describe('Capture Document Image: the image', () => {
  it('takes a JPEG or PNG at least 600 px on its shorter side, and not one pixel less', () => {
    expect(MIN_DOCUMENT_IMAGE_SIDE).toBe(600);
    expect(inspectDocumentImage(grey(948, 600))).toMatchObject({ format: 'JPEG', width: 948, height: 600 });
    expect(inspectDocumentImage(grey(948, 599))).toEqual({ problem: 'tooSmall' });
    expect(inspectDocumentImage(grey(599, 948))).toEqual({ problem: 'tooSmall' });
    expect(inspectDocumentImage(greyPng(600, 600))).toMatchObject({ format: 'PNG' });
    expect(inspectDocumentImage(greyPng(600, 599))).toEqual({ problem: 'tooSmall' });
  });

  it('holds the size limit at its edge: 4 MiB, and 16 MP by the header', () => {
    const image = grey(948, 600);
    const pad = (n: number) => Buffer.concat([image, Buffer.alloc(n - image.length)]);
    expect(inspectDocumentImage(pad(MAX_DOCUMENT_IMAGE_BYTES))).toMatchObject({ format: 'JPEG' });
    expect(inspectDocumentImage(pad(MAX_DOCUMENT_IMAGE_BYTES + 1))).toEqual({ problem: 'tooLarge' });
    expect(inspectDocumentImage(jpegClaiming(4000, 4001))).toEqual({ problem: 'tooLarge' });
  });

  it('takes 16 MP exactly (a 4000 × 4000 PNG that decodes whole)', () => {
    expect(inspectDocumentImage(greyPng(4000, 4000))).toMatchObject({ format: 'PNG', width: 4000, height: 4000 });
  });

  it('judges by the bytes, not the name: a PDF, a GIF, a cut JPEG are refused', () => {
    expect(inspectDocumentImage(Buffer.from('%PDF-1.7\n'))).toEqual({ problem: 'notAnImage' });
    expect(inspectDocumentImage(Buffer.from('GIF89a....'))).toEqual({ problem: 'notAnImage' });
    expect(inspectDocumentImage(grey(948, 600).subarray(0, 400))).toEqual({ problem: 'unreadable' });
    expect(inspectDocumentImage(new Uint8Array())).toEqual({ problem: 'missing' });
  });
});

describe('Capture Document Image: the step', () => {
  const put = vi.fn(async () => undefined);
  const deps = { images: { put }, documentCaptureKey: objectKeys.documentCapture };
  const view = (inputs: Record<string, unknown> = {}, state: Record<string, unknown> = {}) => {
    const all = { 'Doc Key': 'doc1', 'Document Side': 'FRONT', 'Allow Back': false, 'Camera Width': 2560, 'Camera Height': 1440, 'Image Format': 'JPEG', 'Cropping Tolerance': '0.06', 'Document Aspect Ratio': '1.58', 'Capture Orientation': 'LANDSCAPE', 'Timeout (in seconds)': 60, 'Use Native Capture': false, ...inputs };
    return { ...screenOf(record, stepOf('CAPTURE_DOCUMENT_IMAGE', all, state), 'cap', 'en', 'document-capture'), inputs: all, deps } as unknown as StepView<typeof captureSpec, 'images' | 'documentCaptureKey'>;
  };
  const now = new Date('2030-01-01T00:00:00Z');

  it("renders the camera page with the guide's shape, the file fallback and the change button, under each of the family's screens", async () => {
    const html = await captureScreens.render.capture!(view({ 'Document Side': 'BACK', 'Document Aspect Ratio': '1.42', 'Use Native Capture': true }));
    expect(html).toContain('<h1>The back of your document</h1>');
    expect(html).toContain('action="/journey/p1/steps/doc/face?c=cap&amp;lang=en"');
    expect(html).toContain('data-aspect="1.42" data-tolerance="0.06" data-orientation="LANDSCAPE"');
    expect(html).toContain('data-native="true"');
    expect(html).toContain('capture="environment"');
    expect(html).toContain(`data-max-bytes="${MAX_DOCUMENT_IMAGE_BYTES}"`);
    expect(html).toContain('name="action" value="change"');
    expect(html).toContain('/journey/assets/document-capture.js');
    expect(captureScreens.render.preview).toBe(captureScreens.render.capture);
    const front = await captureScreens.render['document-capture']!(view({ 'Allow Back': true }));
    expect(front).toContain('You will be asked for the back of the document next.');
    expect(front).not.toContain('capture="environment"');
  });

  it('stores a side under the instance, records it newest last, and lists it as a DOCUMENT image', async () => {
    put.mockClear();
    const image = grey(948, 600);
    const earlier = { captureId: 'f0', side: 'FRONT', format: 'JPEG' };
    const outcome = await captureSubmission.submit(view({ 'Document Side': 'BACK' }, { _documents: { doc1: { documentType: 'PASSPORT', captures: [earlier] } } }), { upload: await multipart({ image, source: 'camera' }) }, now);
    const complete = (outcome as unknown as { complete: { result: { _documents: { doc1: { captures: { captureId: string }[] } } }; images: { objectKey: string }[] } }).complete;
    const capture = complete.result._documents.doc1.captures[1]!;
    expect(complete.result._documents.doc1.captures[0]).toEqual(earlier);
    expect(capture).toMatchObject({ side: 'BACK', format: 'JPEG', width: 948, height: 600, bytes: image.length, source: 'camera', capturedAt: now.toISOString() });
    expect(complete.result).toMatchObject({ vars: { changeDocument: false } });
    expect(complete.images[0]).toMatchObject({ imageKey: 'doc1', kind: 'DOCUMENT', side: 'BACK', contentType: 'image/jpeg', objectKey: objectKeys.documentCapture('demo', 'p1', 'doc1', capture.captureId, 'jpg') });
    expect(put).toHaveBeenCalledWith(complete.images[0]!.objectKey, expect.any(Uint8Array), 'image/jpeg', expect.stringMatching(/^[0-9a-f]{64}$/));
  });

  it('refuses what is no usable image, stores nothing, and the page says why', async () => {
    put.mockClear();
    for (const [fields, problem] of [
      [{ source: 'file' }, 'missing'],
      [{ image: Buffer.from('%PDF-1.4') }, 'notAnImage'],
      [{ image: grey(700, 500) }, 'tooSmall'],
    ] as const) {
      const outcome = await captureSubmission.submit(view(), { upload: await multipart(fields as Record<string, string | Buffer>) }, now);
      expect(outcome).toEqual({ refused: { code: 'DOCUMENT_IMAGE_REFUSED', errors: { image: problem } } });
    }
    expect(put).not.toHaveBeenCalled();
    const html = await captureScreens.render.capture!({ ...view(), refusal: { code: 'DOCUMENT_IMAGE_REFUSED', errors: { image: 'tooSmall' }, at: '' } });
    expect(html).toContain('The photo is too small. Use a photo at least 600 pixels wide and high.');
    expect(html).toContain('aria-invalid="true"');
  });

  it('ends with changeDocument true when the end user chooses another document, keeping nothing', async () => {
    put.mockClear();
    const outcome = await captureSubmission.submit(view(), { upload: await multipart({ action: 'change', image: grey(948, 600) }) }, now);
    expect(outcome).toEqual({ complete: { result: { vars: { changeDocument: true } }, values: { docKey: 'doc1', side: 'FRONT', changeDocument: true }, dataKey: 'doc1' } });
    expect(put).not.toHaveBeenCalled();
  });
});

describe('the object key of a document capture', () => {
  it('is under the instance prefix, beside the faces, and cannot leave it', () => {
    const key = objectKeys.documentCapture('demo', 'p1', 'doc1', 'c1', 'jpg');
    expect(key.startsWith(objectKeys.instancePrefix('demo', 'p1'))).toBe(true);
    expect(key).toMatch(/\/documents\/[^/]+\/c1\.jpg$/);
    expect(() => objectKeys.documentCapture('demo', 'p1', 'doc1', '../x', 'jpg')).toThrow();
  });
});

describe('reading a document capture back (for the document service steps)', () => {
  const session = {
    instance: { tenantId: 'demo', processInstanceId: 'p1' },
    _documents: { doc1: { captures: [{ captureId: 'f1', side: 'FRONT', format: 'JPEG' }, { captureId: 'b1', side: 'BACK', format: 'PNG' }, { captureId: 'f2', side: 'FRONT', format: 'JPEG' }] } },
  } as unknown as Session;

  it('finds the newest capture of a side', () => {
    expect(latestDocumentCapture(session, 'doc1', 'FRONT')).toMatchObject({ captureId: 'f2' });
    expect(latestDocumentCapture(session, 'doc1', 'BACK')).toMatchObject({ captureId: 'b1', format: 'PNG' });
    expect(latestDocumentCapture(session, 'doc2', 'FRONT')).toBeUndefined();
    expect(latestDocumentCapture({}, 'doc1', 'FRONT')).toBeUndefined();
  });

  it('reads its bytes from its key under the instance, at most the upload limit', async () => {
    const getAtMost = vi.fn(async () => Buffer.from('bytes'));
    const read = await readDocumentCapture({ images: { getAtMost } as never, documentCaptureKey: objectKeys.documentCapture }, session, 'demo', 'doc1', 'BACK');
    expect(read).toMatchObject({ capture: { captureId: 'b1' }, bytes: Buffer.from('bytes') });
    expect(getAtMost).toHaveBeenCalledWith('demo', 'p1', objectKeys.documentCapture('demo', 'p1', 'doc1', 'b1', 'png'), MAX_DOCUMENT_IMAGE_BYTES);
    expect(await readDocumentCapture({ images: { getAtMost: vi.fn(async () => undefined) } as never, documentCaptureKey: objectKeys.documentCapture }, session, 'demo', 'doc1', 'FRONT')).toBeUndefined();
  });
});
