/**
 * Asynchronous exports: what is too large for one Lambda response (6 MB, base64 counted) is
 * made by a worker into the exports bucket, and the caller downloads it by a pre-signed URL.
 */

/** What an export makes: a user data archive (zip) or the instances CSV. */
export type ExportKind = 'USER_DATA_ARCHIVE' | 'INSTANCES_CSV';
/** PENDING (queued), RUNNING (a worker has it), SUCCEEDED (the file is ready), FAILED (see `error`). */
export type ExportStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/** An export job and its file are kept this long, then DynamoDB's TTL and the bucket's lifecycle rule remove them. */
export const EXPORT_RETENTION_DAYS = 7;
/** A pre-signed URL (an image of `userdata`, an export's download) is good for this long. */
export const DOWNLOAD_URL_SECONDS = 300;

/** The instances query a CSV export runs (the CSV request's filters and sort). */
export interface CsvExportQuery {
  filters: {
    searchString?: string | undefined;
    startDateTime?: string | undefined;
    endDateTime?: string | undefined;
    processDefinitionName?: string | undefined;
    processDefinitionId?: string | undefined;
    processInstanceStatus?: string[] | undefined;
  };
  sort: string[];
}

export interface ExportRecord {
  tenantId: string;
  exportId: string;
  kind: ExportKind;
  status: ExportStatus;
  /** Who asked (`apikey:{id}`): the job runs on their behalf. */
  principal: string;
  createdAt: string;
  updatedAt: string;
  /** TTL, epoch seconds: createdAt + EXPORT_RETENTION_DAYS. */
  expiresAt: number;
  /** The download's file name (`Content-Disposition`). */
  fileName: string;
  contentType: string;
  /** USER_DATA_ARCHIVE: the instance. */
  processDefnId?: string;
  processInstanceId?: string;
  /**
   * USER_DATA_ARCHIVE: the archive password sealed with the exports key (KMS on AWS), bound to
   * this tenant and export; removed when the job ends. Never stored or logged in clear.
   */
  sealedPassword?: string;
  /** INSTANCES_CSV: the query. */
  query?: CsvExportQuery;
  /** Set when SUCCEEDED. */
  objectKey?: string;
  bytes?: number;
  rows?: number;
  completedAt?: string;
  /** Set when FAILED: why, for the caller. */
  error?: string;
}

/** The table items of export jobs (functions/store/exports.ts). */
export interface ExportStore {
  create(record: ExportRecord): Promise<void>;
  /** Undefined when absent, of another tenant, or past its TTL. */
  get(tenantId: string, exportId: string, now: Date): Promise<ExportRecord | undefined>;
  /** PENDING (or RUNNING again, a retried message) to RUNNING; false when the job already ended. */
  markRunning(tenantId: string, exportId: string, now: Date): Promise<boolean>;
  /** Ends the job (SUCCEEDED or FAILED with its fields) and drops the sealed password. */
  finish(tenantId: string, exportId: string, outcome: Pick<ExportRecord, 'status' | 'objectKey' | 'bytes' | 'rows' | 'error'>, now: Date): Promise<void>;
}

/** The export files (the exports bucket). */
export interface ExportObjects {
  /** Stores a job's file under its tenant and export; returns the object key. */
  put(ref: ExportRef, fileName: string, body: Buffer | string, contentType: string): Promise<string>;
  /** A pre-signed GET of the file, good for `expiresIn` seconds, downloading as `fileName`. */
  url(objectKey: string, fileName: string, expiresIn: number): Promise<string>;
}

/** Where a job goes to be run: SQS on AWS, an in-process worker locally. */
export interface ExportQueue {
  enqueue(ref: ExportRef): Promise<void>;
}

export interface ExportRef {
  tenantId: string;
  exportId: string;
}

/** Seals a secret for a job, bound to it (KMS encryption context on AWS, AES-GCM additional data locally). */
export interface SecretSealer {
  seal(plain: string, context: ExportRef): Promise<string>;
  unseal(sealed: string, context: ExportRef): Promise<string>;
}
