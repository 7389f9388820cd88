/**
 * Custom pages, in the family's name / versions / id / status pattern (as data forms): each
 * upload is a new version with a new id, its files written once under the version's own random
 * folder of the pages bucket (functions/adapters/page-files.ts) and served from the pages origin
 * (custom-page-reader.ts). A page is a bundle (`archive` as base64, or `uploadId` of a
 * pre-signed upload) or names a base app URL (https) instead.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ConcurrentUpdateError, InvalidTransitionError, apiError } from '../errors.js';
import { addVersion, getVersioned, setVersionedStatus, uploadedVersionView, versionsPage, type VersionedKindOf } from '../process-manager/versioned.js';
import { keyedPage, sortedPage } from '../shared/keyed-list.js';
import { parseSort } from '../shared/page.js';
import { ValidationError } from '../errors.js';
import { BUNDLE_LIMITS, BundleTooLargeError, readBundle, type Bundle } from './bundle.js';
import { customPageUrls } from './custom-page-reader.js';
import type { CustomPageRecord, CustomPageStatus, CustomPageStore, CustomPageSummary, PageFileStore } from './model.js';

export class CustomPageExistsError extends apiError('CUSTOM_PAGE_EXISTS') {
  constructor(name: string, version: number) {
    super(`Custom page "${name}" version ${version} already exists; a version is immutable, add the next one instead.`);
  }
}
export class CustomPageNotFoundError extends apiError('CUSTOM_PAGE_NOT_FOUND') {
  constructor(what: string) {
    super(`Custom page ${what} was not found.`);
  }
}
export class CustomPageContentError extends apiError('CUSTOM_PAGE_CONTENT') {}
export class CustomPageUploadError extends apiError('CUSTOM_PAGE_UPLOAD_UNUSABLE') {}

/** How long a pre-signed upload URL (and its upload id) stays good. */
export const UPLOAD_EXPIRES_SECONDS = 15 * 60;

export const CUSTOM_PAGE_SORTABLE = ['version', 'status', 'createdDtm', 'lastUpdatedDtm'] as const;
export const CUSTOM_PAGE_LIST_SORTABLE = ['name', 'version', 'status', 'createdDtm', 'lastUpdatedDtm'] as const;

export function customPageSummary(r: CustomPageSummary) {
  return uploadedVersionView(r);
}

const PAGES: VersionedKindOf<CustomPageRecord, CustomPageSummary, ReturnType<typeof customPageSummary>> = {
  noun: 'custom page',
  exists: (name, version) => new CustomPageExistsError(name, version),
  notFound: (id) => new CustomPageNotFoundError(id),
  summary: customPageSummary,
  sortable: CUSTOM_PAGE_SORTABLE,
};

/** A version as the API answers it: the summary, its files and where it is served. */
export function customPageView(r: CustomPageRecord) {
  const urls = customPageUrls(r);
  return {
    ...customPageSummary(r),
    baseAppUrl: r.baseAppUrl,
    archiveEntries: r.archiveEntries.map((path) => ({ path })),
    archiveSize: r.archiveBytes,
    previewUrl: urls?.indexUrl ?? null,
    baseUrl: urls?.baseUrl ?? null,
  };
}

/** What a create or an update may carry as the page's content: one of the three. */
export interface PageContent {
  archive?: string | null | undefined;
  uploadId?: string | null | undefined;
  baseAppUrl?: string | null | undefined;
}

export interface NewCustomPage extends PageContent {
  name: string;
  description?: string | null | undefined;
  version?: number | null | undefined;
  status?: CustomPageStatus | null | undefined;
  creationOption?: string | null | undefined;
}

export interface CustomPageDeps {
  pages: CustomPageStore;
  files: PageFileStore;
}

interface Ctx {
  tenantId: string;
  actor: string;
  now: Date;
}

/** The content as files to write (a bundle) or a URL; refusals as their own 400s. */
async function contentOf(files: Pick<PageFileStore, 'takeUploadedArchive'>, pages: Pick<CustomPageStore, 'takeUpload'>, input: PageContent, ctx: Ctx) {
  const given = [input.archive, input.uploadId, input.baseAppUrl].filter((v) => v !== undefined && v !== null && v !== '');
  if (given.length !== 1) {
    throw new CustomPageContentError('A custom page takes exactly one of archive (base64), uploadId (a pre-signed upload) or baseAppUrl.');
  }
  if (input.baseAppUrl) return { kind: 'url' as const, baseAppUrl: input.baseAppUrl };
  if (input.uploadId) {
    const upload = await pages.takeUpload(ctx.tenantId, input.uploadId);
    if (!upload || Date.parse(upload.expiresAt) < ctx.now.getTime()) {
      throw new CustomPageUploadError(`Upload ${input.uploadId} is unknown to this tenant, expired or already used; ask for a new one.`);
    }
    const archive = await files.takeUploadedArchive(ctx.tenantId, input.uploadId, BUNDLE_LIMITS.maxArchiveBytes);
    if (archive === undefined) throw new CustomPageUploadError(`Nothing was PUT to upload ${input.uploadId}.`);
    if (archive === 'tooLarge') throw new BundleTooLargeError(`The uploaded archive is over ${BUNDLE_LIMITS.maxArchiveBytes} bytes.`);
    return { kind: 'bundle' as const, bundle: await readBundle(archive) };
  }
  return { kind: 'bundle' as const, bundle: await readBundle(decodeBase64(input.archive!)) };
}

