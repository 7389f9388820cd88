import { randomUUID } from 'node:crypto';
import { ApiError, apiError } from '../errors.js';
import {
  DOWNLOAD_URL_SECONDS,
  EXPORT_RETENTION_DAYS,
  type CsvExportQuery,
  type ExportKind,
  type ExportObjects,
  type ExportQueue,
  type ExportRecord,
  type ExportRef,
  type ExportStore,
  type SecretSealer,
} from './model.js';

export class ExportNotFoundError extends apiError('EXPORT_NOT_FOUND') {
  constructor(exportId: string) {
    super(`No export ${exportId} here: unknown, of another instance or kind, or past its ${EXPORT_RETENTION_DAYS} days.`);
  }
}

export interface StartExport {
  tenantId: string;
  /** Who asks (`apikey:{id}`); kept as the job's `principal`. */
  actor: string;
  kind: ExportKind;
  fileName: string;
  contentType: string;
  processDefnId?: string;
  processInstanceId?: string;
  /** USER_DATA_ARCHIVE: sealed before it is stored, never kept in clear. */
  password?: string;
  query?: CsvExportQuery;
}

/** Records a job (PENDING) and queues it; the caller answers 202 with its view. */
export async function startExport(d: { jobs: ExportStore; queue: ExportQueue; sealer: SecretSealer }, input: StartExport, now: Date): Promise<ExportRecord> {
  const ref: ExportRef = { tenantId: input.tenantId, exportId: randomUUID() };
  const { password, actor, ...rest } = input;
  const record: ExportRecord = {
    ...rest,
    ...ref,
    // The stored attribute keeps its name: jobs already in the table have it.
    principal: actor,
    status: 'PENDING',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + EXPORT_RETENTION_DAYS * 86_400,
    ...(password !== undefined ? { sealedPassword: await d.sealer.seal(password, ref) } : {}),
  };
  await d.jobs.create(record);
  await d.queue.enqueue(ref);
  return record;
}

/** A job as the status route shows it: with a pre-signed download URL once it SUCCEEDED. */
export async function exportView(d: { objects?: Pick<ExportObjects, 'url'> }, record: ExportRecord, now: Date) {
  const done = record.status === 'SUCCEEDED' && record.objectKey && d.objects;
  return {
    exportId: record.exportId,
    kind: record.kind,
    status: record.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    expiresAt: new Date(record.expiresAt * 1000).toISOString(),
    fileName: record.fileName,
    contentType: record.contentType,
    ...(record.completedAt ? { completedAt: record.completedAt } : {}),
    ...(record.bytes !== undefined ? { bytes: record.bytes } : {}),
    ...(record.rows !== undefined ? { rows: record.rows } : {}),
    ...(record.error ? { error: record.error } : {}),
    ...(done
      ? {
          url: await d.objects!.url(record.objectKey!, record.fileName, DOWNLOAD_URL_SECONDS),
          urlExpiresAt: new Date(now.getTime() + DOWNLOAD_URL_SECONDS * 1000).toISOString(),
        }
      : {}),
  };
}

export type ExportView = Awaited<ReturnType<typeof exportView>>;

/** A job of this kind (and instance) in this tenant, or 404: another tenant's or another kind's id is not found. */
export async function findExport(
  d: { jobs: Pick<ExportStore, 'get'> },
  tenantId: string,
  exportId: string,
  expect: { kind: ExportKind; processDefnId?: string; processInstanceId?: string },
  now: Date,
): Promise<ExportRecord> {
  const record = await d.jobs.get(tenantId, exportId, now);
  if (
    !record ||
    record.kind !== expect.kind ||
    (expect.processInstanceId !== undefined && record.processInstanceId !== expect.processInstanceId) ||
    (expect.processDefnId !== undefined && record.processDefnId !== expect.processDefnId)
  ) {
    throw new ExportNotFoundError(exportId);
  }
  return record;
}

/** What a job makes: the file's bytes and, for a CSV, its row count. */
export type ExportBuilder = (record: ExportRecord, password: string | undefined) => Promise<{ body: Buffer | string; rows?: number }>;

/**
 * Runs one job: marks it RUNNING, builds the file, stores it and marks it SUCCEEDED (the sealed
 * password dropped). A refusal the caller should see (the instance is gone, a query is no
 * longer valid) ends it FAILED with that message; any other error is thrown for the queue to
 * retry, and on the last attempt ends it FAILED too. A job that already ended is left alone, so
 * a message delivered twice does nothing the second time.
 */
export async function runExport(
  d: { jobs: ExportStore; objects: Pick<ExportObjects, 'put'>; sealer: Pick<SecretSealer, 'unseal'>; build: ExportBuilder },
  ref: ExportRef,
  opts: { now: () => Date; lastAttempt: boolean },
): Promise<ExportRecord['status'] | 'GONE'> {
  const record = await d.jobs.get(ref.tenantId, ref.exportId, opts.now());
  if (!record) return 'GONE';
  if (record.status === 'SUCCEEDED' || record.status === 'FAILED') return record.status;
  if (!(await d.jobs.markRunning(ref.tenantId, ref.exportId, opts.now()))) return 'GONE';
  try {
    const password = record.sealedPassword ? await d.sealer.unseal(record.sealedPassword, ref) : undefined;
    const { body, rows } = await d.build(record, password);
    const objectKey = await d.objects.put(ref, record.fileName, body, record.contentType);
    const bytes = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
    await d.jobs.finish(ref.tenantId, ref.exportId, { status: 'SUCCEEDED', objectKey, bytes, ...(rows !== undefined ? { rows } : {}) }, opts.now());
    return 'SUCCEEDED';
  } catch (err) {
    const exposed = err instanceof ApiError && err.statusCode < 500;
    if (exposed || opts.lastAttempt) {
      await d.jobs.finish(ref.tenantId, ref.exportId, { status: 'FAILED', error: exposed ? (err as Error).message : 'The export could not be made.' }, opts.now());
      if (exposed) return 'FAILED';
    }
    throw err;
  }
}
