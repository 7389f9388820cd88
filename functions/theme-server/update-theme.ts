import { apiHandler, actorOf } from '../http/wrapper.js';
import { themeView, updateTheme } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

export const handler = apiHandler(routes.updateTheme, async ({ tenantId, auth, path, body, now, origin }) => {
  const record = await updateTheme(themes, { id: path.theme, description: body.description, palette: body.palette }, { tenantId, actor: actorOf(auth), now });
  return { status: 200, body: themeView(record, origin) };
});
