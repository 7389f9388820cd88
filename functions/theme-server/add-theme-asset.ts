import { apiHandler, actorOf } from '../http/wrapper.js';
import { addThemeAsset, themeView } from './themes.js';
import { themeAssets, themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

export const handler = apiHandler(routes.addThemeAsset, async ({ tenantId, auth, path, body, now, origin }) => {
  const record = await addThemeAsset({ themes, assets: themeAssets }, { id: path.theme, ...body }, { tenantId, actor: actorOf(auth), now });
  return { status: 201, body: themeView(record, origin) };
});
