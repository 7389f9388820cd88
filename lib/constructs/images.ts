import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ImageAction } from '../../functions/http/route.js';
import { deadLetterQueue } from './dead-letters.js';
import { serviceKey } from './key-policies.js';
import { ServiceFunction, nagArn } from './service-function.js';
import { SESSION_TENANT } from './tenant-role.js';

/**
 * Every object of the service lives under this prefix (functions/store/keys.ts `objectKeys.root`):
 * `tenants/{tenantId}/instances/{id}/...`. Grants are limited to it.
 */
export const IMAGE_KEY_PREFIX = 'tenants/';

/**
 * The longest a process definition may keep an instance (statemachines/definition.ts,
 * `retentionDays` at most 3650): no image may outlive it, whatever happens to the clean-up.
 */
export const MAX_RETENTION_DAYS = 3650;

/** What a function needs to be granted image actions: the bucket and the key its objects are encrypted with. */
export interface ImagesAccess {
  readonly bucket: s3.IBucket;
  readonly key: kms.IKey;
}

/**
 * Exactly the statements for `actions` on the images bucket, all limited to `tenants/`:
 * object actions on `tenants/*`, ListBucket on the bucket for prefixes under `tenants/`, and
 * the KMS actions SSE-KMS needs for them (GenerateDataKey to write, Decrypt to read), usable
 * only by S3 in this region on objects under `tenants/` of this bucket.
 */
export function imageStatements(actions: readonly ImageAction[], access: ImagesAccess, stack: Stack, scope: 'service' | 'tenant' = 'service'): iam.PolicyStatement[] {
  const statements: iam.PolicyStatement[] = [];
  // A tenant role's session: its own tenant's prefix only (lib/constructs/tenant-role.ts).
  const prefix = scope === 'tenant' ? `${IMAGE_KEY_PREFIX}${SESSION_TENANT}/` : IMAGE_KEY_PREFIX;
  const objectActions = (['PutObject', 'GetObject', 'DeleteObject'] as const).filter((a) => actions.includes(a));
  if (objectActions.length > 0) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'ImageObjects',
        actions: objectActions.map((a) => `s3:${a}`),
        resources: [imageObjectsArn(access.bucket, scope)],
      }),
    );
  }
  if (actions.includes('ListBucket')) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'ImageListing',
        actions: ['s3:ListBucket'],
        resources: [access.bucket.bucketArn],
        // ListObjectsV2 only with a prefix under tenants/ (the store always lists one instance's).
        conditions: { StringLike: { 's3:prefix': `${prefix}*` } },
      }),
    );
  }
  const keyActions = [
    ...(actions.includes('PutObject') ? ['kms:GenerateDataKey'] : []),
    ...(actions.includes('GetObject') ? ['kms:Decrypt'] : []),
  ];
  if (keyActions.length > 0) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'ImageKey',
        actions: keyActions,
        resources: [access.key.keyArn],
        conditions: {
          // Only S3 may use the key on the function's behalf (no direct Decrypt of anything else
          // this key might ever encrypt), and only for this bucket's objects under tenants/: with
          // no S3 Bucket Key, S3 passes each object's ARN as the encryption context.
          StringEquals: { 'kms:ViaService': `s3.${stack.region}.amazonaws.com` },
          StringLike: { 'kms:EncryptionContext:aws:s3:arn': imageObjectsArn(access.bucket, scope) },
        },
      }),
    );
  }
  return statements;
}

/** `arn:aws:s3:::<bucket>/tenants/*`: the only objects any function may touch; a tenant session's, `tenants/{its tenant}/*`. */
export function imageObjectsArn(bucket: s3.IBucket, scope: 'service' | 'tenant' = 'service'): string {
  return bucket.arnForObjects(`${IMAGE_KEY_PREFIX}${scope === 'tenant' ? `${SESSION_TENANT}/` : ''}*`);
}

