import { apiHandler } from '../http/wrapper.js';
import { processTokenStore } from '../store/process-tokens.js';
import { tokenPage } from './tokens.js';
import { tokenRoutes as routes } from './token-routes.js';

export const handler = apiHandler(routes.listProcessTokens, async ({ tenantId, query, origin }) => ({
  status: 200,
  body: tokenPage(await processTokenStore.list(tenantId), query, origin),
}));
