import { createHash, randomUUID } from 'node:crypto';
import { inspectFaceImage, type ImageProblem, type InspectedImage } from '../journey/face-capture.js';
import { MAX_DOCUMENT_IMAGE_BYTES, MIN_DOCUMENT_IMAGE_SIDE } from '../journey/document-limits.js';
import { CHANGE_DOCUMENT, DOC_ACTION_FIELD, DOC_SOURCE_FIELD, renderDocumentCapture, type DocumentCamera } from '../journey/screens/document-capture.js';
import { journeyUrl } from '../journey/screen-context.js';
import { own } from '../shared/own.js';
import type { ImageRecord } from '../process-manager/model.js';
import type { DocumentCapture } from '../documents/model.js';
import type { Screens, StepView, SubmissionRequest, Submission } from './contract.js';
import { spec } from './specs/capture-document-image.js';

/** A number input (resolved within its bounds when it runs); a reference resolved to nothing takes the family's default. */
function fraction(value: unknown, fallback: number, min: number, max: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) && n >= min && n <= max ? n : fallback;
}

function cameraOf(view: StepView<typeof spec>): DocumentCamera {
  const { inputs } = view;
  return {
    width: inputs['Camera Width'],
    height: inputs['Camera Height'],
    timeoutSeconds: inputs['Timeout (in seconds)'],
    aspectRatio: fraction(inputs['Document Aspect Ratio'], 1.58, 0.5, 3),
    tolerance: fraction(inputs['Cropping Tolerance'], 0.06, 0, 0.3),
    orientation: inputs['Capture Orientation'] === 'PORTRAIT' ? 'PORTRAIT' : 'LANDSCAPE',
  };
}

const sideOf = (view: StepView<typeof spec>): 'FRONT' | 'BACK' => (view.inputs['Document Side'] === 'BACK' ? 'BACK' : 'FRONT');

const capturePage = (view: StepView<typeof spec>) =>
  renderDocumentCapture({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'face'),
    maxBytes: MAX_DOCUMENT_IMAGE_BYTES,
    side: sideOf(view),
    backNext: sideOf(view) === 'FRONT' && view.inputs['Allow Back'] === true,
    format: view.inputs['Image Format'] === 'PNG' ? 'PNG' : 'JPEG',
    camera: cameraOf(view),
    native: view.inputs['Use Native Capture'] === true,
    ...(view.refusal ? { error: view.refusal.errors.image, code: view.refusal.code } : {}),
    chrome: view.chrome,
  });

/** The family's screens, `capture` and `preview`, are one page here (the preview is shown in it once a photo is taken). */
export const screens: Screens<typeof spec> = {
  component: 'document-capture',
  render: { 'document-capture': capturePage, capture: capturePage, preview: capturePage },
};

/** Why a document image is refused: the image checks' problems (ImageProblem), the same words as a face's. */
const refuse = (problem: ImageProblem) => ({ refused: { code: 'DOCUMENT_IMAGE_REFUSED', errors: { image: problem } } });

/** A multipart post's `image` (or why there is none), its camera mark, and whether the end user asked for another document. */
async function uploaded(upload: SubmissionRequest['upload']): Promise<{ image: Uint8Array | ImageProblem; camera: boolean; change: boolean }> {
  const none = (image: ImageProblem) => ({ image, camera: false, change: false });
  if (!upload || upload.bytes.length === 0) return none('missing');
  if (upload.bytes.length > MAX_DOCUMENT_IMAGE_BYTES + 64 * 1024) return none('tooLarge');
  let form: FormData;
  try {
    form = await new Response(upload.bytes, { headers: { 'content-type': upload.contentType } }).formData();
  } catch {
    return none('missing');
  }
  const change = form.get(DOC_ACTION_FIELD) === CHANGE_DOCUMENT;
  const camera = form.get(DOC_SOURCE_FIELD) === 'camera';
  const file = form.get('image');
  if (!file || typeof file === 'string' || file.size === 0) return { image: 'missing', camera, change };
  return { image: new Uint8Array(await file.arrayBuffer()), camera, change };
}

/**
 * A document image judged by its bytes alone: a whole JPEG or PNG (functions/shared/image-check.ts),
 * within MAX_DOCUMENT_IMAGE_BYTES and 16 MP, that decodes to every pixel, at least
 * MIN_DOCUMENT_IMAGE_SIDE on its shorter side (as displayed: a JPEG's EXIF orientation counts).
 */
export function inspectDocumentImage(bytes: Uint8Array): InspectedImage | { problem: ImageProblem } {
  const image = inspectFaceImage(bytes, MAX_DOCUMENT_IMAGE_BYTES);
  if ('problem' in image) return image;
  return Math.min(image.width, image.height) < MIN_DOCUMENT_IMAGE_SIDE ? { problem: 'tooSmall' } : image;
}

/**
 * One side of the document: checked by its bytes, stored in S3 under the tenant and instance
 * (`.../documents/{Doc Key}/{captureId}.{ext}`), recorded in the session under
 * `_documents.{Doc Key}.captures` (newest last) and listed with the instance's user data. A
 * refused image gets the page again, saying why. "Choose another document" completes the step
 * with `changeDocument` true and keeps nothing.
 */
export const submission: Submission<typeof spec, 'images' | 'documentCaptureKey'> = {
  part: 'face',
  async submit(view, { upload }, now) {
    const docKey = view.inputs['Doc Key'];
    const side = sideOf(view);
    const posted = await uploaded(upload);
    if (posted.change) {
      return { complete: { result: { vars: { changeDocument: true } }, values: { docKey, side, changeDocument: true }, dataKey: docKey } };
    }
    const bytes = posted.image;
    if (typeof bytes === 'string') return refuse(bytes);
    const image = inspectDocumentImage(bytes);
    if ('problem' in image) return refuse(image.problem);

    const { record } = view;
    const captureId = randomUUID();
    const capture: DocumentCapture = {
      captureId,
      side,
      format: image.format,
      width: image.width,
      height: image.height,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      capturedAt: now.toISOString(),
      source: posted.camera ? 'camera' : 'file',
    };
    const stored: ImageRecord = {
      imageKey: docKey,
      captureId,
      kind: 'DOCUMENT',
      side,
      format: capture.format,
      contentType: image.contentType,
      width: capture.width,
      height: capture.height,
      bytes: capture.bytes,
      sha256: capture.sha256,
      objectKey: view.deps.documentCaptureKey(record.tenantId, record.id, docKey, captureId, image.extension),
      capturedAt: capture.capturedAt,
    };
    // The bytes first: user data never names an image that is not there.
    await view.deps.images.put(stored.objectKey, bytes, stored.contentType, stored.sha256);
    const documents = (view.step.state._documents ?? {}) as Record<string, { captures?: unknown[] }>;
    const earlier = own(documents, docKey)?.captures;
    return {
      complete: {
        result: {
          _documents: { [docKey]: { captures: [...(Array.isArray(earlier) ? earlier : []), capture] } },
          vars: { changeDocument: false },
        },
        values: { docKey, side, captureId, format: capture.format, width: capture.width, height: capture.height, bytes: capture.bytes, source: capture.source, changeDocument: false },
        dataKey: docKey,
        images: [stored],
      },
    };
  },
};
