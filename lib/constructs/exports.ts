import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ExportAction } from '../../functions/http/route.js';
import { EXPORT_RETENTION_DAYS } from '../../functions/exports/model.js';
import { MAX_RECEIVES } from '../../functions/exports/run-export.js';
import { deadLetterQueue } from './dead-letters.js';
import { IMAGE_KEY_PREFIX, imageStatements, acknowledgeImageObjects, type ImagesAccess } from './images.js';
import { serviceKey } from './key-policies.js';
import { ServiceFunction, nagArn } from './service-function.js';
import { TENANT_PARTITIONS, tenantTableStatement } from './tenant-role.js';

/** The worker's timeout: an archive of a few large images, or a CSV of up to 100,000 rows. */
export const EXPORT_WORKER_TIMEOUT = Duration.minutes(5);
/** The encryption context every sealed password carries (functions/adapters/sealer.ts `encryptionContext`). */
export const SEAL_PURPOSE = 'export-password';

/** What a function needs to be granted export actions. */
export interface ExportsAccess {
  readonly bucket: s3.IBucket;
  readonly key: kms.IKey;
  readonly queue: sqs.IQueue;
}

/** `arn:aws:s3:::<bucket>/tenants/*`: every export file (functions/store/keys.ts `exportObject`). */
export function exportObjectsArn(bucket: s3.IBucket): string {
  return bucket.arnForObjects(`${IMAGE_KEY_PREFIX}*`);
}

/** The environment a function using exports reads (functions/config.ts). */
export function exportsEnvironment(access: ExportsAccess): Record<string, string> {
  return { EXPORTS_BUCKET: access.bucket.bucketName, EXPORTS_QUEUE_URL: access.queue.queueUrl, EXPORTS_KEY: `kms:${access.key.keyArn}` };
}

/**
 * Exactly the statements for a route's `aws.exports`: queue a job (SendMessage on the one
 * queue), seal a password (Encrypt with the exports key, only with the password's encryption
 * context), pre-sign a download (GetObject under tenants/ of the exports bucket, and Decrypt
 * only through S3 for those objects: a pre-signed URL carries the signer's rights).
 */
export function exportStatements(actions: readonly ExportAction[], access: ExportsAccess, stack: Stack): iam.PolicyStatement[] {
  const out: iam.PolicyStatement[] = [];
  if (actions.includes('SendMessage')) {
    out.push(new iam.PolicyStatement({ sid: 'ExportJobs', actions: ['sqs:SendMessage'], resources: [access.queue.queueArn] }));
  }
  if (actions.includes('Seal')) {
    out.push(
      new iam.PolicyStatement({
        sid: 'SealExportPassword',
        actions: ['kms:Encrypt'],
        resources: [access.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SEAL_PURPOSE } },
      }),
    );
  }
  if (actions.includes('GetObject')) {
    out.push(
      new iam.PolicyStatement({ sid: 'ExportFiles', actions: ['s3:GetObject'], resources: [exportObjectsArn(access.bucket)] }),
      new iam.PolicyStatement({
        sid: 'ExportFilesKey',
        actions: ['kms:Decrypt'],
        resources: [access.key.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `s3.${stack.region}.amazonaws.com` },
          StringLike: { 'kms:EncryptionContext:aws:s3:arn': exportObjectsArn(access.bucket) },
        },
      }),
    );
  }
  return out;
}

