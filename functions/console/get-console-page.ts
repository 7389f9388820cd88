import { apiHandler } from '../http/wrapper.js';
import { consoleRoutes as routes } from './console-routes.js';
import { CONSOLE_CSP, CONSOLE_PAGE, CONSOLE_PERMISSIONS } from './page.js';
import { serveStatic, staticFile } from './static-file.js';

const PAGE = staticFile(CONSOLE_PAGE, 'text/html; charset=utf-8', { 'content-security-policy': CONSOLE_CSP, 'permissions-policy': CONSOLE_PERMISSIONS });

/** The console's page (docs/console.md). */
export const handler = apiHandler(routes.getConsolePage, async ({ headers }) => serveStatic(PAGE, headers));
