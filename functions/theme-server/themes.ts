/**
 * Themes: a relying party's brand on the hosted pages, kept by name and version as the family
 * keeps them (create EDITABLE, add assets, update with the `/all` JSON, activate with
 * DEPLOYED_ACTIVE). A version's palette is checked for contrast on every write; its fonts and
 * images are checked by their bytes and served without a token from the tenant host.
 *
 * The interface for the hosted screens: `resolvedTheme(deps, tenantId, themeId)` → the
 * ResolvedTheme below (or undefined when the tenant has no such theme), with
 * - `palette`: every colour of every area (palette.ts PALETTE_AREAS), the theme's where it gives
 *   one and the pages' own (DEFAULT_PALETTE) elsewhere, all CSS colour strings that already
 *   passed the contrast pairs (CONTRAST_PAIRS);
 * - `fonts`: one `@font-face` per font asset (`family` = the asset's name, `url` a path on the
 *   tenant host, `format` for `src: url(...) format(...)`), and `fontFamily`, the one to use;
 * - `logo`: the logo image's path and type, or null.
 * Paths are origin-relative (`/themes/{themeId}/assets/...`): the journey pages are on the same
 * tenant host, so `font-src 'self'; img-src 'self'` covers them. A definition names its theme by
 * `themeId` (ProcessDefinitionRecord.themeId).
 */
import { createHash, randomBytes } from 'node:crypto';
import { apiError, ConcurrentUpdateError, ValidationError } from '../errors.js';
import { addVersion, getVersioned, setVersionedStatus, versionsPage, type VersionedKindOf } from '../process-manager/versioned.js';
import { orderedPage } from '../shared/keyed-list.js';
import { parseSort, type CursorPage, type SortOrder } from '../shared/page.js';
import type { CreateStatus, DeploymentStatus } from '../process-manager/model.js';
import { checkAsset, decodeAssetResource, InvalidThemeAssetError, MAX_ASSETS_PER_THEME, ThemeAssetLimitError } from './assets.js';
import { contrastFailures, type Palette } from './palette.js';
import { assetPath, resolveTheme } from './resolved-theme.js';

// The screens' interface lives in its own module, so what reads it (an instance's creation) carries no theme logic.
export { assetPath, resolveTheme, resolvedTheme, type ResolvedTheme } from './resolved-theme.js';
import type { ThemeAsset, ThemeAssetStore, ThemeRecord, ThemeStore, ThemeSummary } from './model.js';

export class ThemeExistsError extends apiError('THEME_EXISTS') {
  constructor(name: string, version: number) {
    super(`Theme "${name}" version ${version} already exists; a version is immutable, add the next one instead.`);
  }
}
export class ThemeNotFoundError extends apiError('THEME_NOT_FOUND') {
  constructor(id: string) {
    super(`Theme ${id} was not found.`);
  }
}
export class ThemeNotEditableError extends apiError('THEME_NOT_EDITABLE') {}
export class PaletteContrastError extends apiError('PALETTE_CONTRAST') {}
export class ThemeAssetNotFoundError extends apiError('THEME_ASSET_NOT_FOUND') {}

export const THEME_SORTABLE = ['name', 'version', 'status', 'createdDtm', 'lastUpdatedDtm'] as const;

