import type { KeyedSource } from '../shared/keyed-list.js';
import type { DeploymentStatus, VersionedStatusOutcome, VersionedStore, VersionedSummary } from '../process-manager/model.js';

/** What an asset is for: a font face, or an image (a logo). */
export type AssetKind = 'font' | 'image';

/** One asset of a theme: the bytes are in S3 (`objectKeys.themeAsset`), this is what the record says of them. */
export interface ThemeAsset {
  name: string;
  /** As uploaded, in lower case (the public URL ends `{name}.{fileExtension}`). */
  fileExtension: string;
  /** What the bytes are (not what the upload said): the type the asset is served with. */
  contentType: string;
  kind: AssetKind;
  /** Random, 128 bits: the public URL's unguessable part, and the object's key. */
  secret: string;
  size: number;
  sha256: string;
  createdDtm: string;
}

export type ThemeSummary = VersionedSummary;

export interface ThemeRecord extends ThemeSummary {
  tenantId: string;
  /** As sent (palette.ts reads it): members this service does not use are kept. */
  palette: Record<string, unknown>;
  assets: ThemeAsset[];
  /** Counts changes of the palette and assets: an update applies only to the revision it read. */
  revision: number;
}

export interface ThemeStore extends VersionedStore<ThemeRecord, ThemeSummary> {
  /** Every version of every name, by name and then version. */
  allVersions(tenantId: string): KeyedSource<ThemeSummary>;
  /**
   * Writes a version's content (palette, description, assets) if its stored revision is still
   * `record.revision - 1` and its status still `record.status`.
   */
  update(record: ThemeRecord): Promise<'updated' | 'changed' | 'gone'>;
}

/** The assets' bytes, in S3 under `tenants/{tenantId}/themes/{themeId}/`. */
export interface ThemeAssetStore {
  put(tenantId: string, themeId: string, asset: ThemeAsset, bytes: Buffer): Promise<void>;
  /** Undefined when there is no such object. */
  get(tenantId: string, themeId: string, asset: ThemeAsset): Promise<Buffer | undefined>;
}

/** A custom page version's statuses: a data form's (EDITABLE is the family's draft). */
export const CUSTOM_PAGE_STATUSES = ['DRAFT', 'EDITABLE', 'DEPLOYED_ACTIVE', 'DEPLOYED_INACTIVE', 'ARCHIVED'] as const satisfies readonly DeploymentStatus[];
export type CustomPageStatus = (typeof CUSTOM_PAGE_STATUSES)[number];

/** What a versions page lists of a custom page version. */
export interface CustomPageSummary extends VersionedSummary {
  creationOption: string | null;
}

export interface CustomPageRecord extends CustomPageSummary {
  tenantId: string;
  /** A page that is an app elsewhere (https) instead of a bundle; null for a bundle. */
  baseAppUrl: string | null;
  /** The version's random folder in the pages bucket (32 hex digits); null without files. */
  servingSecret: string | null;
  /** Every file of the bundle, as `/path`; empty once the archive is deleted. */
  archiveEntries: string[];
  /** The bundle's files inflated, in bytes. */
  archiveBytes: number;
}

/** A pending pre-signed upload of an archive, used once by a create that names it. */
export interface CustomPageUpload {
  tenantId: string;
  uploadId: string;
  expiresAt: string;
  createdBy: string;
}

export interface CustomPageStore extends VersionedStore<CustomPageRecord, CustomPageSummary> {
  /**
   * Replaces a version's description and files (both items), when it was last updated at
   * `expectedUpdatedDtm` (`changed` otherwise; `gone` when it is no more).
   */
  replace(record: CustomPageRecord, expectedUpdatedDtm: string): Promise<VersionedStatusOutcome>;
  /** Deletes a version's record and its name + version item; false when it was gone already. */
  remove(record: Pick<CustomPageRecord, 'tenantId' | 'id' | 'name' | 'version'>): Promise<boolean>;
  /** Every version of every name, by name then version (a page is one Query). */
  all(tenantId: string): KeyedSource<CustomPageSummary>;
  putUpload(upload: CustomPageUpload): Promise<void>;
  /** Takes (deletes and returns) a pending upload: at most one create uses it. */
  takeUpload(tenantId: string, uploadId: string): Promise<CustomPageUpload | undefined>;
}

export interface PageFile {
  /** `/index.html`: from the bundle's root. */
  path: string;
  bytes: Buffer;
  contentType: string;
}

/** The pages bucket, as the custom page domain uses it (functions/adapters/page-files.ts). */
export interface PageFileStore {
  /** Writes a version's files under its folder. */
  putFiles(tenantId: string, pageId: string, servingSecret: string, files: readonly PageFile[]): Promise<void>;
  /** Deletes every file of a page (all its folders); how many went. */
  deleteFiles(tenantId: string, pageId: string): Promise<number>;
  /** Deletes the named files of one folder (what a failed write may have left), without listing. */
  deleteNamed(tenantId: string, pageId: string, servingSecret: string, paths: readonly string[]): Promise<void>;
  /** Deletes the files of one folder of a page (content an update replaced). */
  deleteFolder(tenantId: string, pageId: string, servingSecret: string): Promise<number>;
  /** A pre-signed PUT of an archive (application/octet-stream) for `expiresIn` seconds. */
  uploadUrl(tenantId: string, uploadId: string, expiresIn: number): Promise<{ url: string; headers: Record<string, string> }>;
  /** The archive PUT for an upload, deleted as it is read; undefined when none was PUT, 'tooLarge' past `maxBytes`. */
  takeUploadedArchive(tenantId: string, uploadId: string, maxBytes: number): Promise<Buffer | 'tooLarge' | undefined>;
}