/** The family's `archive`: standard base64 (a `data:...;base64,` prefix and line breaks tolerated). */
export function decodeBase64(value: string): Buffer {
  const body = value.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(body)) throw new ValidationError('The archive is not base64.', [{ location: 'body.archive', message: 'must be the archive in base64' }]);
  // Decoded length without decoding, so a body far over the limit is refused before it is copied.
  if (Math.floor((body.length * 3) / 4) > BUNDLE_LIMITS.maxArchiveBytes + 2) {
    throw new BundleTooLargeError(`The archive is over ${BUNDLE_LIMITS.maxArchiveBytes} bytes.`);
  }
  return Buffer.from(body, 'base64');
}

function fields(content: { kind: 'url'; baseAppUrl: string } | { kind: 'bundle'; bundle: Bundle }) {
  if (content.kind === 'url') return { baseAppUrl: content.baseAppUrl, servingSecret: null, archiveEntries: [], archiveBytes: 0 };
  return {
    baseAppUrl: null,
    servingSecret: randomBytes(16).toString('hex'),
    archiveEntries: content.bundle.files.map((f) => f.path),
    archiveBytes: content.bundle.totalBytes,
  };
}

/** Adds a version: reads the content under the bundle rules, stores the record, then writes its files. */
export async function addCustomPage(deps: CustomPageDeps, input: NewCustomPage, ctx: Ctx): Promise<CustomPageRecord> {
  const content = await contentOf(deps.files, deps.pages, input, ctx);
  const record = await addVersion(
    PAGES,
    deps.pages,
    { name: input.name, description: input.description, version: input.version, status: input.status ?? 'EDITABLE' },
    { creationOption: input.creationOption ?? null, ...fields(content) },
    ctx,
  );
  if (content.kind === 'bundle') {
    try {
      await deps.files.putFiles(ctx.tenantId, record.id, record.servingSecret!, content.bundle.files);
    } catch (err) {
      // No version without its files: undo the record (and whatever files went).
      await deps.pages.remove(record).catch(() => undefined);
      await deps.files.deleteNamed(ctx.tenantId, record.id, record.servingSecret!, record.archiveEntries).catch(() => undefined);
      throw err;
    }
  }
  return record;
}

/** A preview: the bundle read under the same rules and served like a version, without a version. */
export async function previewCustomPage(deps: CustomPageDeps, input: PageContent, ctx: Ctx) {
  const content = await contentOf(deps.files, deps.pages, input, ctx);
  const previewId = randomUUID();
  const stored = { tenantId: ctx.tenantId, id: previewId, ...fields(content) };
  if (content.kind === 'bundle') await deps.files.putFiles(ctx.tenantId, previewId, stored.servingSecret!, content.bundle.files);
  const urls = customPageUrls(stored)!;
  return { previewId, previewUrl: urls.indexUrl, baseUrl: urls.baseUrl, archiveEntries: stored.archiveEntries.map((path) => ({ path })) };
}

export function getCustomPage(pages: Pick<CustomPageStore, 'get'>, tenantId: string, id: string): Promise<CustomPageRecord> {
  return getVersioned(PAGES, pages, tenantId, id);
}

export async function getCustomPageByNameVersion(pages: Pick<CustomPageStore, 'get' | 'getVersion'>, tenantId: string, name: string, version: number): Promise<CustomPageRecord> {
  const summary = await pages.getVersion(tenantId, name, version);
  const record = summary && (await pages.get(tenantId, summary.id));
  if (!record) throw new CustomPageNotFoundError(`"${name}" version ${version}`);
  return record;
}

export function setCustomPageStatus(pages: Pick<CustomPageStore, 'get' | 'setStatus'>, input: Ctx & { id: string; status: CustomPageStatus }): Promise<CustomPageRecord> {
  return setVersionedStatus(PAGES, pages, input);
}

/**
 * Updates a version from the page object: its description always; its content (a new archive,
 * upload or URL) only while it is a draft (DRAFT or EDITABLE), since journeys may show a
 * deployed one. New files go to a new folder, and the old folder's files are deleted.
 */
