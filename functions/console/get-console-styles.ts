import { apiHandler } from '../http/wrapper.js';
import { CONSOLE_CSS } from './assets.generated.js';
import { consoleRoutes as routes } from './console-routes.js';
import { serveStatic, staticFile } from './static-file.js';

const STYLES = staticFile(CONSOLE_CSS, 'text/css; charset=utf-8');

/** The console's style sheet, with the BPMN viewer's (npm run build:assets). */
export const handler = apiHandler(routes.getConsoleStyles, async ({ headers }) => serveStatic(STYLES, headers));
