import { apiHandler } from '../http/wrapper.js';
import { platformRoutes as routes } from './routes.js';
import { servedDocument } from './served-document.js';

export const handler = apiHandler(routes.openapi, async () => ({ status: 200, headers: { 'cache-control': 'public, max-age=300' }, body: await servedDocument() }));
