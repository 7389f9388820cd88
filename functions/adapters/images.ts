import type { S3Client } from '@aws-sdk/client-s3';
import { getStoreConfig } from '../config.js';
import type { InstanceImageStore } from '../process-manager/model.js';
import { objectKeys } from '../store/keys.js';
import { localS3ClientConfig, presignGet, presignPut } from './presign.js';
import { traced } from '../observability/tracer.js';
import { tenantAwareClient, tenantCredentialsOf, type AwsCredentialIdentity } from './tenant-credentials.js';

export interface S3 {
  client: S3Client;
  bucket: string;
  commands: typeof import('@aws-sdk/client-s3');
}

/** Tenants whose S3 clients a container keeps. */
const KEPT_TENANT_S3_CLIENTS = 16;

/**
 * The S3 client to call with, loaded at first use like the DynamoDB one (see store/client.ts),
 * and like it, as the tenant role assumed for the current work's tenant when the function has
 * one (TENANT_ROLE_ARN): its grants reach `tenants/{that tenant}/` only. Work that names no
 * tenant is refused then, before any call.
 */
export const s3: () => Promise<S3> = tenantAwareClient(makeS3, (c) => c.client.destroy(), KEPT_TENANT_S3_CLIENTS).forWork;

async function makeS3(credentials?: () => Promise<AwsCredentialIdentity>): Promise<S3> {
  const config = getStoreConfig();
  if (!config.IMAGES_BUCKET) throw new Error('IMAGES_BUCKET is not configured for this function');
  const commands = await import('@aws-sdk/client-s3');
  const client = await traced(new commands.S3Client(config.S3_ENDPOINT ? localS3ClientConfig(config.S3_ENDPOINT) : credentials ? { credentials } : {}));
  return { client, bucket: config.IMAGES_BUCKET, commands };
}

/**
 * Credentials that outlive a pre-signed URL good for `expiresIn` seconds, when the function signs
 * as a tenant session (which ends within the hour): a URL lives no longer than what signed it.
 */
async function signingCredentials(tenantId: string, expiresIn: number): Promise<AwsCredentialIdentity | undefined> {
  const credentials = tenantCredentialsOf(getStoreConfig().TENANT_ROLE_ARN);
  return credentials ? credentials(tenantId, (expiresIn + 60) * 1000) : undefined;
}

/** Every read and pre-signing goes only through the instance's own prefix. */
function ownKey(tenantId: string, processInstanceId: string, objectKey: string): void {
  if (!objectKey.startsWith(objectKeys.instancePrefix(tenantId, processInstanceId))) throw new Error('an image key outside its instance');
}

/** The images of process instances, in S3 under `tenants/{tenantId}/instances/{id}/`. */
export const imageStore: InstanceImageStore = {
  /** Stores an image; the key is built by `objectKeys`, so it is always under its tenant and instance. */
  async put(objectKey, bytes, contentType, sha256) {
    const { client, bucket, commands } = await s3();
    await client.send(
      new commands.PutObjectCommand({
        Bucket: bucket,
        Key: objectKey,
        Body: bytes,
        ContentType: contentType,
        // S3 checks the bytes it received against this digest and refuses the upload otherwise.
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
      }),
    );
  },

  /** An instance's image, read only through the instance's own prefix; undefined when absent. */
  async get(tenantId, processInstanceId, objectKey) {
    ownKey(tenantId, processInstanceId, objectKey);
    const { client, bucket, commands } = await s3();
    try {
      const out = await client.send(new commands.GetObjectCommand({ Bucket: bucket, Key: objectKey }));
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (err) {
      if (err instanceof Error && err.name === 'NoSuchKey') return undefined;
      throw err;
    }
  },

  /** A ranged GET of the first `maxBytes + 1` bytes: more than `maxBytes` came back, or S3 says the object is larger. */
  async getAtMost(tenantId, processInstanceId, objectKey, maxBytes) {
    ownKey(tenantId, processInstanceId, objectKey);
    const { client, bucket, commands } = await s3();
    try {
      const out = await client.send(new commands.GetObjectCommand({ Bucket: bucket, Key: objectKey, Range: `bytes=0-${maxBytes}` }));
      const total = Number(/\/(\d+)$/.exec(out.ContentRange ?? '')?.[1]);
      if (Number.isFinite(total) && total > maxBytes) {
        out.Body?.transformToWebStream().cancel().catch(() => undefined);
        return 'tooLarge';
      }
      const bytes = Buffer.from(await out.Body!.transformToByteArray());
      return bytes.length > maxBytes ? 'tooLarge' : bytes;
    } catch (err) {
      if (err instanceof Error && err.name === 'NoSuchKey') return undefined;
      // S3 answers a range of an empty object 416.
      if (err instanceof Error && err.name === 'InvalidRange') return Buffer.alloc(0);
      throw err;
    }
  },

  /** A pre-signed GET of an image, only through the instance's own prefix (the function's role signs it). */
  async url(tenantId, processInstanceId, objectKey, expiresIn) {
    ownKey(tenantId, processInstanceId, objectKey);
    const { client, bucket } = await s3();
    const credentials = await signingCredentials(tenantId, expiresIn);
    return presignGet(client, bucket, objectKey, { expiresIn, ...(credentials ? { credentials } : {}) });
  },

  /** A pre-signed PUT of an image, only under the instance's own prefix, signed with its Content-Type. */
  async uploadUrl(tenantId, processInstanceId, objectKey, contentType, expiresIn) {
    ownKey(tenantId, processInstanceId, objectKey);
    const { client, bucket } = await s3();
    const credentials = await signingCredentials(tenantId, expiresIn);
    return presignPut(client, bucket, objectKey, { expiresIn, contentType, ...(credentials ? { credentials } : {}) });
  },

  /** Deletes everything an instance stored (its retention ended). Returns how many objects went. */
  async deleteInstance(tenantId, processInstanceId) {
    const { client, bucket, commands } = await s3();
    const prefix = objectKeys.instancePrefix(tenantId, processInstanceId);
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = await client.send(new commands.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
      const objects = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      for (const { Key } of objects) {
        // One DeleteObject per image: an instance holds a handful, and DeleteObjects would
        // need a Content-MD5 the SDK no longer sends by default.
        await client.send(new commands.DeleteObjectCommand({ Bucket: bucket, Key }));
        deleted += 1;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  },
};
