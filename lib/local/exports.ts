import type { ExportQueue, ExportRef } from '../../functions/exports/model.js';
import { MAX_RECEIVES, runJob } from '../../functions/exports/run-export.js';
import { log } from '../../functions/http/log.js';
import { asOperation } from './aws-usage.js';

/**
 * The export queue on one machine: SQS and the worker's event source mapping, in process. Jobs
 * run one at a time after the request that queued them has been answered, each up to
 * MAX_RECEIVES times as SQS would deliver it (the last attempt marks the job FAILED), with the
 * same worker code as the Lambda.
 */
export function localExportQueue(run: (ref: ExportRef, lastAttempt: boolean) => Promise<unknown> = runJob): ExportQueue & { settle(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  return {
    async enqueue(ref) {
      chain = chain.then(() =>
        asOperation('runExport', async () => {
          for (let attempt = 1; attempt <= MAX_RECEIVES; attempt++) {
            try {
              await run(ref, attempt === MAX_RECEIVES);
              return;
            } catch (error) {
              log().error('export job failed', { exportId: ref.exportId, attempt, error: error as Error });
            }
          }
        }),
      );
    },
    settle: () => chain,
  };
}
