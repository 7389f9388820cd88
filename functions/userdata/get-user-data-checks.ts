import { apiHandler } from '../http/wrapper.js';
import { instances } from './deps.js';
import { loadUserData } from './user-data.js';
import { userDataRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getUserDataChecks, async ({ tenantId, path, now }) => ({
  status: 200,
  body: (await loadUserData({ instances }, tenantId, path.processDefnId, path.processInstanceId, now)).checks,
}));
