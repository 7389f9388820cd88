import { ValidationError } from '../errors.js';
import { DOWNLOAD_URL_SECONDS } from '../exports/model.js';
import { ProcessInstanceNotFoundError } from '../process-manager/instances/instances.js';
import type { CheckRecord, ImageRecord, InstanceImageStore, ProcessInstanceStore } from '../process-manager/model.js';
import type { InstanceSummaryView } from './routes.js';

/** The storage user data is read from (the process manager's instances and their images); `deps.ts` puts it together. */
export interface UserDataStorage {
  instances: Pick<ProcessInstanceStore, 'getLive' | 'listUserData'>;
  images: Pick<InstanceImageStore, 'get' | 'url'>;
}

/**
 * Lambda answers at most 6,291,556 bytes (its whole result, the body JSON-escaped inside it), and
 * API Gateway a 500 over that. The `userdata` JSON body stays within this, with images inline
 * (base64) as long as they fit and pre-signed URLs for the rest; the margin covers the headers
 * and the escaping of the body's quotes.
 */
export const USER_DATA_INLINE_BUDGET = 5_500_000;
/** `getdata` base64-encodes the whole document again (4/3): its document stays within this. */
export const GETDATA_DOCUMENT_BUDGET = 4_400_000;
/**
 * The zip `userdataarchive` answers inline: at most this many bytes (5.87 MB once base64 in the
 * Lambda response); a larger one is made by an export job and downloaded from S3.
 */
export const ARCHIVE_INLINE_MAX = 4_400_000;
/** What an image served by URL adds to the document at most (its URL and expiry). */
const URL_ENTRY_ALLOWANCE = 2_048;

/** The activity type whose step keeps the instance's summary (functions/activities/write-summary-v2.ts). */
const SUMMARY_STEP = 'WRITE_SUMMARY_V2';
/** The activity type of a custom page step (functions/activities/custom-page.ts), whose submissions make `data`. */
const CUSTOM_PAGE_STEP = 'CUSTOM_PAGE';

/**
 * An instance's user data: what the end user gave at each step, each data form's values under
 * its key, and the summary a Write Summary Report step wrote (its newest). An instance of another tenant, of another definition than the path names, or
 * past its retention is not found.
 */
export async function loadUserData(d: Pick<UserDataStorage, 'instances'>, tenantId: string, processDefnId: string, processInstanceId: string, now: Date) {
  const record = await d.instances.getLive(tenantId, processInstanceId, now);
  if (!record || record.processDefnId !== processDefnId) {
    throw new ProcessInstanceNotFoundError(processInstanceId);
  }
  const all = (await d.instances.listUserData(tenantId, record.id)).sort((a, b) => a.submittedAt.localeCompare(b.submittedAt));
  // A Write Summary Report step's summary is the document's `summary`, not one of its steps.
  const stored = all.filter((s) => s.activityType !== SUMMARY_STEP);
  // Kept as the step wrote it, which is the document's shape.
  const summary = all.filter((s) => s.activityType === SUMMARY_STEP).at(-1)?.values as InstanceSummaryView | undefined;
  const forms: Record<string, Record<string, unknown>> = {};
  for (const s of stored) if (s.activityType === 'DATA_FORM') forms[s.dataKey] = s.values;
  // The spec's `data`, only when custom pages were used: each page's last submission by its Custom Page Key.
  const pages: Record<string, Record<string, string>> = {};
  for (const s of stored) if (s.activityType === CUSTOM_PAGE_STEP) pages[s.dataKey] = s.values as Record<string, string>;
  return {
    processInstanceId: record.id,
    processDefnId: record.processDefnId,
    processDefnName: record.processDefnName,
    processDefnVersion: record.processDefnVersion,
    status: record.status,
    // Deliberately added, and only on a test-mode instance (docs/sandbox.md).
    ...(record.forTest ? { forTest: true as const } : {}),
    forms,
    ...(Object.keys(pages).length ? { data: pages } : {}),
    steps: stored.map(({ activityId, activityType, dataKey, submittedAt, values }) => ({ activityId, activityType, dataKey, submittedAt, values })),
    checks: stored.flatMap((s) => (s.check ? [checkResponse(s.check)] : [])),
    /** What the instance stored in S3; `objectKey` is internal and goes no further than the loaders below. */
    images: stored.flatMap((s) => s.images ?? []),
    ...(summary ? { summary } : {}),
  };
}

export type UserData = Awaited<ReturnType<typeof loadUserData>>;

/** A check as the API shows it (`CheckResponse`): `moreinfo` and `reportType` only where set. */
export function checkResponse(c: CheckRecord) {
  return {
    checkId: c.checkId,
    activityId: c.activityId,
    checkType: c.checkType,
    result: c.result,
    displayName: c.displayName,
    description: c.description,
    ...(c.moreinfo ? { moreinfo: c.moreinfo } : {}),
    checkedAt: c.checkedAt,
    reports: c.reports.map((r) => ({ name: r.name, result: r.result, description: r.description, ...(r.reportType ? { reportType: r.reportType } : {}) })),
  };
}

