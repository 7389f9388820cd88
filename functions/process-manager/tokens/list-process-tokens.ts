import { apiHandler } from '../../http/wrapper.js';
import { tokens } from '../deps.js';
import { tokenPage } from './tokens.js';
import { tokenRoutes as routes } from './token-routes.js';

export const handler = apiHandler(routes.listProcessTokens, async ({ tenantId, query, origin, now }) => ({
  status: 200,
  body: await tokenPage(tokens, tenantId, query, origin, now),
}));
