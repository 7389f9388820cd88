import { apiHandler } from '../http/wrapper.js';
import { serveStatic, staticFile } from '../console/static-file.js';
import { HOME_PAGE } from './home-page.js';
import { PAGES_CSP, PAGES_PERMISSIONS } from './page-frame.js';
import { platformRoutes as routes } from './routes.js';

const PAGE = staticFile(HOME_PAGE, 'text/html; charset=utf-8', { 'content-security-policy': PAGES_CSP, 'permissions-policy': PAGES_PERMISSIONS });

/** The home page (docs/api-reference.md). */
export const handler = apiHandler(routes.getHomePage, async ({ headers }) => serveStatic(PAGE, headers));
