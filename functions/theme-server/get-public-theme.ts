import { apiHandler } from '../http/wrapper.js';
import { publicTheme, publicThemeView } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

/** A theme for anyone with its URL (an instance's `themeUrl`); briefly cached, since an EDITABLE version still changes. */
export const handler = apiHandler(routes.getPublicTheme, async ({ tenantId, path, origin }) => ({
  status: 200,
  // Read by the relying party's own pages too (a custom page, its app), from their origins, without credentials.
  headers: { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
  body: publicThemeView(await publicTheme(themes, tenantId, path.theme), origin),
}));
