import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { buildApp } from 'fauxqs';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { LOCAL_S3_ACCESS_KEY_ID } from '../../functions/adapters/presign.js';
import { BUNDLE_CONTENT_TYPES } from '../../functions/theme-server/bundle.js';

export const LOCAL_IMAGES_BUCKET = 'arthr-images';
export const LOCAL_EXPORTS_BUCKET = 'arthr-exports';
/** Custom page bundles (and their pre-signed uploads), served by the pages host (pages-host.ts). */
export const LOCAL_PAGES_BUCKET = 'arthr-pages';
const LOCAL_S3_REGION = 'eu-west-1';

/** The credentials pre-signed URLs are signed with and the gateway checks them against. */
export interface LocalS3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * Credentials for one start of the local S3: a random secret (256 bits) that only the service
 * holds. Why not a constant, as fauxqs would take: pre-signed URLs are the gateway's only check,
 * and a constant is in the source, so anyone (a tenant's cloud function included) could sign a
 * URL to any tenant's object with it. A URL signed by an earlier start is refused after a
 * restart (AWS would honour it until it expired): the secret was never written anywhere.
 */
export function newLocalS3Credentials(): LocalS3Credentials {
  return { accessKeyId: LOCAL_S3_ACCESS_KEY_ID, secretAccessKey: randomBytes(32).toString('hex') };
}

const CONTENT_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png' };

/**
 * The Content-Type an object read back from disk is put with: what the service wrote it with
 * (the disk keeps bytes only), by the key's extension. A custom page's files are each of a type
 * its bundle may hold (functions/theme-server/bundle.ts), so their extension says it.
 */
export function restoredContentType(bucket: string, key: string): string {
  const ext = (key.split('/').pop() ?? '').split('.').pop()?.toLowerCase() ?? '';
  if (bucket === LOCAL_PAGES_BUCKET && key.includes('/custom-pages/')) return BUNDLE_CONTENT_TYPES[ext] ?? 'application/octet-stream';
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/**
 * S3 on one machine: fauxqs (as DESIGN.md says) on a free loopback port, with one bucket.
 * fauxqs keeps objects in memory only, so every object the service writes is also written to
 * `dir` (see `mirrorToDisk`), and at start what `dir` holds is put back: images survive a
 * restart like the table does.
 */
export async function startLocalS3(dirs: { images: string; exports: string; pages?: string }): Promise<{
  endpoint: string;
  /** Where pre-signed URLs point: the gateway that checks them (see `startPresignedGateway`). */
  publicEndpoint: string;
  /** This start's credentials, for the service's own presigner (S3_LOCAL_SECRET) and no one else. */
  credentials: LocalS3Credentials;
  bucket: string;
  exportsBucket: string;
  pagesBucket: string;
  stop(): Promise<void>;
}> {
  const credentials = newLocalS3Credentials();
  const server = await startFauxqsOnLoopback();
  const client = localS3Client(server.address, credentials);
  for (const [bucket, dir] of [
    [LOCAL_IMAGES_BUCKET, dirs.images],
    [LOCAL_EXPORTS_BUCKET, dirs.exports],
    [LOCAL_PAGES_BUCKET, dirs.pages],
  ] as const) {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    if (dir === undefined) continue;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const file of filesUnder(dir)) {
      const key = relative(dir, file).split(sep).join('/');
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: readFileSync(file),
          ContentType: restoredContentType(bucket, key),
        }),
      );
    }
  }
  // What relying parties PUT through pre-signed URLs (face uploads) survives a restart too.
  mirrorToDisk(client, LOCAL_IMAGES_BUCKET, dirs.images);
  // ...and so do the custom page archives PUT through pre-signed upload URLs.
  if (dirs.pages !== undefined) mirrorToDisk(client, LOCAL_PAGES_BUCKET, dirs.pages);
  const gateway = await startPresignedGateway(client, credentials);
  return {
    endpoint: server.address,
    publicEndpoint: gateway.endpoint,
    credentials,
    bucket: LOCAL_IMAGES_BUCKET,
    exportsBucket: LOCAL_EXPORTS_BUCKET,
    pagesBucket: LOCAL_PAGES_BUCKET,
    stop: async () => {
      await gateway.close();
      client.destroy();
      await server.stop();
    },
  };
}

