import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import * as z from '../shared/zod.js';
import {
  AddThemeAssetSchema,
  CreateThemeSchema,
  MAX_ASSET_BODY_BYTES,
  PublicThemePathSchema,
  PublicThemeSchema,
  ThemeAssetPathSchema,
  ThemeIdPathSchema,
  ThemeListQuerySchema,
  ThemeNamePathSchema,
  ThemePageSchema,
  ThemeSchema,
  ThemeStatusPathSchema,
  ThemeVersionsQuerySchema,
  UpdateThemeSchema,
} from './theme-schemas.js';

const TAG = 'Themes';
const BASE = '/api/theme-server/themes';

const paletteRefused = error(
  'Invalid input (VALIDATION_FAILED), or a palette with pairs under WCAG AA contrast (PALETTE_CONTRAST): `details` name each pair, both colours and the ratio.',
);

/** Themes by name and version, in the family's shape (docs/themes.md). Part of the route table (functions/routes.ts). */
export const themeRoutes = {
  listThemes: defineRoute({
    operationId: 'listThemes',
    method: 'GET',
    path: BASE,
    handler: 'functions/theme-server/list-themes.ts',
    auth: 'bearer',
    permission: 'ThemeServer:getThemes',
    summary: 'Every version of every theme, a page at a time',
    description: 'Without `sort`, by name and then version, each page reading only itself (`nextCursor` continues).',
    tag: TAG,
    request: { query: ThemeListQuerySchema },
    responses: { 200: { description: 'A page of theme versions, without palettes or assets.', schema: ThemePageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  addTheme: defineRoute({
    operationId: 'addTheme',
    method: 'POST',
    path: BASE,
    handler: 'functions/theme-server/add-theme.ts',
    auth: 'bearer',
    permission: 'ThemeServer:addTheme',
    summary: 'Add a version of a theme',
    description:
      'The family\'s first step: `{name, description, palette, status: "EDITABLE"}`. Each call adds the next version of the name, with ' +
      'a new id (what a definition\'s `themeId` names). The palette is checked for WCAG AA contrast (docs/themes.md).',
    tag: TAG,
    request: { body: CreateThemeSchema, maxBodyBytes: 48 * 1024 },
    responses: {
      201: { description: 'The new version, as `/all` reads it.', schema: ThemeSchema },
      400: paletteRefused,
      401: unauthorized,
      403: forbidden,
      409: error('A concurrent addition kept taking the next version (THEME_EXISTS); send it again.'),
    },
    aws: { table: ['Query', 'PutItem'] },
  }),
  listThemeVersions: defineRoute({
    operationId: 'listThemeVersions',
    method: 'GET',
    path: `${BASE}/{theme}/versions`,
    handler: 'functions/theme-server/list-theme-versions.ts',
    auth: 'bearer',
    permission: 'ThemeServer:getThemes',
    summary: "A name's versions, a page at a time",
    description: "The path variable is the theme's name here. The latest version: `?page=0&size=1&sort=version,desc` (`content[0].id`).",
    tag: TAG,
    request: { path: ThemeNamePathSchema, query: ThemeVersionsQuerySchema },
    responses: { 200: { description: 'A page of versions.', schema: ThemePageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  getTheme: defineRoute({
    operationId: 'getTheme',
    method: 'GET',
    path: `${BASE}/{theme}/all`,
    handler: 'functions/theme-server/get-theme.ts',
    auth: 'bearer',
    permission: 'ThemeServer:getThemes',
    summary: 'Read one theme version with its palette and assets',
    description:
      "The path variable is the version's id here. `assets.global[].path` is each asset's public URL on this tenant host: it is read " +
      'without a token (as the family\'s tools download them), and its last segment is `{name}.{fileExtension}`.',
    tag: TAG,
    request: { path: ThemeIdPathSchema },
    responses: { 200: { description: 'The version.', schema: ThemeSchema }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such theme in this tenant.') },
    aws: { table: ['GetItem'] },
  }),
  updateTheme: defineRoute({
    operationId: 'updateTheme',
    method: 'POST',
    path: `${BASE}/{theme}`,
    handler: 'functions/theme-server/update-theme.ts',
    auth: 'bearer',
    permission: 'ThemeServer:updateTheme',
    summary: "Change an EDITABLE version's palette and description",
    description:
      'The body is the `/all` JSON as the family\'s tools send it back (from this deployment or another): its `description` and ' +
      '`palette` are taken, the rest is the version\'s own and ignored. Only an EDITABLE (or DRAFT) version changes (409 THEME_NOT_EDITABLE): ' +
      'a deployed one is what journeys show, so add the next version of the name instead.',
    tag: TAG,
    // The `/all` JSON comes back whole: its asset list (20 at most) beside a palette of up to 32 KiB.
    request: { path: ThemeIdPathSchema, body: UpdateThemeSchema, maxBodyBytes: 64 * 1024 },
    responses: {
      200: { description: 'The version as `/all` reads it.', schema: ThemeSchema },
      400: paletteRefused,
      401: unauthorized,
      403: forbidden,
      404: error('No such theme in this tenant.'),
      409: error('The version is not EDITABLE (THEME_NOT_EDITABLE), or changed meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'UpdateItem'] },
  }),
  addThemeAsset: defineRoute({
    operationId: 'addThemeAsset',
    method: 'POST',
    // The family's path has a trailing slash (`.../assets/`); API Gateway routes it here, as the local runtime does.
    path: `${BASE}/{theme}/assets`,
    handler: 'functions/theme-server/add-theme-asset.ts',
    auth: 'bearer',
    permission: 'ThemeServer:updateTheme',
    summary: 'Add a font or image to an EDITABLE version',
    description:
      'Fonts: woff2, woff, ttf, otf; images: png, jpg/jpeg, gif, webp, ico, svg; at most 1 MiB each and 20 per theme. The bytes decide ' +
      'the type (a file that is not what its extension says is refused); an SVG must be a plain picture (no scripts, event handlers, ' +
      'embedded documents or references outside itself). An asset of a name the theme has replaces it (its old URL stops answering).',
    tag: TAG,
    request: { path: ThemeIdPathSchema, body: AddThemeAssetSchema, maxBodyBytes: MAX_ASSET_BODY_BYTES },
    responses: {
      201: { description: 'The version as `/all` reads it, with the asset and its public URL.', schema: ThemeSchema },
      400: error('Invalid input, or an asset refused by its rules (INVALID_THEME_ASSET: `details` say which).'),
      401: unauthorized,
      403: forbidden,
      404: error('No such theme in this tenant.'),
      409: error('The version is not EDITABLE (THEME_NOT_EDITABLE), holds 20 assets (THEME_ASSET_LIMIT), or changed meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'UpdateItem'], images: ['PutObject'] },
  }),
  setThemeStatus: defineRoute({
    operationId: 'setThemeStatus',
    method: 'POST',
    path: `${BASE}/{theme}/status/{status}`,
    handler: 'functions/theme-server/set-theme-status.ts',
    auth: 'bearer',
    permission: 'ThemeServer:updateTheme',
    summary: 'Move a theme version along its lifecycle',
    description:
      'EDITABLE (or DRAFT) → DEPLOYED_ACTIVE or ARCHIVED; DEPLOYED_ACTIVE ⇄ DEPLOYED_INACTIVE; either → ARCHIVED, which is final. Setting ' +
      'the current status changes nothing. No body is needed; one sent is ignored. The answer carries the version\'s `id`, which the family\'s tools give their definitions as `themeId`.',
    tag: TAG,
    request: { path: ThemeStatusPathSchema },
    responses: {
      200: { description: 'The version with its new status, as `/all` reads it.', schema: ThemeSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such theme in this tenant.'),
      409: error('The status changed meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'UpdateItem'] },
  }),
  getThemeAsset: defineRoute({
    operationId: 'getThemeAsset',
    method: 'GET',
    path: '/themes/{theme}/assets/{assetSecret}/{file}',
    handler: 'functions/theme-server/get-theme-asset.ts',
    // On the tenant host (whose theme it is), with no token or capability: hosted pages load it
    // under `font-src 'self'; img-src 'self'`, and the family's tools download it. The secret in
    // the path is the only key, 128 random bits per asset.
    auth: 'endUser',
    summary: "A theme's font or image, without a token",
    description:
      'The URL `assets.global[].path` gives; no token or capability is needed. Served as what its bytes are, `nosniff`, cached for a ' +
      'year as immutable (a replaced asset gets a new URL), and under a CSP that lets it run nothing if opened on its own.',
    tag: TAG,
    request: { path: ThemeAssetPathSchema },
    responses: {
      200: { description: 'The asset.', contentType: '*/*', schema: z.string() },
      400: error('The path is not one of an asset.'),
      404: error('No such asset (THEME_ASSET_NOT_FOUND): unknown theme, secret or file name, one answer for all.'),
    },
    aws: { table: ['GetItem'], images: ['GetObject'] },
  }),
  getPublicTheme: defineRoute({
    operationId: 'getPublicTheme',
    method: 'GET',
    path: '/themes/{theme}/theme.json',
    handler: 'functions/theme-server/get-public-theme.ts',
    auth: 'endUser',
    summary: "A theme's palette and asset URLs, without a token (an instance's `themeUrl`)",
    description:
      'What a relying party needs to brand its own screens of a journey (a custom page, its app around the journey) as the hosted ' +
      'pages are: the palette as sent, the asset URLs, and `resolved` (every colour the pages paint, the font faces, the logo). ' +
      'No token or capability is needed: the theme id (a random UUID) is the key, and a palette is what every end user sees anyway.',
    tag: TAG,
    request: { path: PublicThemePathSchema },
    responses: {
      200: { description: 'The theme.', schema: PublicThemeSchema },
      400: error('The path is not one of a theme.'),
      404: error('No such theme (THEME_ASSET_NOT_FOUND).'),
    },
    aws: { table: ['GetItem'] },
  }),
} satisfies Record<string, RouteDef>;
