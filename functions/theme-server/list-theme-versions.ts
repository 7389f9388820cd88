import { apiHandler } from '../http/wrapper.js';
import { themeVersionsPage } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

export const handler = apiHandler(routes.listThemeVersions, async ({ tenantId, path, query }) => ({
  status: 200,
  body: await themeVersionsPage(themes, tenantId, path.theme, query),
}));
