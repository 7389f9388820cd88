import { apiHandler, principalOf } from '../http/wrapper.js';
import { definitionStore } from '../store/process-definitions.js';
import { processTokenStore } from '../store/process-tokens.js';
import { DEPRECATION_WARNING, ProcessTokenNameTakenError, newProcessToken, tokenView } from './tokens.js';
import { tokenRoutes as routes } from './token-routes.js';

export const handler = apiHandler(routes.createProcessToken, async ({ tenantId, auth, body, now, origin }) => {
  const definitionFound =
    body.processDefnTag !== undefined
      ? !!(await definitionStore.getTag(tenantId, body.processDefnTag))
      : body.processDefnName !== undefined && body.processDefnVersion !== undefined
        ? !!(await definitionStore.getByNameVersion(tenantId, body.processDefnName, Number(body.processDefnVersion)))
        : false;
  const record = newProcessToken(body, { tenantId, principal: principalOf(auth), now, tenantOrigin: origin, definitionFound });
  if (!(await processTokenStore.create(record))) throw new ProcessTokenNameTakenError(record.name);
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
