import { apiHandler } from '../http/wrapper.js';
import { getTheme, themeView } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

export const handler = apiHandler(routes.getTheme, async ({ tenantId, path, origin }) => ({
  status: 200,
  body: themeView(await getTheme(themes, tenantId, path.theme), origin),
}));
