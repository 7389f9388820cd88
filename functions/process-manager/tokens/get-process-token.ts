import { apiHandler } from '../../http/wrapper.js';
import { tokens } from '../deps.js';
import { getProcessToken, tokenView } from './tokens.js';
import { tokenRoutes as routes } from './token-routes.js';

export const handler = apiHandler(routes.getProcessToken, async ({ tenantId, path, origin }) => {
  return { status: 200, body: tokenView(await getProcessToken(tokens, tenantId, path.processTokenId), origin) };
});
