import type { S3Client } from '@aws-sdk/client-s3';
import { getStoreConfig } from '../config.js';
import type { ExportObjects, ExportRecord, ExportStore } from '../exports/model.js';
import { traced } from '../observability/tracer.js';
import { itemCodec, unexpired } from './codec.js';
import { conditionally, dynamo } from './client.js';
import { keys, objectKeys } from './keys.js';
import { localS3ClientConfig, presignGet } from '../adapters/presign.js';

const jobs = /* @__PURE__ */ itemCodec<ExportRecord>('ExportJob');

/** Export jobs: one item each in the tenant's partition, deleted by the table's TTL after EXPORT_RETENTION_DAYS. */
export const exportStore: ExportStore = {
  async create(record) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.PutCommand({
        TableName: tableName,
        Item: jobs.encode(record, keys.exportJob(record.tenantId, record.exportId)),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  },

  async get(tenantId, exportId, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.exportJob(tenantId, exportId), ConsistentRead: true }));
    const record = unexpired(jobs.decode(out.Item), now);
    // The key already scopes by tenant; a record naming another tenant would be a bug, never data to show.
    return record && record.tenantId === tenantId ? record : undefined;
  },

  async markRunning(tenantId, exportId, now) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.exportJob(tenantId, exportId),
          UpdateExpression: 'SET #s = :running, updatedAt = :now',
          ConditionExpression: 'itemType = :type AND #s IN (:pending, :running)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':running': 'RUNNING', ':pending': 'PENDING', ':type': jobs.itemType, ':now': now.toISOString() },
        }),
      ),
    );
  },

  async finish(tenantId, exportId, outcome, now) {
    const { doc, tableName, commands } = await dynamo();
    const set: Record<string, unknown> = { ':status': outcome.status, ':now': now.toISOString() };
    const names: Record<string, string> = { '#s': 'status' };
    const parts = ['#s = :status', 'updatedAt = :now', 'completedAt = :now'];
    // By name placeholders: `rows`, `bytes` and `error` are DynamoDB reserved words.
    for (const field of ['objectKey', 'bytes', 'rows', 'error'] as const) {
      if (outcome[field] !== undefined) {
        parts.push(`#${field} = :${field}`);
        names[`#${field}`] = field;
        set[`:${field}`] = outcome[field];
      }
    }
    await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: keys.exportJob(tenantId, exportId),
        // The sealed password goes with the job's end, whatever the outcome.
        UpdateExpression: `SET ${parts.join(', ')} REMOVE sealedPassword`,
        ConditionExpression: 'itemType = :type',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...set, ':type': jobs.itemType },
      }),
    );
  },
};

interface ExportsS3 {
  client: S3Client;
  bucket: string;
  commands: typeof import('@aws-sdk/client-s3');
}
let made: Promise<ExportsS3> | undefined;

/** The process's S3 client for the exports bucket, made at first use. */
export function exportsS3(): Promise<ExportsS3> {
  made ??= (async () => {
    const config = getStoreConfig();
    if (!config.EXPORTS_BUCKET) throw new Error('EXPORTS_BUCKET is not configured for this function');
    const commands = await import('@aws-sdk/client-s3');
    const client = await traced(new commands.S3Client(config.S3_ENDPOINT ? localS3ClientConfig(config.S3_ENDPOINT) : {}));
    return { client, bucket: config.EXPORTS_BUCKET, commands };
  })();
  made.catch(() => (made = undefined));
  return made;
}

/** Export files in the exports bucket, under `tenants/{tenantId}/exports/{exportId}/`. */
export const exportObjects: ExportObjects = {
  async put(ref, fileName, body, contentType) {
    const { client, bucket, commands } = await exportsS3();
    const objectKey = objectKeys.exportObject(ref.tenantId, ref.exportId, fileName);
    await client.send(new commands.PutObjectCommand({ Bucket: bucket, Key: objectKey, Body: body, ContentType: contentType }));
    return objectKey;
  },
  async url(objectKey, fileName, expiresIn) {
    const { client, bucket } = await exportsS3();
    return presignGet(client, bucket, objectKey, { expiresIn, fileName });
  },
};
