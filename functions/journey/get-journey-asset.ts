import { createHash } from 'node:crypto';
import { apiHandler } from '../http/wrapper.js';
import { CUSTOM_PAGE_JS, DATA_FORM_JS, DOCUMENT_CAPTURE_JS, FACE_CAPTURE_JS, PAGE_JS, PASSCODE_JS, PASSKEY_JS } from './assets.generated.js';
import { journeyRoutes as routes } from './journey-routes.js';

const ASSETS = { 'custom-page.js': CUSTOM_PAGE_JS, 'data-form.js': DATA_FORM_JS, 'document-capture.js': DOCUMENT_CAPTURE_JS, 'face-capture.js': FACE_CAPTURE_JS, 'passcode.js': PASSCODE_JS, 'passkey.js': PASSKEY_JS, 'page.js': PAGE_JS } as const;
const ETAGS = Object.fromEntries(
  Object.entries(ASSETS).map(([name, body]) => [name, `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`]),
);

/** The journey pages' scripts, from the service's own origin (the pages' CSP allows no other). */
export const handler = apiHandler(routes.getJourneyAsset, async ({ path, headers }) => {
  const etag = ETAGS[path.asset]!;
  const caching = { 'cache-control': 'public, max-age=300', etag };
  if (headers['if-none-match'] === etag) return { status: 304, headers: caching };
  return { status: 200, headers: caching, raw: { contentType: 'text/javascript; charset=utf-8', body: ASSETS[path.asset] } };
});
