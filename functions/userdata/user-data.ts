import { ValidationError } from '../errors.js';
import { ProcessInstanceNotFoundError } from '../process-manager/instances.js';
import type { CheckRecord, ImageRecord, InstanceImageStore, ProcessInstanceStore } from '../process-manager/model.js';

/** The storage user data is read from (the process manager's instances and their images); `deps.ts` puts it together. */
export interface UserDataStorage {
  instances: Pick<ProcessInstanceStore, 'getLive' | 'listUserData'>;
  images: Pick<InstanceImageStore, 'get'>;
}

/**
 * An instance's user data: what the end user gave at each step, and each data form's values
 * under its key. An instance of another tenant, of another definition than the path names, or
 * past its retention is not found.
 */
export async function loadUserData(d: Pick<UserDataStorage, 'instances'>, tenantId: string, processDefnId: string, processInstanceId: string, now: Date) {
  const record = await d.instances.getLive(tenantId, processInstanceId, now);
  if (!record || record.processDefnId !== processDefnId) {
    throw new ProcessInstanceNotFoundError(processInstanceId);
  }
  const stored = (await d.instances.listUserData(tenantId, record.id)).sort((a, b) => a.submittedAt.localeCompare(b.submittedAt));
  const forms: Record<string, Record<string, unknown>> = {};
  for (const s of stored) if (s.activityType === 'DATA_FORM') forms[s.dataKey] = s.values;
  return {
    processInstanceId: record.id,
    processDefnId: record.processDefnId,
    processDefnName: record.processDefnName,
    processDefnVersion: record.processDefnVersion,
    status: record.status,
    forms,
    steps: stored.map(({ activityId, activityType, dataKey, submittedAt, values }) => ({ activityId, activityType, dataKey, submittedAt, values })),
    checks: stored.flatMap((s) => (s.check ? [checkResponse(s.check)] : [])),
    /** What the instance stored in S3; `objectKey` is internal and goes no further than the loaders below. */
    images: stored.flatMap((s) => s.images ?? []),
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

/** The user data with each image's bytes, base64 in `data` (the `userdata` and `getdata` responses). */
export async function withImageData(d: Pick<UserDataStorage, 'images'>, tenantId: string, data: UserData) {
  const images = await Promise.all(
    data.images.map(async (image) => {
      const bytes = await d.images.get(tenantId, data.processInstanceId, image.objectKey);
      if (!bytes) throw new Error(`image ${image.captureId} of instance ${data.processInstanceId} is missing from S3`);
      return { ...imageView(image), data: bytes.toString('base64') };
    }),
  );
  return { ...data, images };
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
