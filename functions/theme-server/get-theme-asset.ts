import { apiHandler } from '../http/wrapper.js';
import { publicAsset } from './themes.js';
import { themeAssets, themes } from './deps.js';
import { themeRoutes as routes } from './theme-routes.js';

/**
 * An asset's bytes without a token. Immutable (a replaced asset gets a new secret, so a new
 * URL); `nosniff` (every answer has it) and a CSP that runs nothing and sandboxes the document,
 * so an SVG opened on its own is only a picture even if it held more than the upload rules let in.
 */
export const handler = apiHandler(routes.getThemeAsset, async ({ tenantId, path }) => {
  const { asset, bytes } = await publicAsset({ themes, assets: themeAssets }, tenantId, { themeId: path.theme, assetSecret: path.assetSecret, file: path.file });
  return {
    status: 200,
    headers: {
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${asset.sha256.slice(0, 32)}"`,
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      // Public by its URL and sent without credentials: a custom page on its own origin may use the font or logo too.
      'cross-origin-resource-policy': 'cross-origin',
      'access-control-allow-origin': '*',
    },
    raw: { contentType: asset.contentType, body: bytes },
  };
});
