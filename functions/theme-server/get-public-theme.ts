import { apiHandler } from '../http/wrapper.js';
import { publicTheme, publicThemeView } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

/** A theme for anyone with its URL (an instance's `themeUrl`); briefly cached, since an EDITABLE version still changes. */
export const handler = apiHandler(routes.getPublicTheme, async ({ tenantId, path, origin }) => ({
  status: 200,
  headers: { 'cache-control': 'public, max-age=300' },
  body: publicThemeView(await publicTheme(themes, tenantId, path.theme), origin),
}));
