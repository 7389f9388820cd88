/**
 * THE read interface of custom pages for the rest of the service (the Custom Page v1 journey
 * activity among them). Everything here reads; nothing writes.
 *
 * - `findCustomPage(store, tenantId, name, version)`: the version a journey shows, by the
 *   activity's `Custom Page Name` and `Custom Page Version` (any status but ARCHIVED; without a
 *   version, the latest DEPLOYED_ACTIVE one). Outcomes: found, missing, archived, noFiles (its
 *   archive was deleted).
 * - `customPageUrls(record)`: where a version is served, `{ origin, baseUrl, indexUrl }`:
 *   - a bundle: origin = PAGES_ORIGIN (`http://pages.localhost:{port}` locally, the CloudFront
 *     domain on AWS), baseUrl = `{origin}/tenants/{tenantId}/custom-pages/{pageId}/{servingSecret}/`
 *     (the version's folder, trailing slash; the family's `constants.baseUrl`), indexUrl =
 *     `{baseUrl}index.html` (the page's `previewUrl`);
 *   - a page that names a base app URL: origin = that URL's origin, baseUrl = the URL with a
 *     trailing slash, indexUrl = the URL as given.
 *   The files are public to whoever has the URL (the serving secret makes it unguessable),
 *   immutable, and served from an origin that is never a tenant's: a frame of it is cross-origin.
 * - `customPageStore` (functions/store/custom-pages.ts) is the store to hand in.
 */
import { getStoreConfig } from '../config.js';
import { customPageFolder } from '../shared/custom-page-folder.js';
import type { CustomPageRecord, CustomPageStore } from './model.js';

export interface CustomPageUrls {
  origin: string;
  baseUrl: string;
  indexUrl: string;
}

export type CustomPageLookup =
  | { outcome: 'found'; record: CustomPageRecord; urls: CustomPageUrls }
  | { outcome: 'missing' }
  | { outcome: 'archived'; record: CustomPageRecord }
  | { outcome: 'noFiles'; record: CustomPageRecord };

/** The pages origin, without a trailing slash; throws when the deployment has none configured. */
export function pagesOrigin(): string {
  const origin = getStoreConfig().PAGES_ORIGIN;
  if (!origin) throw new Error('PAGES_ORIGIN is not configured for this function');
  return origin.replace(/\/+$/, '');
}

/** Where a version is served; undefined for a bundle page whose archive was deleted. */
export function customPageUrls(record: Pick<CustomPageRecord, 'tenantId' | 'id' | 'baseAppUrl' | 'servingSecret'>): CustomPageUrls | undefined {
  if (record.baseAppUrl) {
    const url = new URL(record.baseAppUrl);
    return { origin: url.origin, baseUrl: record.baseAppUrl.endsWith('/') ? record.baseAppUrl : `${record.baseAppUrl}/`, indexUrl: record.baseAppUrl };
  }
  if (!record.servingSecret) return undefined;
  const origin = pagesOrigin();
  const baseUrl = `${origin}/${customPageFolder(record.tenantId, record.id, record.servingSecret)}`;
  return { origin, baseUrl, indexUrl: `${baseUrl}index.html` };
}

/**
 * The version a journey shows for (tenant, name, version): two consistent reads. Without a
 * version, the latest DEPLOYED_ACTIVE version (newest first, a page of 25 at a time).
 */
export async function findCustomPage(
  pages: Pick<CustomPageStore, 'get' | 'getVersion' | 'versionsOf'>,
  tenantId: string,
  name: string,
  version: number | undefined,
): Promise<CustomPageLookup> {
  const summary = version !== undefined ? await pages.getVersion(tenantId, name, version) : await latestActive(pages, tenantId, name);
  const record = summary && (await pages.get(tenantId, summary.id));
  if (!record) return { outcome: 'missing' };
  if (record.status === 'ARCHIVED') return { outcome: 'archived', record };
  const urls = customPageUrls(record);
  if (!urls) return { outcome: 'noFiles', record };
  return { outcome: 'found', record, urls };
}

async function latestActive(pages: Pick<CustomPageStore, 'versionsOf'>, tenantId: string, name: string) {
  const versions = pages.versionsOf(tenantId, name);
  let after: string | undefined;
  for (;;) {
    const page = await versions.read({ after, limit: 25, descending: true });
    const active = page.rows.find((r) => r.record.status === 'DEPLOYED_ACTIVE')?.record;
    after = page.rows.at(-1)?.at;
    if (active || page.done || after === undefined) return active;
  }
}