/** An image's metadata as the API shows it: everything but where it is stored. */
function imageView({ objectKey: _k, ...image }: ImageRecord) {
  return image;
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

/**
 * Which images go inline: in order, each whose base64 still fits the document within `budget`
 * bytes of JSON (what follows it counted at URL_ENTRY_ALLOWANCE each); the rest by URL. Decided
 * on the stored sizes, so no image is read that is not sent.
 */
export function inlineImages(data: UserData, budget: number): boolean[] {
  let size = jsonBytes({ ...data, images: [] });
  return data.images.map((image, i) => {
    const rest = data.images.length - i - 1;
    // The entry with an empty `data`, its base64, and the comma before it (all but the first).
    const inline = jsonBytes({ ...imageView(image), data: '' }) + base64Length(image.bytes) + (i > 0 ? 1 : 0);
    if (size + inline + rest * URL_ENTRY_ALLOWANCE <= budget) {
      size += inline;
      return true;
    }
    size += URL_ENTRY_ALLOWANCE;
    return false;
  });
}

/**
 * The user data with each image's bytes, base64 in `data` (the `userdata` and `getdata`
 * responses), as long as the document stays within `budget` bytes; an image past it comes as a
 * pre-signed S3 GET in `url`, good until `urlExpiresAt` (DOWNLOAD_URL_SECONDS, 5 minutes).
 */
export async function withImageData(d: Pick<UserDataStorage, 'images'>, tenantId: string, data: UserData, budget: number, now: Date) {
  const inline = inlineImages(data, budget);
  const images = await Promise.all(
    data.images.map(async (image, i) => {
      if (!inline[i]) {
        const url = await d.images.url(tenantId, data.processInstanceId, image.objectKey, DOWNLOAD_URL_SECONDS);
        return { ...imageView(image), url, urlExpiresAt: new Date(now.getTime() + DOWNLOAD_URL_SECONDS * 1000).toISOString() };
      }
      const bytes = await d.images.get(tenantId, data.processInstanceId, image.objectKey);
      if (!bytes) throw new Error(`image ${image.captureId} of instance ${data.processInstanceId} is missing from S3`);
      return { ...imageView(image), data: bytes.toString('base64') };
    }),
  );
  return { ...data, images };
}

/**
 * Whether the archive may be too large to answer inline: its images and document, plus each
 * zip entry's headers and AES overhead (well under 256 bytes). Images are JPEG or PNG, which
 * deflate hardly shrinks, so this is close to the zip's size.
 */
export function archiveTooLarge(data: UserData): boolean {
  const estimate = jsonBytes(data) + data.images.reduce((n, image) => n + image.bytes + 256, 256);
  return estimate > ARCHIVE_INLINE_MAX;
}

/**
 * The archive's password protects personal data at rest wherever the zip goes, so it must be
 * strong: 12 to 128 characters with at least three of lower case, upper case, digits, symbols.
 */
export function checkArchivePassword(password: string): void {
  const length = [...password].length;
  const classes = [/\p{Ll}/u, /\p{Lu}/u, /\p{Nd}/u, /[^\p{L}\p{Nd}\s]/u].filter((re) => re.test(password)).length;
  const problem =
    length < 12
      ? 'must be at least 12 characters'
      : length > 128
        ? 'must be at most 128 characters'
        : classes < 3
          ? 'must mix at least three of: lower case, upper case, digits, symbols'
          : undefined;
  if (problem) throw new ValidationError('The archive password is too weak.', [{ location: 'body.config.password', message: problem }]);
}

/**
 * A zip of the user data (`userdata.json`) and its images (`images/{key}-{captureId}.jpg`), every entry encrypted with AES-256 (encryption strength 3) under the
 * password. zip.js's writer-only build over web streams: the full library would put this
 * function's bundle over its size budget.
 */
export async function userDataArchive(d: Pick<UserDataStorage, 'images'>, tenantId: string, data: UserData, password: string): Promise<Buffer> {
  const { ZipWriter } = await import('@zip.js/zip.js/lib/zip-core-writer.js');
  const chunks: Buffer[] = [];
  const sink = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(Buffer.from(chunk)) });
  const writer = new ZipWriter(sink, { password, encryptionStrength: 3, useWebWorkers: false });
  const images = data.images.map((image) => ({ ...imageView(image), file: `images/${image.imageKey}-${image.captureId}.${image.format === 'PNG' ? 'png' : 'jpg'}` }));
  await writer.add('userdata.json', new Blob([`${JSON.stringify({ ...data, images }, null, 2)}\n`]).stream());
  for (const [i, image] of data.images.entries()) {
    const bytes = await d.images.get(tenantId, data.processInstanceId, image.objectKey);
    if (!bytes) throw new Error(`image ${image.captureId} of instance ${data.processInstanceId} is missing from S3`);
    await writer.add(images[i]!.file, new Blob([bytes]).stream());
  }
  await writer.close();
  return Buffer.concat(chunks);
}
