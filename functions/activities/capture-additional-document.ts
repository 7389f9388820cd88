import { createHash, randomUUID } from 'node:crypto';
import { additionalSession, configOf, type AdditionalDocument, type AdditionalDocumentCapture } from '../shared/additional-documents.js';
import { MAX_DOCUMENT_IMAGE_BYTES } from '../journey/document-limits.js';
import { inspectPdf } from '../journey/pdf-check.js';
import { ADDITIONAL_ACTION_FIELD, ADDITIONAL_FILE_FIELD, CHANGE_ADDITIONAL, renderAdditionalCapture } from '../journey/screens/additional-document.js';
import { journeyUrl } from '../journey/screen-context.js';
import type { ImageRecord } from '../process-manager/model.js';
import { activityError, type Screens, type StepBegin, type StepView, type SubmissionRequest, type Submission } from './contract.js';
import { inspectDocumentImage } from './capture-document-image.js';
import { spec } from './specs/capture-additional-document.js';

const NAME = 'Capture Additional Document v3';

/** The document chosen last under Add Doc Key, as the configuration has it; undefined when none was chosen (or it is not offered). */
function chosenOf(state: Readonly<Record<string, unknown>>, addDocKey: string, documents: readonly AdditionalDocument[]): AdditionalDocument | undefined {
  const selected = additionalSession(state, addDocKey).selected;
  return documents.find((d) => d.id === selected);
}

/** The step needs a valid configuration and a document chosen before it (Select Additional Document Type V2). */
export const begin: StepBegin<typeof spec> = async ({ activityId, inputs, session }) => {
  const config = configOf(NAME, activityId, inputs['Additional Documents'], (m) => activityError(spec, 'InvalidInput', m));
  if (!chosenOf(session, inputs['Add Doc Key'], config.documents)) {
    throw activityError(spec, 'InvalidInput', `${NAME} ${activityId}: no document of the configuration was chosen under ${inputs['Add Doc Key']} (Select Additional Document Type V2 comes first).`);
  }
  return inputs;
};

function documentOf(view: StepView<typeof spec>): AdditionalDocument {
  const config = configOf(NAME, view.step.activityId, view.inputs['Additional Documents'], (m) => new Error(m));
  const chosen = chosenOf(view.step.state, view.inputs['Add Doc Key'], config.documents);
  if (!chosen) throw new Error(`${NAME} ${view.step.activityId}: no document chosen`);
  return chosen;
}

const capturePage = (view: StepView<typeof spec>) =>
  renderAdditionalCapture({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'face'),
    document: documentOf(view),
    ...(view.refusal ? { error: view.refusal.errors.file } : {}),
    chrome: view.chrome,
  });

export const screens: Screens<typeof spec> = { component: 'capture', render: { capture: capturePage } };

/** Why the files are refused: an image's problem, a PDF's, or the pages against the document's bounds. */
export type AdditionalProblem = 'missing' | 'tooLarge' | 'notAnImage' | 'unreadable' | 'tooSmall' | 'mixed' | 'tooFewPages' | 'tooManyPages' | 'truncated' | 'encrypted' | 'noPages';

const refuse = (problem: AdditionalProblem) => ({ refused: { code: 'ADDITIONAL_DOCUMENT_REFUSED', errors: { file: problem } } });

/** One file judged and ready to store. */
interface Judged {
  bytes: Uint8Array;
  format: 'JPEG' | 'PNG' | 'PDF';
  contentType: string;
  extension: 'jpg' | 'png' | 'pdf';
  width: number;
  height: number;
  pages: number;
}

const isPdf = (b: Uint8Array) => b.length >= 5 && Buffer.from(b.subarray(0, 5)).toString('latin1') === '%PDF-';

/**
 * The files of one post judged by their bytes: photos (each a document image: JPEG or PNG, at
 * least 600 px on its shorter side, one page each) or one PDF (its pages counted), together at
 * most MAX_DOCUMENT_IMAGE_BYTES, and the pages within the document's bounds.
 */
export function judgeAdditionalFiles(files: readonly Uint8Array[], document: AdditionalDocument): Judged[] | { problem: AdditionalProblem } {
  if (files.length === 0) return { problem: 'missing' };
  if (files.reduce((n, f) => n + f.length, 0) > MAX_DOCUMENT_IMAGE_BYTES) return { problem: 'tooLarge' };
  const pdfs = files.filter(isPdf).length;
  if (pdfs > 0 && files.length > 1) return { problem: 'mixed' };
  const judged: Judged[] = [];
  if (pdfs === 1) {
    const pdf = inspectPdf(files[0]!);
    if ('problem' in pdf) return { problem: pdf.problem === 'notPdf' ? 'notAnImage' : pdf.problem };
    judged.push({ bytes: files[0]!, format: 'PDF', contentType: 'application/pdf', extension: 'pdf', width: 0, height: 0, pages: pdf.pages });
  } else {
    for (const bytes of files) {
      const image = inspectDocumentImage(bytes);
      if ('problem' in image) return { problem: image.problem };
      judged.push({ bytes, format: image.format, contentType: image.contentType, extension: image.extension, width: image.width, height: image.height, pages: 1 });
    }
  }
  const pages = judged.reduce((n, j) => n + j.pages, 0);
  if (pages < document.pages.minPages) return { problem: 'tooFewPages' };
  if (pages > document.pages.maxPages) return { problem: 'tooManyPages' };
  return judged;
}

