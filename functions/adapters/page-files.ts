/**
 * Custom page files in the pages bucket (PAGES_BUCKET): each version's bundle written once under
 * its own unguessable folder (keys.ts `objectKeys.customPagePrefix`), and the archives relying
 * parties PUT through pre-signed URLs while they wait for the create that names them.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { getStoreConfig } from '../config.js';
import { objectKeys } from '../store/keys.js';
import type { PageFileStore } from '../theme-server/model.js';
import { traced } from '../observability/tracer.js';
import { localS3ClientConfig, presignPut } from './presign.js';
import { tenantAwareClient, tenantCredentialsOf, type AwsCredentialIdentity } from './tenant-credentials.js';

interface PagesS3 {
  client: S3Client;
  bucket: string;
  commands: typeof import('@aws-sdk/client-s3');
}

/** A version's files never change (a new version is a new folder): caches keep them for a year. */
export const PAGE_FILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** Files put at once while a bundle is written. */
const PUT_CONCURRENCY = 8;

const clients = /* @__PURE__ */ tenantAwareClient(makeS3, (c) => c.client.destroy(), 16);
/** The client a call is made with: the current work's tenant session when the function has a tenant role. */
const pagesS3: () => Promise<PagesS3> = clients.forWork;
/** The process's own client (the local runtime mirrors its writes to disk and records its calls). */
export const pagesS3Own: () => Promise<PagesS3> = clients.own;

async function makeS3(credentials?: () => Promise<AwsCredentialIdentity>): Promise<PagesS3> {
  const config = getStoreConfig();
  if (!config.PAGES_BUCKET) throw new Error('PAGES_BUCKET is not configured for this function');
  const commands = await import('@aws-sdk/client-s3');
  const client = await traced(new commands.S3Client(config.S3_ENDPOINT ? localS3ClientConfig(config.S3_ENDPOINT) : credentials ? { credentials } : {}));
  return { client, bucket: config.PAGES_BUCKET, commands };
}

export type { PageFile, PageFileStore } from '../theme-server/model.js';

export const pageFileStore: PageFileStore = {
  async putFiles(tenantId, pageId, servingSecret, files) {
    const { client, bucket, commands } = await pagesS3();
    const prefix = objectKeys.customPagePrefix(tenantId, pageId, servingSecret);
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const file = files[next++]!;
        await client.send(
          new commands.PutObjectCommand({
            Bucket: bucket,
            Key: `${prefix}${file.path.slice(1)}`,
            Body: file.bytes,
            ContentType: file.contentType,
            CacheControl: PAGE_FILE_CACHE_CONTROL,
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(PUT_CONCURRENCY, files.length) }, worker));
  },

  async deleteNamed(tenantId, pageId, servingSecret, paths) {
    const { client, bucket, commands } = await pagesS3();
    const prefix = objectKeys.customPagePrefix(tenantId, pageId, servingSecret);
    for (const path of paths) await client.send(new commands.DeleteObjectCommand({ Bucket: bucket, Key: `${prefix}${path.slice(1)}` }));
  },
  deleteFiles: (tenantId, pageId) => deletePrefix(objectKeys.customPagePrefix(tenantId, pageId)),
  deleteFolder: (tenantId, pageId, servingSecret) => deletePrefix(objectKeys.customPagePrefix(tenantId, pageId, servingSecret)),

  async uploadUrl(tenantId, uploadId, expiresIn) {
    const { client, bucket } = await pagesS3();
    const roleArn = getStoreConfig().TENANT_ROLE_ARN;
    const sessions = tenantCredentialsOf(roleArn);
    const credentials = sessions ? await sessions(tenantId, (expiresIn + 60) * 1000) : undefined;
    return presignPut(client, bucket, objectKeys.customPageUpload(tenantId, uploadId), {
      expiresIn,
      contentType: 'application/octet-stream',
      ...(credentials ? { credentials } : {}),
    });
  },

  async takeUploadedArchive(tenantId, uploadId, maxBytes) {
    const { client, bucket, commands } = await pagesS3();
    const Key = objectKeys.customPageUpload(tenantId, uploadId);
    try {
      const out = await client.send(new commands.GetObjectCommand({ Bucket: bucket, Key, Range: `bytes=0-${maxBytes}` }));
      const bytes = Buffer.from(await out.Body!.transformToByteArray());
      const total = Number(/\/(\d+)$/.exec(out.ContentRange ?? '')?.[1]);
      return (Number.isFinite(total) && total > maxBytes) || bytes.length > maxBytes ? 'tooLarge' : bytes;
    } catch (err) {
      if (err instanceof Error && (err.name === 'NoSuchKey' || err.name === 'InvalidRange')) return undefined;
      throw err;
    } finally {
      await client.send(new commands.DeleteObjectCommand({ Bucket: bucket, Key })).catch(() => undefined);
    }
  },
};

async function deletePrefix(prefix: string): Promise<number> {
  const { client, bucket, commands } = await pagesS3();
  let deleted = 0;
  let token: string | undefined;
  do {
    const page = await client.send(new commands.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const object of page.Contents ?? []) {
      // One DeleteObject each: DeleteObjects would need a Content-MD5 the SDK no longer sends.
      await client.send(new commands.DeleteObjectCommand({ Bucket: bucket, Key: object.Key! }));
      deleted += 1;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return deleted;
}