/** Acknowledges the one wildcard `imageStatements` writes (the objects under tenants/), on a role that has it. */
export function acknowledgeImageObjects(role: iam.IRole, bucket: s3.IBucket, scope: 'service' | 'tenant' = 'service'): void {
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArn(imageObjectsArn(bucket, scope), Stack.of(role))}]`,
    reason:
      'Image object keys are made at run time (tenants/{tenantId}/instances/{id}/...), so object grants name the tenants/ ' +
      'prefix of the one images bucket; the function code builds every key under its own tenant and instance.',
  });
}

/**
 * An on-failure destination that only names the queue. CDK's SqsDlq also grants
 * GetQueueAttributes and GetQueueUrl, which Lambda does not need to send there; the function's
 * own policy grants sqs:SendMessage instead.
 */
export class QueueDestination implements lambda.IEventSourceDlq {
  constructor(private readonly queue: sqs.IQueue) {}
  bind(): lambda.DlqDestinationConfig {
    return { destination: this.queue.queueArn };
  }
}

export interface ImagesProps {
  repoRoot: string;
  /** The single table; it must have a stream (KEYS_ONLY is enough: only keys are read). */
  table: ITable;
  /** Name of the table's sort key attribute, which the stream filter matches. */
  sortKey: string;
  /** The deployment's name prefix (`arthr-{label}`): the key alias and the clean-up function's name start with it. */
  namePrefix: string;
  /** Environment of the clean-up function besides IMAGES_BUCKET (what the store config parses). */
  environment: Record<string, string>;
}

/**
 * Face images in S3: the bucket (with its access-log bucket and its KMS key), and the clean-up
 * that deletes an instance's images when DynamoDB's TTL removes the instance, fed by the table's
 * stream. Route functions get their grants through `imageStatements`.
 */
export class Images extends Construct implements ImagesAccess {
  readonly bucket: s3.Bucket;
  readonly key: kms.Key;
  readonly accessLogs: s3.Bucket;
  readonly cleanup: ServiceFunction;
  readonly cleanupMapping: lambda.EventSourceMapping;
  /** Stream batches the clean-up could not finish (pointers into the stream, not the records). */
  readonly cleanupDeadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: ImagesProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // Face images are biometric personal data, so a customer-managed key rather than SSE-S3:
    // - a second gate: an IAM grant of s3:GetObject alone (a mistaken `*` elsewhere in the
    //   account) reads nothing without kms:Decrypt on this key, which only the functions that
    //   read images hold, and only through S3 for this bucket's tenants/ objects;
    // - every read is in CloudTrail at no extra cost (KMS calls are management events, where S3
    //   object reads would need paid data events), naming the object in its encryption context;
    // - scheduling the key's deletion makes every image unreadable at once (crypto-shredding).
    // No S3 Bucket Key, on purpose: with one, KMS would see the bucket, not the object, in the
    // encryption context (losing both the per-object audit and the tenants/ condition), to save
    // KMS requests that cost $0.03 per 10,000 at a handful of images per journey.
    // Its policy names the roles that may use it, each only through S3 (lib/constructs/key-policies.ts).
    this.key = serviceKey(this, 'Key', {
      description: `Encrypts Arthr face images in S3 (${props.namePrefix})`,
      alias: `alias/${props.namePrefix}-images`,
      enableKeyRotation: true,
      // The retained bucket's objects are unreadable without it.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Server access logs: who read, wrote or deleted which image, and from where: what a security
    // team asks for on a bucket of personal data (cdk-nag S1), without paying for CloudTrail S3
    // data events. A bucket of their own: logs in the images bucket would be deleted with the
    // images they describe, and readable by whoever may read images.
    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // S3 log delivery writes only to buckets with SSE-S3 default encryption (not SSE-KMS).
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      lifecycleRules: [
        {
          id: 'ExpireAccessLogs',
          // A year for investigations; the records name tenants and instances, not people.
          expiration: Duration.days(365),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // Evidence: kept after the stack is gone.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.accessLogs.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket of the images bucket; logging its own access would log the log delivery itself, endlessly.',
    });

    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      // No ACLs: access is decided by IAM and the bucket policy alone.
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: this.key,
      bucketKeyEnabled: false,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      // No versioning: deleting an image (retention over, instance deleted) must really delete
      // the personal data. With versioning a DeleteObject only adds a delete marker and the
      // image stays, as a noncurrent version, until a lifecycle rule removes it.
      versioned: false,
      lifecycleRules: [
        {
          id: 'AbortIncompleteUploads',
          // Parts of an upload that never completed are stored (and billed) but listed nowhere.
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          id: 'RetentionBackstop',
          // Images go with their instance (the clean-up below); this catches what it ever misses.
          expiration: Duration.days(MAX_RETENTION_DAYS),
        },
      ],
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'images/',
      // Tenants' data: never deleted with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Default encryption applies when a PutObject names none (as the store's never does); a
    // request naming another algorithm or another key would store an image outside the key's
    // gate, so it is refused. (Each Null condition: "only when the request sets this header".)
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyOtherEncryption',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects('*')],
        conditions: {
          Null: { 's3:x-amz-server-side-encryption': 'false' },
          StringNotEquals: { 's3:x-amz-server-side-encryption': 'aws:kms' },
        },
      }),
    );
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyOtherKeys',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects('*')],
        conditions: {
          Null: { 's3:x-amz-server-side-encryption-aws-kms-key-id': 'false' },
          StringNotEquals: { 's3:x-amz-server-side-encryption-aws-kms-key-id': this.key.keyArn },
        },
      }),
    );

    // --- Clean-up: DynamoDB's TTL removes an instance's main item once its retention is over;
    // the table's stream hands that removal to this function, which deletes the instance's images.
    // A message here is an expired instance whose images are still in S3: it must be seen soon,
    // while the stream still holds the records it points to.
    this.cleanupDeadLetters = deadLetterQueue(this, 'CleanupDeadLetters', {
      whyNoDeadLetterQueue: 'This queue is itself the on-failure destination of the image clean-up\'s stream event source mapping.',
      alarmDescription:
        'An instance\'s retention ended but its images could not be deleted. The message names the table stream, shard and ' +
        'sequence numbers of the failed records (not the records): read them from the stream within 24 hours of the removal, ' +
        'or delete the instance\'s tenants/{tenantId}/instances/{id}/ prefix by hand; the bucket\'s lifecycle rule removes ' +
        `any image after ${MAX_RETENTION_DAYS} days regardless.`,
    });

    this.cleanup = new ServiceFunction(this, 'Cleanup', {
      functionName: ServiceFunction.physicalName(props.namePrefix, 'onInstanceExpired'),
      description: 'Deletes the images of process instances whose retention ended (DynamoDB TTL removals, from the table stream).',
      repoRoot: props.repoRoot,
      entry: 'functions/userdata/on-instance-expired.ts',
      memorySize: 256,
      // A batch of 25 instances, each one list and a few deletes.
      timeout: Duration.seconds(60),
      environment: { ...props.environment, IMAGES_BUCKET: this.bucket.bucketName },
      policyName: 'onInstanceExpired',
      roleDescription: 'Deletes expired instances\' images: lists and deletes objects under tenants/, reads the table stream.',
      statements: [
        // Listing and deleting need no key: S3 decrypts nothing for either.
        ...imageStatements(['ListBucket', 'DeleteObject'], this, stack),
        new iam.PolicyStatement({
          sid: 'FailedBatches',
          actions: ['sqs:SendMessage'],
          resources: [this.cleanupDeadLetters.queueArn],
        }),
      ],
    });
    acknowledgeImageObjects(this.cleanup.role, this.bucket);

    // What Lambda's poller needs on the stream: DescribeStream, GetShardIterator and GetRecords on
    // this table's stream, and ListStreams, which IAM authorises on `*` only.
    props.table.grantStreamRead(this.cleanup.role);
    Validations.of(this.cleanup.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams (which the Lambda stream poller needs) supports no resource-level permission, so IAM accepts only `*`; ' +
        'it lists stream ARNs, never records. Every other action of this role names its resource.',
    });

    this.cleanupMapping = new lambda.EventSourceMapping(this, 'InstanceExpiry', {
      target: this.cleanup.function,
      eventSourceArn: props.table.tableStreamArn!,
      // TRIM_HORIZON: if the mapping is ever replaced, the new one reads the stream's last 24
      // hours, so no TTL removal in between is missed. Replaying one is harmless: deleting an
      // instance's images twice deletes nothing the second time.
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 25,
      // Only DynamoDB's TTL removing an instance's main item, not a person or a function deleting
      // an item (userIdentity is set only for TTL deletions), and no other item type: the function
      // is not invoked for the rest of the table's traffic.
      filters: [
        lambda.FilterCriteria.filter({
          eventName: lambda.FilterRule.isEqual('REMOVE'),
          userIdentity: {
            type: lambda.FilterRule.isEqual('Service'),
            principalId: lambda.FilterRule.isEqual('dynamodb.amazonaws.com'),
          },
          dynamodb: { Keys: { [props.sortKey]: { S: lambda.FilterRule.isEqual('PI') } } },
        }),
      ],
      // The function reports the records it could not finish: only those are retried.
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 10,
      // A failing record holds up its shard: after 6 hours it goes to the queue, which then still
      // leaves 18 of the stream's 24 hours to read it back by the sequence numbers in the message.
      maxRecordAge: Duration.hours(6),
      onFailure: new QueueDestination(this.cleanupDeadLetters),
    });
  }
}
