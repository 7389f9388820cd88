import { apiHandler } from '../http/wrapper.js';
import { CONSOLE_JS } from './assets.generated.js';
import { consoleRoutes as routes } from './console-routes.js';
import { serveStatic, staticFile } from './static-file.js';

const SCRIPT = staticFile(CONSOLE_JS, 'text/javascript; charset=utf-8');

/** The console's script, bundled from functions/console/client/ (npm run build:assets). */
export const handler = apiHandler(routes.getConsoleScript, async ({ headers }) => serveStatic(SCRIPT, headers));
