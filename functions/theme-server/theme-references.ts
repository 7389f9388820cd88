import { apiError } from '../errors.js';
import type { ThemeStore } from './model.js';

export class UnknownThemeError extends apiError('UNKNOWN_THEME') {}

/**
 * The path of a theme's public JSON on the tenant host: an instance's `themeUrl`, for a relying
 * party to brand what it shows around the journey as the hosted pages are (getPublicTheme).
 */
export function publicThemePath(themeId: string): string {
  return `/themes/${themeId}/theme.json`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A definition's `themeId` must name a theme version of its tenant that is not ARCHIVED (an
 * EDITABLE one may be tried in a journey before it is deployed, as the family's editor previews
 * it). Kept apart from the theme logic so a definition's publication carries only this.
 */
export async function checkThemeReference(themes: Pick<ThemeStore, 'get'>, tenantId: string, themeId: string | null | undefined, location = 'body.themeId'): Promise<void> {
  if (themeId === null || themeId === undefined || themeId === '') return;
  const refuse = (message: string) => new UnknownThemeError(message, [{ location, message }]);
  if (!UUID.test(themeId)) throw refuse(`${JSON.stringify(themeId.slice(0, 100))} is not a theme id (a UUID, as POST /api/theme-server/themes answers it)`);
  const theme = await themes.get(tenantId, themeId);
  if (!theme) throw refuse(`this tenant has no theme ${themeId}`);
  if (theme.status === 'ARCHIVED') throw refuse(`theme ${themeId} (${theme.name} version ${theme.version}) is ARCHIVED`);
}