/** Acknowledges the one wildcard `exportStatements` writes (the files under tenants/), on a role that has it. */
export function acknowledgeExportObjects(role: iam.IRole, bucket: s3.IBucket): void {
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArn(exportObjectsArn(bucket), Stack.of(role))}]`,
    reason:
      'Export files are made at run time (tenants/{tenantId}/exports/{exportId}/{file}), so object grants name the tenants/ prefix ' +
      'of the one exports bucket; the code builds every key under its own tenant and export.',
  });
}

export interface ExportsProps {
  repoRoot: string;
  namePrefix: string;
  table: ITable;
  /** The indexes the CSV export queries (those route queries use). */
  indexNames: readonly string[];
  images: ImagesAccess;
  /** Where the exports bucket's access logs go (the images bucket's log bucket, under `exports/`). */
  accessLogs: s3.IBucket;
  /** The route functions' environment (what the worker's store and domain code read). */
  environment: Record<string, string>;
}

/**
 * Asynchronous exports (archives over 4.4 MB, CSV files over 1,000 rows): the exports bucket
 * and its key, the job queue with its dead-letter queue and alarm, and the worker the queue
 * feeds. Route functions get their grants through `exportStatements`.
 */
export class Exports extends Construct implements ExportsAccess {
  readonly key: kms.Key;
  readonly bucket: s3.Bucket;
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;
  readonly worker: ServiceFunction;
  /** The role the worker acts through for each job's tenant. */
  readonly workerTenantRole: iam.Role;
  readonly mapping: lambda.EventSourceMapping;

  constructor(scope: Construct, id: string, props: ExportsProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // One customer-managed key for exports, apart from the images' and the signing key: it
    // encrypts the files (SSE-KMS, with the object in the encryption context, as for images)
    // and seals archive passwords until their job runs (KMS Encrypt, bound to the tenant and
    // export by the encryption context). Grants separate the two uses by their conditions.
    this.key = serviceKey(this, 'Key', {
      description: `Encrypts Arthr exports and seals archive passwords (${props.namePrefix})`,
      alias: `alias/${props.namePrefix}-exports`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: this.key,
      bucketKeyEnabled: false,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      // No versioning: an export is a copy of personal data; when it expires it must be gone.
      versioned: false,
      lifecycleRules: [
        { id: 'ExpireExports', expiration: Duration.days(EXPORT_RETENTION_DAYS) },
        { id: 'AbortIncompleteUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'exports/',
      // Only copies, each gone within 7 days; but a stack deletion should not delete them unseen.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deadLetters = deadLetterQueue(this, 'JobDeadLetters', {
      whyNoDeadLetterQueue: 'This queue is itself the dead-letter queue of the export job queue.',
      alarmDescription:
        `An export job failed ${MAX_RECEIVES} times and was marked FAILED (its caller sees status FAILED). The message names the tenant and ` +
        'export: read the worker\'s log for the error; the caller may start the export again.',
    });
    this.queue = new sqs.Queue(this, 'Jobs', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Lambda's advice for an SQS event source: at least six times the function's timeout.
      visibilityTimeout: Duration.seconds(EXPORT_WORKER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(1),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVES },
    });

    const workerName = ServiceFunction.physicalName(props.namePrefix, 'runExport');
    this.worker = new ServiceFunction(this, 'Worker', {
      functionName: workerName,
      description: 'Runs export jobs from the queue: writes archives and CSV files to the exports bucket.',
      repoRoot: props.repoRoot,
      entry: 'functions/exports/run-export.ts',
      memorySize: 1024,
      timeout: EXPORT_WORKER_TIMEOUT,
      environment: { ...props.environment, IMAGES_BUCKET: props.images.bucket.bucketName, ...exportsEnvironment(this) },
      policyName: 'runExport',
      roleDescription:
        "Runs export jobs: acts through its tenant role for each job's tenant (reads the job, the user data or instance views), reads images, writes the file to the exports bucket.",
      statements: [
        // Images through its tenant role (below): its S3 client calls as the job's tenant (functions/adapters/images.ts).
        new iam.PolicyStatement({ sid: 'WriteExportFiles', actions: ['s3:PutObject'], resources: [exportObjectsArn(this.bucket)] }),
        new iam.PolicyStatement({
          sid: 'WriteExportFilesKey',
          actions: ['kms:GenerateDataKey'],
          resources: [this.key.keyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `s3.${stack.region}.amazonaws.com` },
            StringLike: { 'kms:EncryptionContext:aws:s3:arn': exportObjectsArn(this.bucket) },
          },
        }),
        new iam.PolicyStatement({
          sid: 'UnsealExportPassword',
          actions: ['kms:Decrypt'],
          resources: [this.key.keyArn],
          conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SEAL_PURPOSE } },
        }),
        // What Lambda's SQS poller needs, on this queue only.
        new iam.PolicyStatement({
          sid: 'JobQueue',
          actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
          resources: [this.queue.queueArn],
        }),
      ],
    });
    // Each job acts for its tenant (functions/exports/run-export.ts `runJob`): the job, the
    // instance's data or the instance views its query reads, that tenant's partitions only.
    this.workerTenantRole = this.worker.actForTenants("Runs export jobs for one tenant: assumed with the arthr-tenant session tag of the job's tenant", [
        tenantTableStatement('TableItems', ['GetItem', 'UpdateItem', 'Query'], [props.table.tableArn], TENANT_PARTITIONS),
        tenantTableStatement('TableIndexes', ['Query'], props.indexNames.map((n) => `${props.table.tableArn}/index/${n}`), TENANT_PARTITIONS),
        // The archive's images, the job's tenant's only.
        ...imageStatements(['GetObject'], props.images, stack, 'tenant'),
      ]);
    acknowledgeImageObjects(this.workerTenantRole, props.images.bucket, 'tenant');
    acknowledgeExportObjects(this.worker.role, this.bucket);

    this.mapping = new lambda.EventSourceMapping(this, 'JobSource', {
      target: this.worker.function,
      eventSourceArn: this.queue.queueArn,
      // One job per invocation: each is large, and a failure retries only its own job.
      batchSize: 1,
      reportBatchItemFailures: true,
      // A handful at once: exports are rare and large, and the table and S3 serve the API first
      // (a ceiling on the poller, reserving none of the account's concurrency).
      maxConcurrency: 5,
    });
  }
}
