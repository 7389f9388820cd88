import type { IncomingMessage, ServerResponse } from 'node:http';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { pagesFrameAncestors } from '../pages-frame.js';

/** The local tenant hosts' parent domain: `{tenantId}.fir.localhost`. */
const LOCAL_TENANT_HOSTS = 'fir.localhost';

/**
 * Custom page bundles, served read-only from an origin of their own, as CloudFront serves the
 * pages bucket on AWS (lib/constructs/pages.ts): `http://pages.localhost:{port}`, the runtime's
 * port under another host name (browsers resolve every `*.localhost` to loopback). Another
 * origin than the tenant hosts (`{tenantId}.fir.localhost`), so a page's scripts never run with
 * the journey's or the API's origin.
 *
 * The URL path is the object key: `/tenants/{tenantId}/custom-pages/{pageId}/{servingSecret}/{path}`.
 * The secret (128 random bits per version) makes the URL unguessable, and that is the only
 * thing between a reader and a page: no token, as the family's clients fetch `previewUrl` and
 * its files. Nothing outside `tenants/{t}/custom-pages/` is served (the bucket holds the
 * uploads too), nothing is listed, and only GET and HEAD are taken.
 */
export const PAGES_HOST_NAME = 'pages.localhost';

/** The pages origin of a runtime on `port`: what PAGES_ORIGIN is set to. */
export function localPagesOrigin(port: number): string {
  return `http://${PAGES_HOST_NAME}:${port}`;
}

/** Whether a request's Host names the pages origin (with any port, or none). */
export function isPagesHost(host: string | undefined): boolean {
  return (host ?? '').toLowerCase().replace(/:\d{1,5}$/, '') === PAGES_HOST_NAME;
}

/** What every bundle file is stored with (functions write it so); the same here when the store had none. */
export const PAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** `tenants/{tenantId}/custom-pages/{pageId}/{secret}/{at least one more segment}` and nothing else. */
const SERVED_KEY = /^tenants\/[^/]+\/custom-pages\/[^/]+\/[^/]+\/.+$/;

/** The object key a URL path names, or undefined when it names nothing servable (bad escapes, `..`, empty segments, outside custom pages). */
export function pageKeyOf(pathname: string): string | undefined {
  let segments: string[];
  try {
    segments = pathname.slice(1).split('/').map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  // S3 itself would take these as literal key characters; a bundle's keys never hold them.
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\') || s.includes('\0'))) return undefined;
  const key = segments.join('/');
  return SERVED_KEY.test(key) ? key : undefined;
}

const PLAIN = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };

/**
 * The request handler of the pages host: the object at the path's key from `bucket`, with its
 * stored Content-Type, `nosniff`, its ETag (a matching If-None-Match gets 304) and the immutable
 * Cache-Control; 404 for anything else, 405 for other methods.
 */
export function pagesHostHandler(client: S3Client, bucket: string, port?: number): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  // As CloudFront's response headers policy says (lib/constructs/pages.ts): framed only by the journey pages, the tenant hosts.
  const frameAncestors = pagesFrameAncestors(port ? `http://*.${LOCAL_TENANT_HOSTS}:${port}` : `http://*.${LOCAL_TENANT_HOSTS}:*`);
  return async (req, res) => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { ...PLAIN, allow: 'GET, HEAD' }).end('Only GET and HEAD here.\n');
      return;
    }
    const key = pageKeyOf(new URL(req.url ?? '/', 'http://pages.localhost').pathname);
    const notFound = () => res.writeHead(404, PLAIN).end(method === 'HEAD' ? undefined : 'Not found.\n');
    if (!key) return void notFound();
    let out;
    try {
      out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    } catch (err) {
      if (err instanceof Error && (err.name === 'NoSuchKey' || err.name === 'NotFound')) return void notFound();
      res.writeHead(500, PLAIN).end('The page could not be read.\n');
      return;
    }
    const body = Buffer.from(await out.Body!.transformToByteArray());
    const etag = out.ETag ?? '';
    const headers: Record<string, string> = {
      'content-type': out.ContentType ?? 'application/octet-stream',
      'cache-control': out.CacheControl ?? PAGE_CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
      // The URL carries the version's secret: a page's requests to CDNs send the origin only.
      'referrer-policy': 'strict-origin-when-cross-origin',
      'content-security-policy': frameAncestors,
      ...(etag && { etag }),
    };
    const ifNoneMatch = req.headers['if-none-match'];
    if (etag && ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) {
      res.writeHead(304, headers).end();
      return;
    }
    headers['content-length'] = String(body.length);
    res.writeHead(200, headers).end(method === 'HEAD' ? undefined : body);
  };
}
