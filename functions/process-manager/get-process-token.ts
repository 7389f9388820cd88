import { apiHandler } from '../http/wrapper.js';
import { tokens } from './deps.js';
import { ProcessTokenNotFoundError, tokenView } from './tokens.js';
import { tokenRoutes as routes } from './token-routes.js';

export const handler = apiHandler(routes.getProcessToken, async ({ tenantId, path, origin }) => {
  const record = await tokens.get(tenantId, path.processTokenId);
  if (!record) throw new ProcessTokenNotFoundError(path.processTokenId);
  return { status: 200, body: tokenView(record, origin) };
});