/**
 * fauxqs's server on a free port of 127.0.0.1. Its `startFauxqs` listens on every interface
 * whatever `host` says (the option only names the host in queue URLs), which would let anyone
 * who reaches this machine read every tenant's face images: its app is started here instead.
 */
async function startFauxqsOnLoopback(): Promise<{ address: string; stop(): Promise<void> }> {
  const app = buildApp({ logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { address, stop: () => app.close() };
}

/** A client of fauxqs itself, which takes any credentials (it is on loopback, and no tenant code may reach it). */
export function localS3Client(endpoint: string, credentials: LocalS3Credentials): S3Client {
  return new S3Client({ endpoint, forcePathStyle: true, region: LOCAL_S3_REGION, credentials });
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** SHA-256 (and HMAC-SHA-256 with a secret) as the SDK's signer takes it. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

/** The query parameters a pre-signature adds (the rest were signed as part of the request). */
const SIGNATURE_PARAMS = /^X-Amz-(Algorithm|Credential|Date|Expires|SignedHeaders|Signature|Content-Sha256)$/;
/** The longest a SigV4 pre-signed URL may be valid, as S3 allows: 7 days. */
const MAX_EXPIRES = 604_800;

/**
 * Whether a pre-signed URL is good now, as S3 decides: a SigV4 query signature by `credentials`
 * (this start's) over this method, host, path, query and the headers it signed (a pre-signed PUT
 * may sign its Content-Type: the request must then send that value), made no later than now,
 * and not past its X-Amz-Expires. Its bucket and key when it is; why not otherwise.
 */
export async function checkPresigned(
  credentials: LocalS3Credentials,
  url: URL,
  method: string,
  now: Date,
  requestHeaders: Readonly<Record<string, string | string[] | undefined>> = {},
): Promise<{ ok: true; bucket: string; key: string } | { ok: false; reason: string }> {
  const q = url.searchParams;
  const date = q.get('X-Amz-Date') ?? '';
  const expires = Number(q.get('X-Amz-Expires'));
  const signature = q.get('X-Amz-Signature') ?? '';
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !/^\d{8}T\d{6}Z$/.test(date) || !/^[0-9a-f]{64}$/.test(signature)) {
    return { ok: false, reason: 'Not a pre-signed URL (query-string authentication is required).' };
  }
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES) return { ok: false, reason: 'X-Amz-Expires must be from 1 to 604800 seconds.' };
  if (!(q.get('X-Amz-Credential') ?? '').startsWith(`${credentials.accessKeyId}/`)) return { ok: false, reason: 'The AWS access key id does not exist in our records.' };
  const signedAt = Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8), +date.slice(9, 11), +date.slice(11, 13), +date.slice(13, 15));
  if (signedAt > now.getTime() + 15 * 60_000) return { ok: false, reason: 'Request is not yet valid.' };
  if (now.getTime() > signedAt + expires * 1000) return { ok: false, reason: 'Request has expired.' };
  const query: Record<string, string> = {};
  for (const [k, v] of q) if (!SIGNATURE_PARAMS.test(k)) query[k] = v;
  const headers: Record<string, string> = { host: url.host };
  for (const name of (q.get('X-Amz-SignedHeaders') ?? 'host').split(';')) {
    if (name === 'host') continue;
    const value = requestHeaders[name];
    if (value === undefined) return { ok: false, reason: `The request does not send the signed header ${name}.` };
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const presigner = new S3RequestPresigner({ credentials, region: LOCAL_S3_REGION, sha256: Sha256 });
  const expected = await presigner.presign(
    { method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port) || undefined, path: url.pathname, query, headers } as never,
    { signingDate: new Date(signedAt), expiresIn: expires, signableHeaders: new Set(Object.keys(headers).filter((h) => h !== 'host')) },
  );
  const want = Buffer.from(String(expected.query?.['X-Amz-Signature'] ?? ''), 'hex');
  const got = Buffer.from(signature, 'hex');
  if (want.length !== got.length || !timingSafeEqual(want, got)) {
    return { ok: false, reason: 'The request signature we calculated does not match the signature you provided.' };
  }
  const [, bucket, ...key] = url.pathname.split('/');
  if (!bucket || key.length === 0) return { ok: false, reason: 'No object named.' };
  return { ok: true, bucket, key: key.map(decodeURIComponent).join('/') };
}

