import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { buildApp } from 'fauxqs';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export const LOCAL_IMAGES_BUCKET = 'arthr-images';

const CONTENT_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png' };

/**
 * S3 on one machine: fauxqs (as DESIGN.md says) on a free loopback port, with one bucket.
 * fauxqs keeps objects in memory only, so every object the service writes is also written to
 * `dir` (see `mirrorToDisk`), and at start what `dir` holds is put back: images survive a
 * restart like the table does.
 */
export async function startLocalS3(dir: string): Promise<{ endpoint: string; bucket: string; stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const server = await startFauxqsOnLoopback();
  const client = localS3Client(server.address);
  await client.send(new CreateBucketCommand({ Bucket: LOCAL_IMAGES_BUCKET }));
  for (const file of filesUnder(dir)) {
    const key = relative(dir, file).split(sep).join('/');
    await client.send(
      new PutObjectCommand({
        Bucket: LOCAL_IMAGES_BUCKET,
        Key: key,
        Body: readFileSync(file),
        ContentType: CONTENT_TYPES[key.split('.').pop() ?? ''] ?? 'application/octet-stream',
      }),
    );
  }
  client.destroy();
  return { endpoint: server.address, bucket: LOCAL_IMAGES_BUCKET, stop: () => server.stop() };
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

export function localS3Client(endpoint: string): S3Client {
  return new S3Client({ endpoint, forcePathStyle: true, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
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

/** Writes through to `dir` what the service's S3 client puts and deletes, once S3 accepted it. */
export function mirrorToDisk(client: S3Client, dir: string): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const command = String(context.commandName ?? '');
      const input = args.input as { Key?: string; Body?: Uint8Array };
      if (command === 'PutObjectCommand' && input.Key && input.Body instanceof Uint8Array) {
        const path = pathOf(dir, input.Key);
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        writeFileSync(path, input.Body, { mode: 0o600 });
      } else if (command === 'DeleteObjectCommand' && input.Key) {
        rmSync(pathOf(dir, input.Key), { force: true });
      }
      return out;
    },
    { step: 'initialize', name: 'localDiskMirror' },
  );
}
