import { createHash } from 'node:crypto';
import type { RawHeaders } from '../http/wrapper.js';

/** A file the console serves, with its strong ETag (a hash of its bytes). */
export interface StaticFile {
  body: string;
  contentType: string;
  etag: string;
  /** Headers of this file's own (the page's CSP). */
  headers?: Record<string, string>;
}

export function staticFile(body: string, contentType: string, headers?: Record<string, string>): StaticFile {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, contentType, etag, ...(headers ? { headers } : {}) };
}

/**
 * The answer for a request of `file`: 304 when the browser holds this copy, else the file.
 * `no-cache`: the browser keeps it but asks each time (a 304 is cheap), so a page and its script
 * never come from two releases.
 */
export function serveStatic(file: StaticFile, headers: RawHeaders) {
  // The file's own headers on a 304 too: a browser updates the copy it holds with the 304's
  // headers, so a 304 with the default CSP would block the page's own script on a reload.
  const own = { ...file.headers, 'cache-control': 'no-cache', etag: file.etag };
  if (headers['if-none-match'] === file.etag) return { status: 304 as const, headers: own };
  return { status: 200 as const, headers: own, raw: { contentType: file.contentType, body: file.body } };
}
