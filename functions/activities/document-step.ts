/**
 * What the document service steps share: the captures they judge (the newest of each side, read
 * back from S3 under the instance), their pixels and the document found in them, the count of
 * failed attempts, and the check each records: in the session under
 * `_checks.documents.{Document Key}.{check}` (what forms, gateways and functions read) and in
 * user data as a CheckRecord (what `userdata/checks` answers).
 */
import type { CheckRecord, CheckResult } from '../process-manager/model.js';
import type { Box, DocSide, DocumentCapture, DocumentSession, DocumentType, Rgba } from '../documents/model.js';
import { decodeImage } from '../documents/pixels.js';
import { documentRegion, expectedShape } from '../documents/checks.js';
import { own } from '../shared/own.js';
import { readDocumentCapture } from './document-capture-read.js';
import { keepStepData } from './service-user-data.js';
import type { ServiceContext, Session } from './contract.js';
import type { ActivitySpec } from './spec.js';

type Ctx = ServiceContext<ActivitySpec>;

export interface DocumentImage {
  side: DocSide;
  capture: DocumentCapture;
  bytes: Buffer;
  /** The whole photo. */
  photo: Rgba;
  /** The document found in it (cut out), or the whole photo when none was found or it was not asked for. */
  document: Rgba;
  /** Where the document is in the photo, when it was found. */
  box?: Box;
}

/** What the capture steps keep of a Doc Key: `_documents.{Document Key}` (its type and country, its captures). */
export function documentSession(session: Session, docKey: string): DocumentSession {
  const documents = session._documents as Record<string, DocumentSession> | undefined;
  return own(documents, docKey) ?? {};
}

/**
 * The newest capture of each side of the document (front first), read and decoded, with the
 * document found in it when `profile` is Cropped. An image gone from S3 (its instance's prefix
 * was deleted) is left out.
 */
export async function documentImages(ctx: Ctx, docKey: string, profile: 'Cropped' | 'Uncropped'): Promise<DocumentImage[]> {
  const out: DocumentImage[] = [];
  const type = documentSession(ctx.session, docKey).documentType as DocumentType | undefined;
  for (const side of ['FRONT', 'BACK'] as const) {
    const read = await readDocumentCapture(ctx.deps, ctx.session, ctx.tenantId, docKey, side);
    if (!read) continue;
    const photo = decodeImage(read.bytes);
    const region = profile === 'Cropped' ? documentRegion(photo, expectedShape(type)) : undefined;
    out.push({ side, capture: read.capture, bytes: read.bytes, photo, document: region?.pixels ?? photo, ...(region?.box ? { box: region.box } : {}) });
  }
  return out;
}

/** The session with `_checks.documents.{docKey}.{check}` set. */
export function withDocumentCheck(session: Session, docKey: string, check: string, value: Record<string, unknown>): Session {
  const checks = (session._checks ?? {}) as Record<string, unknown>;
  const documents = (own(checks as Record<string, Record<string, Record<string, unknown>>>, 'documents') ?? {}) as Record<string, Record<string, unknown>>;
  const mine = own(documents, docKey) ?? {};
  return { ...session, _checks: { ...checks, documents: { ...documents, [docKey]: { ...mine, [check]: value } } } };
}

/**
 * The session with a check recorded NOT_ASSESSED: in `_checks._notAssessed` too (as
 * `{docKey}.{check}`), which the family's decider counts as a failure (statemachines/compile.ts).
 */
export function withNotAssessed(session: Session, docKey: string, check: string, value: Record<string, unknown>): Session {
  const next = withDocumentCheck(session, docKey, check, value);
  const checks = next._checks as Record<string, unknown>;
  const listed = Array.isArray(checks._notAssessed) ? (checks._notAssessed as string[]) : [];
  const name = `${docKey}.${check}`;
  return { ...next, _checks: { ...checks, _notAssessed: listed.includes(name) ? listed : [...listed, name] } };
}

/**
 * One more failed attempt, counted once per capture (the same images checked again do not
 * count twice). Without the instance's expiry nothing can be kept beside it: the count fails
 * closed, as if the attempts were used up.
 */
export async function countFailure(ctx: Ctx, attemptId: string, max: number): Promise<number> {
  if (ctx.expiresAt === undefined) return max + 1;
  return ctx.deps.instances.countFailedAttempt(ctx.tenantId, ctx.session.instance.processInstanceId, ctx.activityId, attemptId, ctx.expiresAt);
}

/**
 * What follows a failed check: its Failed error while attempts are left (the route usually leads
 * back to the capture), its Exceeded error beyond Max Attempts, or, without Exception On Max
 * Attempts Exceeded, the journey goes on with the check failed.
 */
export function afterFailure(failures: number, max: number, exception: boolean): 'failed' | 'exceeded' | 'goOn' {
  if (failures <= max) return 'failed';
  return exception ? 'exceeded' : 'goOn';
}

/** The id of an attempt: the captures judged (a new capture of either side is a new attempt). */
export const attemptOf = (images: readonly DocumentImage[]) => images.map((i) => i.capture.captureId).join('+');

export interface DocumentCheck {
  docKey: string;
  /** The key under `_checks.documents.{docKey}` and in user data (`{docKey}.{check}`). */
  check: string;
  checkType: string;
  displayName: string;
  result: CheckResult;
  description: string;
  details: Record<string, unknown>;
}

/** The check as user data keeps it (and `userdata/checks` answers it). */
export function checkRecord(ctx: Ctx, c: DocumentCheck): CheckRecord {
  return {
    checkId: `${c.docKey}.${c.check}`,
    activityId: ctx.activityId,
    checkType: c.checkType,
    result: c.result,
    displayName: c.displayName,
    description: c.description,
    moreinfo: JSON.stringify({ docKey: c.docKey, ...c.details }),
    checkedAt: ctx.now.toISOString(),
    reports: [{ name: c.check, result: c.result, description: c.description }],
  };
}

/** Keeps the check beside the instance (user data, expiring with it). */
export function keepCheck(ctx: Ctx, activityType: string, c: DocumentCheck, values: Record<string, unknown> = {}): Promise<void> {
  return keepStepData(ctx, { activityType, dataKey: `${c.docKey}.${c.check}`, values: { docKey: c.docKey, result: c.result, ...values }, check: checkRecord(ctx, c) });
}

/** The short form of a check the session keeps (what forms and gateways read). */
export const sessionCheck = (c: DocumentCheck): Record<string, unknown> => ({
  result: c.result,
  checkType: c.checkType,
  displayName: c.displayName,
  ...c.details,
});