function s3Error(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message.replace(/[<>&]/g, '')}</Message></Error>`;
}

/** The largest object a pre-signed PUT stores here (a face image is at most a few MB). */
export const PRESIGNED_PUT_MAX_BYTES = 20 * 1024 * 1024;

/**
 * What S3 does with a pre-signed URL, on one machine: fauxqs serves any request unsigned, so
 * pre-signed URLs point here instead, and this gateway serves the object (GET) or stores it
 * (PUT) only when the URL's signature (by `credentials`, which only the service holds) and
 * expiry check out (403 AccessDenied otherwise, as S3), with the response headers the URL asked
 * for (`response-content-disposition`, `response-content-type`).
 */
export async function startPresignedGateway(
  client: S3Client,
  credentials: LocalS3Credentials,
): Promise<{ endpoint: string; server: Server; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'PUT') {
        res.writeHead(405, { 'content-type': 'application/xml' }).end(s3Error('MethodNotAllowed', 'Only GET or PUT by a pre-signed URL here.'));
        return;
      }
      const checked = await checkPresigned(credentials, url, req.method, new Date(), req.headers);
      if (!checked.ok) {
        res.writeHead(403, { 'content-type': 'application/xml' }).end(s3Error('AccessDenied', checked.reason));
        return;
      }
      if (req.method === 'PUT') {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of req) {
          size += (chunk as Buffer).length;
          if (size > PRESIGNED_PUT_MAX_BYTES) {
            res.writeHead(400, { 'content-type': 'application/xml', connection: 'close' }).end(s3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.'));
            return;
          }
          chunks.push(chunk as Buffer);
        }
        const out = await client.send(
          new PutObjectCommand({ Bucket: checked.bucket, Key: checked.key, Body: Buffer.concat(chunks), ContentType: req.headers['content-type'] ?? 'application/octet-stream' }),
        );
        res.writeHead(200, { etag: out.ETag ?? '""' }).end();
        return;
      }
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: checked.bucket, Key: checked.key }));
        const body = Buffer.from(await out.Body!.transformToByteArray());
        const headers: Record<string, string> = {
          'content-type': url.searchParams.get('response-content-type') ?? out.ContentType ?? 'application/octet-stream',
          'content-length': String(body.length),
        };
        const disposition = url.searchParams.get('response-content-disposition');
        if (disposition) headers['content-disposition'] = disposition;
        res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
      } catch (err) {
        if (err instanceof Error && err.name === 'NoSuchKey') res.writeHead(404, { 'content-type': 'application/xml' }).end(s3Error('NoSuchKey', 'The specified key does not exist.'));
        else throw err;
      }
    } catch {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/xml' }).end(s3Error('InternalError', 'We encountered an internal error.'));
    }
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const port = (server.address() as { port: number }).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** A key as a path under `dir`, refusing any that would leave it. */
function pathOf(dir: string, key: string): string {
  const path = resolve(dir, ...key.split('/'));
  if (!path.startsWith(resolve(dir) + sep)) throw new Error(`object key outside the local S3 folder: ${key}`);
  return path;
}

/** Writes through to `dir` what the service's S3 client puts into and deletes from `bucket`, once S3 accepted it. */
export function mirrorToDisk(client: S3Client, bucket: string, dir: string): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const command = String(context.commandName ?? '');
      const input = args.input as { Bucket?: string; Key?: string; Body?: Uint8Array | string };
      if (input.Bucket !== bucket) return out;
      if (command === 'PutObjectCommand' && input.Key && typeof input.Body === 'string') {
        const path = pathOf(dir, input.Key);
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        writeFileSync(path, input.Body, { mode: 0o600 });
      } else if (command === 'PutObjectCommand' && input.Key && input.Body instanceof Uint8Array) {
        const path = pathOf(dir, input.Key);
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        writeFileSync(path, input.Body, { mode: 0o600 });
      } else if (command === 'DeleteObjectCommand' && input.Key) {
        rmSync(pathOf(dir, input.Key), { force: true });
      }
      return out;
    },
    { step: 'initialize', name: `localDiskMirror:${bucket}` },
  );
}
