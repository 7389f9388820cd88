import { log } from '../http/log.js';
import { ValidationError } from '../errors.js';
import { images, instances as userDataInstances } from '../userdata/deps.js';
import { loadUserData, userDataArchive } from '../userdata/user-data.js';
import { instances } from '../process-manager/deps.js';
import { exportRows, instancesCsv } from '../process-manager/instances/instance-search.js';
import { CSV_EXPORT_MAX_ROWS } from '../process-manager/model.js';
import { jobs, objects, sealer } from './deps.js';
import { runExport, type ExportBuilder } from './exports.js';
import type { ExportRef } from './model.js';
import { forRecordTenant } from '../shared/tenant-scope.js';

/** SQS delivers a job this many times (the queue's maxReceiveCount) before it goes to the dead-letter queue. */
export const MAX_RECEIVES = 3;

/** Makes an export's file from its job: the instance's archive, or the instances CSV. */
export const buildExport: ExportBuilder = async (record, password) => {
  const now = new Date();
  if (record.kind === 'USER_DATA_ARCHIVE') {
    if (!password) throw new Error(`archive export ${record.exportId} has no password`);
    const data = await loadUserData({ instances: userDataInstances }, record.tenantId, record.processDefnId!, record.processInstanceId!, now);
    return { body: await userDataArchive({ images }, record.tenantId, data, password) };
  }
  const query = record.query!;
  const { views, tooMany } = await exportRows(instances, record.tenantId, query.filters, query.sort, now, CSV_EXPORT_MAX_ROWS);
  if (tooMany) {
    throw new ValidationError(`More than ${CSV_EXPORT_MAX_ROWS} instances match: narrow the filters (creation range, status, definition).`);
  }
  return { body: instancesCsv(views), rows: views.length };
};

interface SqsRecord {
  messageId: string;
  body: string;
  attributes?: { ApproximateReceiveCount?: string };
}

/**
 * One job of the queue, as the local worker also runs it, for the job's tenant: the one the
 * export route queued it for (the request's own tenant); on AWS through the worker's tenant role.
 * A job naming no tenant fails, never run unscoped.
 */
export function runJob(ref: ExportRef, lastAttempt: boolean) {
  return forRecordTenant(ref.tenantId, () => runExport({ jobs, objects, sealer, build: buildExport }, ref, { now: () => new Date(), lastAttempt }));
}

/**
 * The export worker: an SQS event source (batch size 1) hands it a job; a failure is reported
 * back so SQS redelivers it, and after MAX_RECEIVES it goes to the dead-letter queue (its job
 * marked FAILED on that last attempt).
 */
export async function handler(event: { Records: SqsRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      const ref = JSON.parse(record.body) as ExportRef;
      const lastAttempt = Number(record.attributes?.ApproximateReceiveCount ?? '1') >= MAX_RECEIVES;
      const status = await runJob({ tenantId: ref.tenantId, exportId: ref.exportId }, lastAttempt);
      log().info('export job', { tenantId: ref.tenantId, exportId: ref.exportId, status });
    } catch (error) {
      // The job's id only: never its password (sealed in the table, never in the message or a log).
      log().error('export job failed', { messageId: record.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
