import { apiHandler, actorOf } from '../http/wrapper.js';
import { addTheme, themeView } from './themes.js';
import { themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

export const handler = apiHandler(routes.addTheme, async ({ tenantId, auth, body, now, origin }) => {
  const record = await addTheme(themes, body, { tenantId, actor: actorOf(auth), now });
  return { status: 201, body: themeView(record, origin), headers: { location: `/api/theme-server/themes/${record.id}/all` } };
});