export function themeSummary(r: ThemeSummary) {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    description: r.description,
    status: r.status,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    lastUpdatedDtm: r.lastUpdatedDtm,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

const THEMES: VersionedKindOf<ThemeRecord, ThemeSummary, ReturnType<typeof themeSummary>> = {
  noun: 'theme',
  exists: (name, version) => new ThemeExistsError(name, version),
  notFound: (id) => new ThemeNotFoundError(id),
  summary: themeSummary,
  sortable: ['version', 'status', 'createdDtm', 'lastUpdatedDtm'],
};

/** A version's palette and assets change only while it is a draft: a deployed one is what journeys show. */
const EDITABLE_STATUSES: readonly DeploymentStatus[] = ['EDITABLE', 'DRAFT'];

type Ctx = { tenantId: string; actor: string; now: Date };

/** Refuses a palette with pairs under AA, each pair in the details with both colours and its ratio. */
export function checkPalette(palette: Palette): void {
  const failures = contrastFailures(palette);
  if (failures.length === 0) return;
  throw new PaletteContrastError(
    `The palette has ${failures.length} colour pair${failures.length === 1 ? '' : 's'} under WCAG AA contrast.`,
    failures.map((f) => ({
      location: `body.palette.${f.foreground}`,
      message: `${f.foreground} ${f.foregroundColor} on ${f.background} ${f.backgroundColor}: ${f.ratio}:1, under the ${f.minimum}:1 AA asks`,
    })),
  );
}

export interface NewTheme {
  name: string;
  description?: string | null | undefined;
  palette?: Palette | null | undefined;
  status?: CreateStatus | null | undefined;
}

/** Adds the next version of a name (each creation is one, with a new id), EDITABLE unless it says otherwise. */
export async function addTheme(themes: Pick<ThemeStore, 'create' | 'latestVersion'>, input: NewTheme, ctx: Ctx): Promise<ThemeRecord> {
  const palette = input.palette ?? {};
  checkPalette(palette);
  return addVersion(THEMES, themes, { name: input.name, description: input.description, status: input.status ?? 'EDITABLE' }, { palette, assets: [], revision: 0 }, ctx);
}

export function getTheme(themes: Pick<ThemeStore, 'get'>, tenantId: string, id: string): Promise<ThemeRecord> {
  return getVersioned(THEMES, themes, tenantId, id);
}

function editable(record: ThemeRecord): void {
  if (!EDITABLE_STATUSES.includes(record.status)) {
    throw new ThemeNotEditableError(
      `Theme "${record.name}" version ${record.version} is ${record.status}; only an EDITABLE (or DRAFT) version changes. Add the next version of the name (POST /api/theme-server/themes) instead.`,
    );
  }
}

async function write(themes: Pick<ThemeStore, 'update'>, next: ThemeRecord): Promise<ThemeRecord> {
  const outcome = await themes.update(next);
  if (outcome === 'gone') throw new ThemeNotFoundError(next.id);
  if (outcome === 'changed') throw new ConcurrentUpdateError();
  return next;
}

function changed(record: ThemeRecord, ctx: Ctx, content: Partial<Pick<ThemeRecord, 'palette' | 'assets' | 'description'>>): ThemeRecord {
  return { ...record, ...content, revision: record.revision + 1, lastUpdatedDtm: ctx.now.toISOString(), lastUpdatedBy: ctx.actor };
}

/** The update the family's tools send (the `/all` JSON): its description and palette, checked like a creation's. */
export async function updateTheme(
  themes: Pick<ThemeStore, 'get' | 'update'>,
  input: { id: string; description?: string | null | undefined; palette?: Palette | null | undefined },
  ctx: Ctx,
): Promise<ThemeRecord> {
  const record = await getTheme(themes, ctx.tenantId, input.id);
  editable(record);
  if (input.palette) checkPalette(input.palette);
  return write(themes, changed(record, ctx, { palette: input.palette ?? record.palette, description: input.description ?? record.description }));
}

export function setThemeStatus(
  themes: Pick<ThemeStore, 'get' | 'setStatus'>,
  input: { tenantId: string; id: string; status: DeploymentStatus; actor: string; now: Date },
): Promise<ThemeRecord> {
  return setVersionedStatus(THEMES, themes, input);
}

/**
 * Adds (or, by name, replaces) an asset: checked by its bytes (assets.ts), stored in S3 under a
 * new secret, then named on the version. A replaced asset's old URL stops answering.
 */
export async function addThemeAsset(
  d: { themes: Pick<ThemeStore, 'get' | 'update'>; assets: Pick<ThemeAssetStore, 'put'> },
  input: { id: string; name: string; fileExtension: string; assetResource: string },
  ctx: Ctx,
): Promise<ThemeRecord> {
  const record = await getTheme(d.themes, ctx.tenantId, input.id);
  editable(record);
  const bytes = decodeAssetResource(input.assetResource);
  if (!bytes) throw new InvalidThemeAssetError('assetResource is not base64.', [{ location: 'body.assetResource', message: 'must be base64 (RFC 4648)' }]);
  const checked = checkAsset({ fileExtension: input.fileExtension, bytes });
  const others = record.assets.filter((a) => a.name.toLowerCase() !== input.name.toLowerCase());
  if (others.length >= MAX_ASSETS_PER_THEME) {
    throw new ThemeAssetLimitError(`The theme holds ${others.length} assets, the most it may; replace one by adding an asset of its name.`);
  }
  const asset: ThemeAsset = {
    name: input.name,
    fileExtension: checked.fileExtension,
    contentType: checked.contentType,
    kind: checked.kind,
    secret: randomBytes(16).toString('base64url'),
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    createdDtm: ctx.now.toISOString(),
  };
  await d.assets.put(ctx.tenantId, record.id, asset, bytes);
  return write(d.themes, changed(record, ctx, { assets: [...others, asset] }));
}

/** A version as `GET .../themes/{id}/all` reads it; asset paths are absolute URLs on the caller's tenant origin. */
export function themeView(r: ThemeRecord, origin: string) {
  return {
    ...themeSummary(r),
    palette: r.palette as Record<string, unknown>,
    assets: {
      global: r.assets.map((a) => ({ name: a.name, path: `${origin}${assetPath(r.id, a)}`, contentType: a.contentType, fileExtension: a.fileExtension, size: a.size })),
    },
  };
}

/** A page of one name's versions (see versionsPage). */
export function themeVersionsPage(themes: Pick<ThemeStore, 'versionsOf'>, tenantId: string, name: string, query: { page: number; size: number; sort: string[]; cursor?: string | undefined }) {
  return versionsPage(THEMES, themes, tenantId, name, query);
}

/** A page of every version of every theme: in the store's order (by name, then version) unsorted, else sorted in memory. */
export async function themesPage(
  themes: Pick<ThemeStore, 'allVersions'>,
  tenantId: string,
  query: { page: number; size: number; sort: string[]; cursor?: string | undefined },
): Promise<CursorPage<ReturnType<typeof themeSummary>>> {
  const { orders, errors } = parseSort(query.sort, THEME_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  type Key = (typeof THEME_SORTABLE)[number] | 'storeOrder';
  return orderedPage<ThemeSummary, ReturnType<typeof themeSummary>, Key>(themes.allVersions(tenantId), {
    // No sortable property is the store's order (names are kept encoded), so any sort goes to memory.
    key: 'storeOrder',
    binding: { tenantId, list: 'themes', scope: [], query: orders },
    query,
    orders,
    tieBreak: [{ property: 'name', direction: 'asc' }, { property: 'version', direction: 'asc' }] as SortOrder<Key>[],
    value: (r, key) => (key === 'storeOrder' ? undefined : r[key]),
    view: (records) => records.map(themeSummary),
    instead: 'leave the list unsorted, whose pages read only themselves',
  });
}

/** A theme as its public URL (themeUrl) shows it. */
export function publicThemeView(r: ThemeRecord, origin: string) {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    palette: r.palette as Record<string, unknown>,
    assets: { global: r.assets.map((a) => ({ name: a.name, path: `${origin}${assetPath(r.id, a)}` })) },
    resolved: resolveTheme(r, origin),
  };
}

/** The bytes of an asset by its public URL's parts; one 404 for an unknown theme, secret or file name. */
export async function publicAsset(
  d: { themes: Pick<ThemeStore, 'get'>; assets: Pick<ThemeAssetStore, 'get'> },
  tenantId: string,
  path: { themeId: string; assetSecret: string; file: string },
): Promise<{ asset: ThemeAsset; bytes: Buffer }> {
  const record = await d.themes.get(tenantId, path.themeId);
  const asset = record?.assets.find((a) => a.secret === path.assetSecret);
  // The file name as sent or still percent-encoded (a gateway may hand either over).
  const named = asset && [`${asset.name}.${asset.fileExtension}`, `${encodeURIComponent(asset.name)}.${asset.fileExtension}`].includes(path.file);
  if (!record || !asset || !named) throw new ThemeAssetNotFoundError();
  const bytes = await d.assets.get(tenantId, record.id, asset);
  if (!bytes) throw new ThemeAssetNotFoundError();
  return { asset, bytes };
}

/** A theme by its public URL; the same 404 as an unknown asset. */
export async function publicTheme(themes: Pick<ThemeStore, 'get'>, tenantId: string, themeId: string): Promise<ThemeRecord> {
  const record = await themes.get(tenantId, themeId);
  if (!record) throw new ThemeAssetNotFoundError();
  return record;
}
