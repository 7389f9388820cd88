import { apiHandler } from '../http/wrapper.js';
import { userData } from './deps.js';
import { loadUserData, withImageData } from './user-data.js';
import { userDataRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getUserData, async ({ tenantId, path, now }) => ({
  status: 200,
  body: await withImageData(userData, tenantId, await loadUserData(userData, tenantId, path.processDefnId, path.processInstanceId, now)),
}));
