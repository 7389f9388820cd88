import { MAX_FACE_IMAGE_BYTES } from '../journey/face-limits.js';
import { journeyUrl } from '../journey/screen-context.js';
import { PREVIEW_FIELD, renderPreview } from '../journey/screens/preview.js';
import { imageRefusal } from '../faces/model.js';
import { own } from '../shared/own.js';
import type { ActivityAccess, ActivityDeps, Screens, Session, StepBegin, StepView, Submission } from './contract.js';
import { spec } from './specs/generic-user-task.js';

/** The face capture a preview shows, read from S3 when the step starts. */
export const aws = { images: ['GetObject'] } as const satisfies ActivityAccess;

/** The screen this deployment has (the family's `screenId`), and the captures it previews (`stepId`). */
export const PREVIEW_SCREEN = 'preview';
const DOCUMENT_CAPTURE = 'document-capture';

/** Where the step records what its page shows (beside its inputs, read by the page and the submission). */
const PREVIEW_INPUT = 'Preview Image';

/** The thumbnail: at most 480 px on its longer side, and its data URL at most 64 KiB (else smaller, else none). */
const THUMBNAILS = [
  { maxSide: 480, quality: 80 },
  { maxSide: 320, quality: 70 },
  { maxSide: 200, quality: 60 },
] as const;
const MAX_DATA_URL = 64 * 1024;

export interface PreviewImage {
  kind: 'face' | 'document';
  /** The capture shown: its Face Key and id. */
  faceKey?: string;
  captureId?: string;
  capturedAt?: string;
  image?: { dataUrl: string; width: number; height: number };
}

/** Which capture the step previews: a document for `document-capture` (its Starting Component ID, the family's `stepId`), a face otherwise. */
export function previewKind(inputs: Readonly<Record<string, unknown>>): 'face' | 'document' {
  // The family's `stepId` arrives as the catalogue's screen input (spec.ts SCREEN_INPUTS).
  return (inputs['Starting component ID'] ?? inputs['Starting Component ID']) === DOCUMENT_CAPTURE ? 'document' : 'face';
}

/** The newest face capture of the journey, whatever its Face Key (`_faces.{key}.captures`, by `capturedAt`). */
export function newestFaceCapture(session: { _faces?: Record<string, unknown> }): { faceKey: string; captureId: string; format: 'JPEG' | 'PNG'; capturedAt: string } | undefined {
  let newest: { faceKey: string; captureId: string; format: 'JPEG' | 'PNG'; capturedAt: string } | undefined;
  for (const [faceKey, entry] of Object.entries(session._faces ?? {})) {
    const captures = (entry as { captures?: unknown } | null)?.captures;
    if (!Array.isArray(captures)) continue;
    for (const c of captures as { captureId?: unknown; format?: unknown; capturedAt?: unknown }[]) {
      if (typeof c?.captureId !== 'string') continue;
      const capturedAt = typeof c.capturedAt === 'string' ? c.capturedAt : '';
      if (!newest || capturedAt >= newest.capturedAt) newest = { faceKey, captureId: c.captureId, format: c.format === 'PNG' ? 'PNG' : 'JPEG', capturedAt };
    }
  }
  return newest;
}

/** The newest face capture as a small JPEG data URL, or undefined when there is none to show. */
async function facePreview(deps: Pick<ActivityDeps, 'images' | 'faceCaptureKey' | 'thumbnail'>, session: Session, tenantId: string): Promise<PreviewImage> {
  const capture = newestFaceCapture(session);
  if (!capture) return { kind: 'face' };
  const found = { kind: 'face' as const, faceKey: capture.faceKey, captureId: capture.captureId, ...(capture.capturedAt ? { capturedAt: capture.capturedAt } : {}) };
  const id = session.instance.processInstanceId;
  const key = deps.faceCaptureKey(tenantId, id, capture.faceKey, capture.captureId, capture.format === 'PNG' ? 'png' : 'jpg');
  const bytes = await deps.images.getAtMost(tenantId, id, key, MAX_FACE_IMAGE_BYTES);
  if (!(bytes instanceof Buffer)) return found;
  for (const { maxSide, quality } of THUMBNAILS) {
    let thumb: ReturnType<ActivityDeps['thumbnail']>;
    try {
      thumb = deps.thumbnail(bytes, maxSide, quality);
    } catch (err) {
      // A capture the decoder refuses was accepted by the face engine (Rekognition reads more): nothing to show.
      if (imageRefusal(err)) return found;
      throw err;
    }
    const dataUrl = `data:image/jpeg;base64,${thumb.jpeg.toString('base64')}`;
    if (dataUrl.length <= MAX_DATA_URL) return { ...found, image: { dataUrl, width: thumb.width, height: thumb.height } };
  }
  return found;
}

/**
 * Before the journey waits: what the preview shows, made once. A face: the journey's newest
 * capture, read from S3 and made a small upright JPEG, recorded with the step as a data URL
 * (the step item holds it beside the session: at most 64 KiB). A document: nothing yet (document
 * captures are not kept by this deployment), so the page says there is no photo to show.
 */
export const begin: StepBegin<typeof spec> = async ({ inputs, session, tenantId, deps }) => {
  const kind = previewKind(inputs);
  const preview: PreviewImage = kind === 'face' ? await facePreview(deps, session, tenantId) : { kind };
  return { ...inputs, [PREVIEW_INPUT]: preview };
};

function recordedPreview(view: StepView<typeof spec>): PreviewImage {
  const p = own(view.step.inputs, PREVIEW_INPUT) as PreviewImage | undefined;
  return p && (p.kind === 'face' || p.kind === 'document') ? p : { kind: previewKind(view.step.inputs) };
}

const previewPage = (view: StepView<typeof spec>) => {
  const preview = recordedPreview(view);
  return renderPreview({ lang: view.lang, action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId), kind: preview.kind, image: preview.image, chrome: view.chrome });
};

/** Its one screen, `preview` (the family's `screenId`), whichever capture it previews (the component, `stepId`). */
export const screens: Screens<typeof spec> = {
  component: PREVIEW_SCREEN,
  render: { [PREVIEW_SCREEN]: previewPage },
};

/**
 * "Use this photo" completes the step with true, "Take it again" with false: `photoConfirmed`
 * (the family's step-local variable, which its output parameter `_photoConfirmed` reads) and
 * `_photoConfirmed` itself, so a journey without the output mapping reads it too; for a document,
 * `documentConfirmed` and `_documentConfirmed`. Anything else gets the page again.
 */
export const submission: Submission<typeof spec> = {
  part: 'form',
  async submit(view, { body = {} }) {
    const action = own(body, PREVIEW_FIELD);
    if (action !== 'confirm' && action !== 'retake') return { page: previewPage(view) };
    const confirmed = action === 'confirm';
    const preview = recordedPreview(view);
    const name = preview.kind === 'face' ? 'photoConfirmed' : 'documentConfirmed';
    const values = { [name]: confirmed, ...(preview.captureId ? { captureId: preview.captureId } : {}), ...(view.inputs['Document Key'] ? { documentKey: view.inputs['Document Key'] } : {}) };
    return { complete: { result: { vars: { [name]: confirmed, [`_${name}`]: confirmed } }, values, dataKey: view.step.activityId } };
  },
};