export async function updateCustomPage(deps: CustomPageDeps, id: string, input: PageContent & { description?: string | null | undefined }, ctx: Ctx): Promise<CustomPageRecord> {
  const record = await getCustomPage(deps.pages, ctx.tenantId, id);
  const changesContent = [input.archive, input.uploadId, input.baseAppUrl].some((v) => v !== undefined && v !== null && v !== '');
  if (changesContent && record.status !== 'DRAFT' && record.status !== 'EDITABLE') {
    throw new InvalidTransitionError(`A ${record.status} custom page's content does not change; add a new version instead.`);
  }
  const content = changesContent ? await contentOf(deps.files, deps.pages, input, ctx) : undefined;
  const next: CustomPageRecord = {
    ...record,
    ...(input.description !== undefined && input.description !== null ? { description: input.description } : {}),
    ...(content ? fields(content) : {}),
    lastUpdatedDtm: ctx.now.toISOString(),
    lastUpdatedBy: ctx.actor,
  };
  if (content?.kind === 'bundle') await deps.files.putFiles(ctx.tenantId, record.id, next.servingSecret!, content.bundle.files);
  const outcome = await deps.pages.replace(next, record.lastUpdatedDtm);
  if (outcome.outcome === 'gone') throw new CustomPageNotFoundError(id);
  if (outcome.outcome === 'changed') throw new ConcurrentUpdateError();
  if (content && record.servingSecret) await deleteFolder(deps, record);
  return next;
}

/** Deletes the files of the old folder only (the page's prefix holds the new one too). */
async function deleteFolder(deps: CustomPageDeps, record: CustomPageRecord): Promise<void> {
  // Folders are per version of the content; deleting every file of the page then rewriting the
  // new folder would leave a moment without files, so only the old folder goes.
  await deps.files.deleteFolder(record.tenantId, record.id, record.servingSecret!);
}

/** Deletes a version's files; the version stays, without entries (and without a previewUrl). */
export async function deleteCustomPageArchive(deps: CustomPageDeps, id: string, ctx: Ctx): Promise<CustomPageRecord> {
  const record = await getCustomPage(deps.pages, ctx.tenantId, id);
  await deps.files.deleteFiles(ctx.tenantId, id);
  const next: CustomPageRecord = { ...record, servingSecret: null, archiveEntries: [], archiveBytes: 0, lastUpdatedDtm: ctx.now.toISOString(), lastUpdatedBy: ctx.actor };
  const outcome = await deps.pages.replace(next, record.lastUpdatedDtm);
  if (outcome.outcome === 'gone') throw new CustomPageNotFoundError(id);
  if (outcome.outcome === 'changed') throw new ConcurrentUpdateError();
  return next;
}

/**
 * Deletes a version and its files. As with data forms, nothing checks whether a definition
 * names it: a journey that reaches a deleted page fails its step as for a missing one.
 */
export async function deleteCustomPage(deps: CustomPageDeps, id: string, ctx: Ctx): Promise<void> {
  const record = await getCustomPage(deps.pages, ctx.tenantId, id);
  await deps.files.deleteFiles(ctx.tenantId, id);
  if (!(await deps.pages.remove(record))) throw new CustomPageNotFoundError(id);
}

/** Asks for a pre-signed upload: an id to name in the create, a URL to PUT the archive to. */
export async function startCustomPageUpload(deps: CustomPageDeps, ctx: Ctx) {
  const uploadId = randomUUID();
  const expiresAt = new Date(ctx.now.getTime() + UPLOAD_EXPIRES_SECONDS * 1000).toISOString();
  await deps.pages.putUpload({ tenantId: ctx.tenantId, uploadId, expiresAt, createdBy: ctx.actor });
  const signed = await deps.files.uploadUrl(ctx.tenantId, uploadId, UPLOAD_EXPIRES_SECONDS);
  return { uploadId, uploadUrl: signed.url, uploadMethod: 'PUT' as const, uploadHeaders: signed.headers, expiresAt, maxBytes: BUNDLE_LIMITS.maxArchiveBytes };
}

export function customPageVersionsPage(
  pages: Pick<CustomPageStore, 'versionsOf'>,
  tenantId: string,
  name: string,
  query: { page: number; size: number; sort: string[]; cursor?: string | undefined },
) {
  return versionsPage(PAGES, pages, tenantId, name, query);
}

/** Every version of every page: by name then version unless `sort` says otherwise (then in memory). */
export function customPagesPage(pages: Pick<CustomPageStore, 'all'>, tenantId: string, query: { page: number; size: number; sort: string[]; cursor?: string | undefined }) {
  const { orders, errors } = parseSort(query.sort, CUSTOM_PAGE_LIST_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const source = pages.all(tenantId);
  const view = (records: CustomPageSummary[]) => records.map(customPageSummary);
  if (orders.length === 0) {
    return keyedPage(source, { binding: { tenantId, list: 'custom pages', scope: [], query: [] }, page: query.page, size: query.size, cursor: query.cursor, descending: false, sorted: false, view });
  }
  return sortedPage(source, {
    page: query.page,
    size: query.size,
    cursor: query.cursor,
    orders: [...orders, { property: 'name', direction: 'asc' }, { property: 'version', direction: 'asc' }],
    value: (r, key) => r[key],
    view,
    instead: 'no sort (name then version), whose pages read only themselves',
  });
}
