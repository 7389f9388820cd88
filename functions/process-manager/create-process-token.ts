import { apiHandler, principalOf } from '../http/wrapper.js';
import { definitions, tokens } from './deps.js';
import { DEPRECATION_WARNING, ProcessTokenNameTakenError, newProcessToken, tokenView } from './tokens.js';
import { tokenRoutes as routes } from './token-routes.js';

export const handler = apiHandler(routes.createProcessToken, async ({ tenantId, auth, body, now, origin }) => {
  let definitionFound = false;
  let definitionId: string | undefined;
  if (body.processDefnTag !== undefined) {
    definitionFound = !!(await definitions.getTag(tenantId, body.processDefnTag));
  } else if (body.processDefnName !== undefined && body.processDefnVersion !== undefined) {
    definitionId = await definitions.idOf(tenantId, body.processDefnName, Number(body.processDefnVersion));
    definitionFound = definitionId !== undefined;
  }
  const record = newProcessToken(body, { tenantId, principal: principalOf(auth), now, tenantOrigin: origin, definitionFound, definitionId });
  if (!(await tokens.create(record))) throw new ProcessTokenNameTakenError(record.name);
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
