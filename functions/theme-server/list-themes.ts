import { apiHandler } from '../http/wrapper.js';
import { themesPage } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

export const handler = apiHandler(routes.listThemes, async ({ tenantId, query }) => ({ status: 200, body: await themesPage(themes, tenantId, query) }));
