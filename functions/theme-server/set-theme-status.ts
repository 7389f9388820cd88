import { apiHandler, actorOf } from '../http/wrapper.js';
import { setThemeStatus, themeView } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

export const handler = apiHandler(routes.setThemeStatus, async ({ tenantId, auth, path, now, origin }) => {
  const record = await setThemeStatus(themes, { tenantId, id: path.theme, status: path.status, actor: actorOf(auth), now });
  return { status: 200, body: themeView(record, origin) };
});
