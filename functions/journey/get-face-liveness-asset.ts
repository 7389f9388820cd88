import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { apiError } from '../errors.js';
import { apiHandler } from '../http/wrapper.js';
import { FACE_LIVENESS_ASSET, faceLivenessAvailable } from '../faces/liveness-service.js';
import { journeyRoutes as routes } from './journey-routes.js';

export class FaceLivenessNotAvailableError extends apiError('FACE_LIVENESS_NOT_AVAILABLE') {}

interface Loaded {
  plain: Buffer;
  gzip: Buffer;
  etag: string;
}
let loaded: Promise<Loaded> | undefined;

/** Read once per container: the file beside the bundle (FACE_LIVENESS_ASSET_DIR overrides where). */
function load(): Promise<Loaded> {
  loaded ??= (async () => {
    const dir = process.env.FACE_LIVENESS_ASSET_DIR ?? dirname(fileURLToPath(import.meta.url));
    const plain = await readFile(join(dir, FACE_LIVENESS_ASSET));
    return { plain, gzip: gzipSync(plain, { level: 9 }), etag: `"${createHash('sha256').update(plain).digest('base64url').slice(0, 22)}"` };
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

const acceptsGzip = (header: string | undefined) => /(^|,)\s*gzip\s*(;\s*q=(?!0(\.0*)?\s*(,|$))[\d.]+)?\s*(,|$)/i.test(header ?? '');

/**
 * The Face Liveness capture's script (Amazon's FaceLivenessDetectorCore, React), from the
 * service's own origin: only where the deployment has Rekognition Face Liveness. Compressed for
 * a browser that takes gzip (a fifth of its size; the HTTP API compresses nothing itself).
 */
export const handler = apiHandler(routes.getFaceLivenessAsset, async ({ headers }) => {
  if (!faceLivenessAvailable()) throw new FaceLivenessNotAvailableError('This deployment has no Rekognition Face Liveness: no page uses this script.');
  const asset = await load();
  const caching = { 'cache-control': 'public, max-age=300', etag: asset.etag, vary: 'accept-encoding' };
  if (headers['if-none-match'] === asset.etag) return { status: 304, headers: caching };
  const gzip = acceptsGzip(headers['accept-encoding']);
  return {
    status: 200,
    headers: { ...caching, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    raw: { contentType: 'text/javascript; charset=utf-8', body: gzip ? asset.gzip : asset.plain },
  };
});
