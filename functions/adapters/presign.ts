import type { S3Client } from '@aws-sdk/client-s3';
import { getStoreConfig } from '../config.js';
import type { AwsCredentialIdentity } from './tenant-credentials.js';

let publicClient: Promise<S3Client> | undefined;

/** The local S3's access key id: public, as an access key id is (every pre-signed URL shows it); S3_LOCAL_SECRET is what signs. */
export const LOCAL_S3_ACCESS_KEY_ID = 'local';

/**
 * How a client of the local S3 (fauxqs at S3_ENDPOINT, its gateway at S3_PUBLIC_ENDPOINT) is
 * made: path-style, with this start's secret (S3_LOCAL_SECRET). Missing, it fails here rather
 * than sign URLs the gateway refuses, or fall back to a key someone else could know.
 */
export function localS3ClientConfig(endpoint: string) {
  const secretAccessKey = getStoreConfig().S3_LOCAL_SECRET;
  if (!secretAccessKey) throw new Error('S3_LOCAL_SECRET is not configured: the local S3 needs the secret of this start of the local runtime');
  return {
    endpoint,
    forcePathStyle: true,
    region: process.env.AWS_REGION ?? 'eu-west-1',
    credentials: { accessKeyId: LOCAL_S3_ACCESS_KEY_ID, secretAccessKey },
  };
}

/**
 * Pre-signing computes no checksum. Since 3.729 the SDK's S3 client defaults to
 * `requestChecksumCalculation: 'WHEN_SUPPORTED'`: a PutObject pre-signed without its body then
 * carries `x-amz-sdk-checksum-algorithm=CRC32&x-amz-checksum-crc32=AAAAAA==`, the CRC32 of an
 * empty body, and S3 refuses every real upload to that URL (the local S3 does not check). GET
 * URLs would carry `x-amz-checksum-mode=ENABLED` from `responseChecksumValidation`, which the
 * browser that follows the URL never validates. What binds an upload is its key, its signed
 * Content-Type and its expiry.
 */
const NO_CHECKSUMS = { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } as const;

const presigners = new WeakMap<S3Client, Promise<S3Client>>();

/**
 * The client pre-signed URLs are made with. On AWS one made from the function's own client
 * (its region and credentials): a URL is signed with the function role's credentials, so it
 * grants no more than the role may do, and no longer than those credentials live. Locally a
 * client for the local S3's gateway (S3_PUBLIC_ENDPOINT) with this start's secret, which the
 * gateway checks the signature against (and the expiry) before serving the object. Neither
 * computes checksums (NO_CHECKSUMS); the own client, which uploads bodies it has, keeps them.
 */
async function presignClient(own: S3Client, credentials?: AwsCredentialIdentity): Promise<S3Client> {
  const endpoint = getStoreConfig().S3_PUBLIC_ENDPOINT;
  if (!endpoint && credentials) {
    // Signed with these credentials (a tenant session that outlives the URL): a client of its own, no connection made.
    const { S3Client } = await import('@aws-sdk/client-s3');
    return new S3Client({ region: own.config.region, credentials, forcePathStyle: own.config.forcePathStyle, ...NO_CHECKSUMS });
  }
  if (!endpoint) {
    let made = presigners.get(own);
    if (!made) {
      made = import('@aws-sdk/client-s3').then(
        ({ S3Client }) =>
          new S3Client({
            region: own.config.region,
            credentials: own.config.credentials,
            forcePathStyle: own.config.forcePathStyle,
            ...(own.config.isCustomEndpoint && own.config.endpoint ? { endpoint: own.config.endpoint } : {}),
            ...NO_CHECKSUMS,
          }),
      );
      presigners.set(own, made);
      made.catch(() => presigners.delete(own));
    }
    return made;
  }
  publicClient ??= import('@aws-sdk/client-s3').then(({ S3Client }) => new S3Client({ ...localS3ClientConfig(endpoint), ...NO_CHECKSUMS }));
  publicClient.catch(() => (publicClient = undefined));
  return publicClient;
}

/** A pre-signed GET of one object, good for `expiresIn` seconds; `fileName` makes the download an attachment of that name. */
export async function presignGet(
  own: S3Client,
  bucket: string,
  key: string,
  opts: { expiresIn: number; fileName?: string; contentType?: string; credentials?: AwsCredentialIdentity },
): Promise<string> {
  const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]);
  return getSignedUrl(
    await presignClient(own, opts.credentials),
    new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ...(opts.fileName ? { ResponseContentDisposition: `attachment; filename="${opts.fileName}"` } : {}),
      ...(opts.contentType ? { ResponseContentType: opts.contentType } : {}),
    }),
    { expiresIn: opts.expiresIn },
  );
}

/**
 * A pre-signed PUT of one object, good for `expiresIn` seconds, with `Content-Type` among the
 * signed headers: the upload must send the headers returned, or S3 refuses its signature.
 */
export async function presignPut(
  own: S3Client,
  bucket: string,
  key: string,
  opts: { expiresIn: number; contentType: string; credentials?: AwsCredentialIdentity },
): Promise<{ url: string; headers: Record<string, string> }> {
  const [{ PutObjectCommand }, { getSignedUrl }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]);
  const url = await getSignedUrl(await presignClient(own, opts.credentials), new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: opts.contentType }), {
    expiresIn: opts.expiresIn,
    signableHeaders: new Set(['content-type']),
  });
  return { url, headers: { 'Content-Type': opts.contentType } };
}
