import { ValidationError } from '../errors.js';
import { processInstanceStore } from '../store/process-instances.js';
import { ProcessInstanceNotFoundError } from '../process-manager/instances.js';

/**
 * An instance's user data: what the end user gave at each step, and each data form's values
 * under its key. An instance of another tenant, of another definition than the path names, or
 * past its retention is not found.
 */
export async function loadUserData(tenantId: string, processDefnId: string, processInstanceId: string, now: Date) {
  const record = await processInstanceStore.getLive(tenantId, processInstanceId, now);
  if (!record || record.processDefnId !== processDefnId) {
    throw new ProcessInstanceNotFoundError(processInstanceId);
  }
  const steps = (await processInstanceStore.listUserData(tenantId, record.id)).sort((a, b) => a.submittedAt.localeCompare(b.submittedAt));
  const forms: Record<string, Record<string, unknown>> = {};
  for (const s of steps) if (s.activityType === 'DATA_FORM') forms[s.dataKey] = s.values;
  return {
    processInstanceId: record.id,
    processDefnId: record.processDefnId,
    processDefnName: record.processDefnName,
    processDefnVersion: record.processDefnVersion,
    status: record.status,
    forms,
    steps,
  };
}

export type UserData = Awaited<ReturnType<typeof loadUserData>>;

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
 * A zip of the user data, every entry encrypted with AES-256 (encryption strength 3) under the
 * password. zip.js's writer-only build over web streams: the full library would put this
 * function's bundle over its size budget.
 */
export async function userDataArchive(data: UserData, password: string): Promise<Buffer> {
  const { ZipWriter } = await import('@zip.js/zip.js/lib/zip-core-writer.js');
  const chunks: Buffer[] = [];
  const sink = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(Buffer.from(chunk)) });
  const writer = new ZipWriter(sink, { password, encryptionStrength: 3, useWebWorkers: false });
  await writer.add('userdata.json', new Blob([`${JSON.stringify(data, null, 2)}\n`]).stream());
  await writer.close();
  return Buffer.concat(chunks);
}