/** The image records of a document captured earlier, from what the session kept of it. */
function earlierImages(view: StepView<typeof spec, 'additionalDocumentKey'>, addDocKey: string, documentId: string, doc: AdditionalDocumentCapture): ImageRecord[] {
  if (!doc || !Array.isArray(doc.pages)) return [];
  return doc.pages.map((p) => ({
    imageKey: addDocKey,
    captureId: p.captureId,
    kind: 'ADDITIONAL_DOCUMENT',
    documentId,
    page: p.page,
    ...(p.format === 'PDF' ? { pages: doc.pageCount } : {}),
    format: p.format,
    contentType: p.format === 'PDF' ? 'application/pdf' : p.format === 'PNG' ? 'image/png' : 'image/jpeg',
    width: p.width ?? 0,
    height: p.height ?? 0,
    bytes: p.bytes,
    sha256: p.sha256,
    objectKey: view.deps.additionalDocumentKey(view.record.tenantId, view.record.id, addDocKey, documentId, p.captureId, p.format === 'PDF' ? 'pdf' : p.format === 'PNG' ? 'png' : 'jpg'),
    capturedAt: doc.capturedAt,
  }));
}

/** A multipart post's files (or why there are none), and whether the end user asked for another document. */
async function uploaded(upload: SubmissionRequest['upload']): Promise<{ files: Uint8Array[] | AdditionalProblem; change: boolean }> {
  if (!upload || upload.bytes.length === 0) return { files: 'missing', change: false };
  if (upload.bytes.length > MAX_DOCUMENT_IMAGE_BYTES + 64 * 1024) return { files: 'tooLarge', change: false };
  let form: FormData;
  try {
    form = await new Response(upload.bytes, { headers: { 'content-type': upload.contentType } }).formData();
  } catch {
    return { files: 'missing', change: false };
  }
  const change = form.get(ADDITIONAL_ACTION_FIELD) === CHANGE_ADDITIONAL;
  const files: Uint8Array[] = [];
  for (const f of form.getAll(ADDITIONAL_FILE_FIELD)) {
    if (typeof f !== 'string' && f.size > 0) files.push(new Uint8Array(await f.arrayBuffer()));
  }
  return { files, change };
}

/**
 * The pages of the chosen document: judged, stored in S3 under the instance
 * (`.../additional/{Add Doc Key}/{document id}/{captureId}.{ext}`), recorded under
 * `_additionalDocuments.{Add Doc Key}.documents.{id}` (a new capture of a document replaces the
 * earlier one) and listed with the instance's user data (kind ADDITIONAL_DOCUMENT). Refused files
 * get the page again, saying why. "Choose another document" ends the step with changeDocument
 * true and keeps nothing.
 */
export const submission: Submission<typeof spec, 'images' | 'additionalDocumentKey'> = {
  part: 'face',
  async submit(view, { upload }, now) {
    const addDocKey = view.inputs['Add Doc Key'];
    const document = documentOf(view);
    const posted = await uploaded(upload);
    if (posted.change) {
      return { complete: { result: { vars: { changeDocument: true } }, values: { addDocKey, documentId: document.id, changeDocument: true }, dataKey: addDocKey } };
    }
    if (typeof posted.files === 'string') return refuse(posted.files);
    const judged = judgeAdditionalFiles(posted.files, document);
    if ('problem' in judged) return refuse(judged.problem);

    const { record } = view;
    const capturedAt = now.toISOString();
    const images: ImageRecord[] = judged.map((file, i) => {
      const captureId = randomUUID();
      return {
        imageKey: addDocKey,
        captureId,
        kind: 'ADDITIONAL_DOCUMENT',
        documentId: document.id,
        page: i + 1,
        ...(file.format === 'PDF' ? { pages: file.pages } : {}),
        format: file.format,
        contentType: file.contentType,
        width: file.width,
        height: file.height,
        bytes: file.bytes.length,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        objectKey: view.deps.additionalDocumentKey(record.tenantId, record.id, addDocKey, document.id, captureId, file.extension),
        capturedAt,
      };
    });
    // The bytes first: user data never names a file that is not there.
    for (const [i, image] of images.entries()) await view.deps.images.put(image.objectKey, judged[i]!.bytes, image.contentType, image.sha256);
    const capture: AdditionalDocumentCapture = {
      captureId: images[0]!.captureId,
      format: judged[0]!.format,
      pageCount: judged.reduce((n, j) => n + j.pages, 0),
      pages: images.map((image) => ({
        captureId: image.captureId,
        page: image.page!,
        format: image.format,
        bytes: image.bytes,
        sha256: image.sha256,
        ...(image.format === 'PDF' ? {} : { width: image.width, height: image.height }),
      })),
      capturedAt,
    };
    // User data keeps one record per step, and this step runs once per document: its record lists
    // the pages of every document captured so far (from the session), this one's new ones last.
    const earlier = Object.entries(additionalSession(view.step.state, addDocKey).documents ?? {}).filter(([id]) => id !== document.id);
    const kept = earlier.flatMap(([documentId, doc]) => earlierImages(view, addDocKey, documentId, doc));
    return {
      complete: {
        result: {
          _additionalDocuments: { [addDocKey]: { documents: { [document.id]: capture } } },
          vars: { changeDocument: false },
        },
        values: { addDocKey, documentId: document.id, captureId: capture.captureId, format: capture.format, pageCount: capture.pageCount, changeDocument: false },
        dataKey: addDocKey,
        images: [...kept, ...images],
      },
    };
  },
};
