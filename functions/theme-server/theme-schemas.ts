import * as z from '../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../shared/page.js';
import { CREATE_STATUSES, DEPLOYMENT_STATUSES } from '../process-manager/model.js';
import { PaletteSchema } from './palette.js';
import { ASSET_EXTENSIONS, ASSET_NAME_PATTERN, MAX_ASSET_BYTES } from './assets.js';

/** The largest palette (JSON, UTF-8 bytes): a few hundred colours, well inside a DynamoDB item. */
export const MAX_PALETTE_BYTES = 32 * 1024;
/** An asset upload's body: a 1 MiB asset as base64 (4/3) with its JSON around it. */
export const MAX_ASSET_BODY_BYTES = Math.ceil((MAX_ASSET_BYTES * 4) / 3) + 16 * 1024;

export const ThemeNameSchema = z
  .string()
  .check(
    z.regex(/^[\p{L}\p{N} _.()-]{1,255}$/u, 'must be 1 to 255 letters, digits, spaces or _ . ( ) -'),
    z.refine((s) => s.trim() === s, { message: 'must not start or end with a space' }),
  );

export const ThemeStatusSchema = z.enum(DEPLOYMENT_STATUSES);

const themeId = z.withMeta(z.string().check(z.uuid('must be a theme id (a UUID)')), { description: "The theme version's id." });

/**
 * One path variable name at this level for every theme route: API Gateway refuses sibling
 * routes whose variables at the same level are named differently, and the family's paths put a
 * name (`{name}/versions`) and an id (`{id}/all`) there. Each route's schema says which it is.
 */
export const ThemeIdPathSchema = z.strictObject({ theme: themeId });
export const ThemeNamePathSchema = z.strictObject({ theme: z.withMeta(ThemeNameSchema, { description: "The theme's name." }) });
export const ThemeStatusPathSchema = z.strictObject({ theme: themeId, status: ThemeStatusSchema });

export const ThemeListQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 20 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      'property[,asc|desc] (name, version, status, createdDtm, lastUpdatedDtm). Unsorted, a page comes in the store\'s order of names, ' +
      'each name\'s versions in order, and reads only itself; a sort sorts at most 2,000 versions in memory and pages by number only.',
  }),
  cursor: cursorParam(),
});

export const ThemeVersionsQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description: 'property[,asc|desc]; default version,asc. The latest version: `?page=0&size=1&sort=version,desc`.',
  }),
  cursor: cursorParam(),
});

function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(z.nullable(schema));
}

const palette = z.withMeta(
  PaletteSchema.check(
    z.refine((p) => Buffer.byteLength(JSON.stringify(p), 'utf8') <= MAX_PALETTE_BYTES, { message: `must be at most ${MAX_PALETTE_BYTES} bytes as JSON` }),
  ),
  {},
);

export const CreateThemeSchema = z.withMeta(
  z.object({
    name: ThemeNameSchema,
    description: optional(text(0, 1000)),
    palette: optional(palette),
    status: z.withMeta(optional(z.enum(CREATE_STATUSES)), { description: 'Default EDITABLE, as the family creates themes; assets and updates go to an EDITABLE (or DRAFT) version.' }),
  }),
  {
    id: 'ThemeCreate',
    description: 'Each creation is a new version of the name, with a new id. Members not listed here (tenantId, id, assets, ...) are accepted and ignored.',
  },
);

export const UpdateThemeSchema = z.withMeta(
  z.object({
    description: optional(text(0, 1000)),
    palette: optional(palette),
  }),
  {
    id: 'ThemeUpdate',
    description:
      'The theme as `GET .../themes/{id}/all` reads it (the family\'s tools send that JSON back whole, from this deployment or another): ' +
      '`description` and `palette` are taken; `id`, `name`, `version`, `status` and `assets` are the version\'s own and are ignored ' +
      '(assets change through POST .../assets/, status through POST .../status/{status}).',
  },
);

