import { resolvePalette, type Palette, type ResolvedPalette } from './palette.js';
import type { ThemeAsset, ThemeRecord, ThemeStore } from './model.js';

/**
 * A theme as the hosted pages paint it (docs/themes.md, "For the hosted screens"): kept apart
 * from themes.ts so an instance's creation, which snapshots it, carries no theme logic.
 */

/** `/themes/{themeId}/assets/{secret}/{name}.{extension}` on the tenant host. */
export function assetPath(themeId: string, asset: Pick<ThemeAsset, 'secret' | 'name' | 'fileExtension'>): string {
  return `/themes/${themeId}/assets/${asset.secret}/${encodeURIComponent(asset.name)}.${asset.fileExtension}`;
}

export interface ResolvedTheme {
  id: string;
  name: string;
  version: number;
  palette: ResolvedPalette;
  fontFamily: string | null;
  fonts: { family: string; url: string; format: 'woff2' | 'woff' | 'truetype' | 'opentype' }[];
  logo: { name: string; url: string; contentType: string } | null;
}

const FONT_FORMATS = { woff2: 'woff2', woff: 'woff', ttf: 'truetype', otf: 'opentype' } as const;

/** What the hosted pages make of a version (see themes.ts); `origin` '' gives origin-relative URLs. */
export function resolveTheme(r: ThemeRecord, origin = ''): ResolvedTheme {
  const fonts = r.assets
    .filter((a) => a.kind === 'font')
    .map((a) => ({ family: a.name, url: `${origin}${assetPath(r.id, a)}`, format: FONT_FORMATS[a.fileExtension as keyof typeof FONT_FORMATS] }));
  const palette = resolvePalette(r.palette as Palette);
  const wanted = palette.general.fontFamily;
  const images = r.assets.filter((a) => a.kind === 'image');
  const logo = images.find((a) => a.name.toLowerCase() === 'logo') ?? images.find((a) => a.name.toLowerCase().includes('logo'));
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    palette,
    fontFamily: fonts.find((f) => f.family === wanted)?.family ?? fonts[0]?.family ?? null,
    fonts,
    logo: logo ? { name: logo.name, url: `${origin}${assetPath(r.id, logo)}`, contentType: logo.contentType } : null,
  };
}

/** The interface for the hosted screens: a tenant's theme as the pages paint it, or undefined when it has none of that id. */
export async function resolvedTheme(themes: Pick<ThemeStore, 'get'>, tenantId: string, themeId: string): Promise<ResolvedTheme | undefined> {
  const record = await themes.get(tenantId, themeId);
  return record ? resolveTheme(record) : undefined;
}
