import type { JourneyTheme } from '../process-manager/model.js';
import { DEFAULT_PALETTE } from '../theme-server/default-palette.js';
import type { PaletteArea } from '../theme-server/palette.js';
import { parseColor } from '../theme-server/contrast.js';

/**
 * The relying party's theme on the hosted pages (docs/themes.md, "For the hosted screens"). The
 * pages' style (layout.ts) reads its colours and font from the CSS custom properties below, whose
 * defaults are DEFAULT_PALETTE (the pages' own look); a themed page adds one `<style>` setting
 * them from the instance's theme, the theme's `@font-face`s and its font.
 *
 * Everything put in CSS is checked again here, though the palette was checked when it was
 * stored: a colour must parse as one of the palette's colour forms and hold no character that
 * could end a declaration, a rule or the style element; a font's name and a URL must be of the
 * shape the theme server makes them. Anything else is left out (its default stays).
 */

/** Each custom property the pages' style reads, and the palette member that sets it. */
export const THEME_PROPERTIES = [
  ['--page-bg', 'general', 'backgroundColor'],
  ['--surface', 'general', 'surfaceColor'],
  ['--primary', 'general', 'primaryColor'],
  ['--error', 'general', 'errorColor'],
  ['--success', 'general', 'successColor'],
  ['--button-bg', 'buttons', 'primaryBackgroundColor'],
  ['--button-text', 'buttons', 'primaryTextColor'],
  ['--button2-bg', 'buttons', 'secondaryBackgroundColor'],
  ['--button2-text', 'buttons', 'secondaryTextColor'],
  ['--text', 'text', 'primaryColor'],
  ['--text2', 'text', 'secondaryColor'],
  ['--link', 'text', 'linkColor'],
  ['--input-bg', 'inputs', 'backgroundColor'],
  ['--input-text', 'inputs', 'textColor'],
  ['--input-placeholder', 'inputs', 'placeholderColor'],
  ['--input-border', 'inputs', 'borderColor'],
  ['--input-focus', 'inputs', 'focusColor'],
  ['--header-bg', 'header', 'backgroundColor'],
  ['--header-text', 'header', 'textColor'],
  ['--progress-track', 'progressBar', 'trackColor'],
  ['--progress-fill', 'progressBar', 'fillColor'],
  ['--camera-bg', 'faceCapture', 'backgroundColor'],
  ['--document-bg', 'documentCapture', 'backgroundColor'],
] as const satisfies readonly (readonly [`--${string}`, PaletteArea, string])[];

/** The pages' own font stack, after a theme's font. */
export const SYSTEM_FONTS = 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif';

/**
 * The tinted boxes (the error summary, notes) are tints of the pages' own white; on a themed page
 * they take the theme's surface, whose contrast with the theme's text was checked.
 */
const TINTS = ['--summary-bg', '--note-bg', '--note-success-bg', '--note-warning-bg', '--note-error-bg'] as const;

/** No character that could leave a declaration (`;`, `}`), a string or the style element. */
const CSS_SAFE_COLOUR = /^[#0-9A-Za-z(),.%+\-/ ]{1,64}$/;

/** A palette colour fit for a declaration, or undefined. */
export function cssColour(value: unknown): string | undefined {
  return typeof value === 'string' && CSS_SAFE_COLOUR.test(value) && parseColor(value) !== undefined ? value : undefined;
}

/** An asset's name as the theme server allows it (themes.md, Assets). */
const FONT_NAME = /^[A-Za-z0-9][A-Za-z0-9 _().-]{0,99}$/;
/** An asset's path as assetPath makes it: the file name percent-encoded, so no quote, backslash or space. */
const ASSET_PATH = /^\/themes\/[0-9a-f-]{36}\/assets\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9%._()!*'~-]{1,400}\.(woff2|woff|ttf|otf|png|jpe?g|gif|webp|ico|svg)$/;
const FONT_FORMATS = new Set(['woff2', 'woff', 'truetype', 'opentype']);

export function isThemeAssetPath(url: unknown): url is string {
  return typeof url === 'string' && ASSET_PATH.test(url);
}

function declarations(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}:${v}`)
    .join(';');
}

/** The custom properties' defaults, the pages' own look: the start of the pages' style. */
export function defaultProperties(): string {
  const values: Record<string, string> = {};
  for (const [property, area, member] of THEME_PROPERTIES) values[property] = (DEFAULT_PALETTE[area] as Record<string, string>)[member]!;
  return `:root{${declarations({ ...values, '--font': SYSTEM_FONTS })}}`;
}

/** The theme's font families, each with its source, that pass the checks above. */
function fontFaces(theme: JourneyTheme): { family: string; css: string }[] {
  return theme.fonts
    .filter((f) => FONT_NAME.test(f.family) && isThemeAssetPath(f.url) && FONT_FORMATS.has(f.format))
    .map((f) => ({ family: f.family, css: `@font-face{font-family:"${f.family}";src:url("${f.url}") format("${f.format}");font-display:swap}` }));
}

/** The CSS a themed page adds after the pages' own (empty without a theme). */
export function themeCss(theme: JourneyTheme | undefined): string {
  if (!theme) return '';
  const values: Record<string, string> = {};
  for (const [property, area, member] of THEME_PROPERTIES) {
    const colour = cssColour((theme.palette?.[area] as Record<string, unknown> | undefined)?.[member]);
    if (colour) values[property] = colour;
  }
  for (const tint of TINTS) values[tint] = 'var(--surface)';
  const faces = fontFaces(theme);
  const family = faces.find((f) => f.family === theme.fontFamily)?.family;
  if (family) values['--font'] = `"${family}",${SYSTEM_FONTS}`;
  return `:root{${declarations(values)}}${faces.map((f) => f.css).join('')}`;
}

/** The `<style>` element a themed page adds (empty without a theme). */
export function themeStyle(theme: JourneyTheme | undefined): string {
  const css = themeCss(theme);
  return css ? `<style data-theme="${theme!.id.replace(/[^0-9a-f-]/gi, '')}">${css}</style>` : '';
}
