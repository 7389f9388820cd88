import { apiHandler, actorOf } from '../../http/wrapper.js';
import { definitions, tokens } from '../deps.js';
import { DEPRECATION_WARNING, createProcessToken, tokenView } from './tokens.js';
import { tokenRoutes as routes } from './token-routes.js';

export const handler = apiHandler(routes.createProcessToken, async ({ tenantId, auth, body, now, origin }) => {
  const record = await createProcessToken({ definitions, tokens }, body, { tenantId, actor: actorOf(auth), now, tenantOrigin: origin });
  const deprecated = body.maxProcessDuration !== undefined;
  return {
    status: 201,
    body: { ...tokenView(record, origin), ...(deprecated ? { warnings: [DEPRECATION_WARNING] } : {}) },
    headers: {
      location: `/api/process-manager/processTokens/${record.id}`,
      // RFC 9745: the field used is deprecated since 2025-08-18.
      ...(deprecated ? { deprecation: '@1755475200' } : {}),
    },
  };
});
