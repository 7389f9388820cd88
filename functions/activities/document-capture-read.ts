/**
 * The document side a later step works on (quality, reading, face match): the newest capture of
 * a side under `_documents.{Doc Key}.captures` (Capture Document Image), read back from S3 under
 * the instance's prefix.
 */
import type { DocSide, DocumentCapture } from '../documents/model.js';
import { MAX_DOCUMENT_IMAGE_BYTES } from '../journey/document-limits.js';
import type { ActivityDeps, Session } from './contract.js';

/** The newest capture of `side` for this Doc Key, from the session; undefined when there is none. */
export function latestDocumentCapture(session: Readonly<Record<string, unknown>>, docKey: string, side: DocSide): DocumentCapture | undefined {
  const documents = session._documents;
  if (!documents || typeof documents !== 'object' || !Object.hasOwn(documents, docKey)) return undefined;
  const captures = (documents as Record<string, { captures?: unknown } | null>)[docKey]?.captures;
  if (!Array.isArray(captures)) return undefined;
  for (let i = captures.length - 1; i >= 0; i--) {
    const c = captures[i] as Partial<DocumentCapture> | null;
    if (c && c.side === side && typeof c.captureId === 'string') return { ...(c as DocumentCapture), format: c.format === 'PNG' ? 'PNG' : 'JPEG' };
  }
  return undefined;
}

/** The newest capture of a side and its bytes, or undefined when the step has none (or its image is gone). */
export async function readDocumentCapture(
  { documentCaptureKey, images }: Pick<ActivityDeps, 'documentCaptureKey' | 'images'>,
  session: Session,
  tenantId: string,
  docKey: string,
  side: DocSide,
): Promise<{ capture: DocumentCapture; bytes: Buffer } | undefined> {
  const capture = latestDocumentCapture(session, docKey, side);
  if (!capture) return undefined;
  const id = session.instance.processInstanceId;
  const key = documentCaptureKey(tenantId, id, docKey, capture.captureId, capture.format === 'PNG' ? 'png' : 'jpg');
  const bytes = await images.getAtMost(tenantId, id, key, MAX_DOCUMENT_IMAGE_BYTES);
  return bytes instanceof Buffer ? { capture, bytes } : undefined;
}
