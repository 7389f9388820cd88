import { apiHandler } from '../../http/wrapper.js';
import { startFromToken } from './create-process-instance.js';
import { instanceRoutes as routes } from './instance-routes.js';

/**
 * The family's hosted-UI link, `{uiUrl}?pt=<token id>` with `uiUrl` this host's `/web/trustweb`:
 * exactly what `startProcessAddress` (create-process-instance.ts) does, by GET.
 */
export const handler = apiHandler(routes.createProcessInstanceFromLink, startFromToken);
