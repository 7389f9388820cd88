import type { KeyedSource } from '../shared/keyed-list.js';
import type { VersionedStore, VersionedSummary } from '../process-manager/model.js';

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