export const AddThemeAssetSchema = z.withMeta(
  z.object({
    name: z.withMeta(z.string().check(z.regex(ASSET_NAME_PATTERN, 'must be 1 to 100 letters, digits, spaces or _ ( ) . -, starting with a letter or digit')), {
      description: 'The asset\'s name, without extension: its URL ends `{name}.{fileExtension}`. An asset of a name the theme has replaces it.',
    }),
    contentType: z.withMeta(optional(text(0, 255)), {
      description: 'Accepted and not relied on: the type served is what the bytes are (the family\'s own tools send `font/ttf` or `image/<extension>` for any file).',
    }),
    fileExtension: z.withMeta(z.string().check(z.maxLength(10)), { description: `One of ${ASSET_EXTENSIONS.join(', ')} (a leading dot and capitals are fine).` }),
    assetResource: z.withMeta(z.string(), { description: `The file as base64, at most ${MAX_ASSET_BYTES} bytes decoded.` }),
  }),
  { id: 'ThemeAssetAdd', description: 'Members not listed here are accepted and ignored.' },
);

const summary = {
  id: z.withMeta(z.string(), { description: 'Generated when the version is added: what a definition\'s `themeId` names.' }),
  name: z.string(),
  version: z.number().check(z.int()),
  description: z.string(),
  status: ThemeStatusSchema,
  createdDtm: DateTime,
  createdBy: z.string(),
  lastUpdatedDtm: DateTime,
  lastUpdatedBy: z.string(),
};

export const ThemeSummarySchema = z.withMeta(z.object(summary), { id: 'ThemeSummary' });
export const ThemePageSchema = cursorPageSchema(ThemeSummarySchema, 'ThemePage');

export const ThemeAssetViewSchema = z.withMeta(
  z.object({
    name: z.string(),
    path: z.withMeta(z.string(), { description: 'The asset\'s public URL on the tenant host: no token, an unguessable part of its own, immutable.' }),
    contentType: z.string(),
    fileExtension: z.string(),
    size: z.number().check(z.int()),
  }),
  { id: 'ThemeAsset' },
);

export const ThemeSchema = z.withMeta(
  z.object({
    ...summary,
    palette: z.withMeta(z.record(z.string(), z.unknown()), { description: 'As sent (ThemePalette), members this service does not use included.' }),
    assets: z.object({ global: z.array(ThemeAssetViewSchema) }),
  }),
  { id: 'Theme' },
);

const fontFace = z.object({
  family: z.withMeta(z.string(), { description: 'The font asset\'s name, as CSS font-family.' }),
  url: z.string(),
  format: z.enum(['woff2', 'woff', 'truetype', 'opentype']),
});

export const ResolvedThemeSchema = z.withMeta(
  z.object({
    id: z.string(),
    name: z.string(),
    version: z.number().check(z.int()),
    palette: z.withMeta(z.record(z.string(), z.record(z.string(), z.string())), {
      description: 'Every colour of every area as the hosted pages paint it: the palette\'s, else the pages\' own.',
    }),
    fontFamily: z.withMeta(z.nullable(z.string()), { description: 'The font the pages use: `general.fontFamily` if it names a font asset, else the first font asset; null for the pages\' own.' }),
    fonts: z.array(fontFace),
    logo: z.withMeta(z.nullable(z.object({ name: z.string(), url: z.string(), contentType: z.string() })), {
      description: 'The image asset named `logo` (any case), else the first image asset with "logo" in its name; null when none.',
    }),
  }),
  { id: 'ResolvedTheme' },
);

export const PublicThemeSchema = z.withMeta(
  z.object({
    id: z.string(),
    name: z.string(),
    version: z.number().check(z.int()),
    palette: z.record(z.string(), z.unknown()),
    assets: z.object({ global: z.array(z.object({ name: z.string(), path: z.string() })) }),
    resolved: ResolvedThemeSchema,
  }),
  { id: 'PublicTheme', description: "A theme as anyone with its URL (an instance's `themeUrl`) reads it: its palette, asset URLs and what the hosted pages make of them." },
);

export const ThemeAssetPathSchema = z.strictObject({
  theme: themeId,
  assetSecret: z.withMeta(z.string().check(z.regex(/^[A-Za-z0-9_-]{22}$/, 'must be an asset secret')), { description: 'The asset\'s unguessable part.' }),
  file: z.withMeta(z.string().check(z.maxLength(120)), { description: '`{name}.{fileExtension}`' }),
});

export const PublicThemePathSchema = z.strictObject({ theme: themeId });

