import { apiHandler } from '../http/wrapper.js';
import { images, instances } from './deps.js';
import { loadUserData, USER_DATA_INLINE_BUDGET, withImageData } from './user-data.js';
import { userDataRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.getUserData, async ({ tenantId, path, now }) => ({
  status: 200,
  body: await withImageData(
    { images },
    tenantId,
    await loadUserData({ instances }, tenantId, path.processDefnId, path.processInstanceId, now),
    USER_DATA_INLINE_BUDGET,
    now,
  ),
}));
