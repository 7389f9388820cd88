import type { SQSClient } from '@aws-sdk/client-sqs';
import { getStoreConfig } from '../config.js';
import type { ExportQueue } from '../exports/model.js';
import { traced } from '../observability/tracer.js';

let installed: ExportQueue | undefined;
let client: Promise<SQSClient> | undefined;

/** Locally, the in-process worker (lib/local/exports.ts) takes the jobs instead of SQS. */
export function installExportQueue(queue: ExportQueue): void {
  installed = queue;
}

/** SQS on AWS: one message per job, naming only the tenant and the export (the job itself is in the table). */
export const sqsExportQueue: ExportQueue = {
  async enqueue(ref) {
    const url = getStoreConfig().EXPORTS_QUEUE_URL;
    if (!url) throw new Error('EXPORTS_QUEUE_URL is not configured for this function');
    const { SQSClient, SendMessageCommand } = await import('@aws-sdk/client-sqs');
    client ??= traced(new SQSClient({}));
    await (await client).send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ tenantId: ref.tenantId, exportId: ref.exportId }) }));
  },
};

/** The queue jobs go to here: the installed one, else SQS. */
export const exportQueue: ExportQueue = {
  enqueue: (ref) => (installed ?? sqsExportQueue).enqueue(ref),
};
