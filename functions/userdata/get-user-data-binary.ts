import { apiHandler } from '../http/wrapper.js';
import { images, instances } from './deps.js';
import { loadUserData, withImageData } from './user-data.js';
import { userDataRoutes as routes } from './routes.js';

/** The user data as one binary document (UTF-8 JSON), base64 in `data`. */
export const handler = apiHandler(routes.getUserDataBinary, async ({ tenantId, path, now }) => {
  const data = await withImageData({ images }, tenantId, await loadUserData({ instances }, tenantId, path.processDefnId, path.processInstanceId, now));
  return { status: 200, body: { data: Buffer.from(JSON.stringify(data), 'utf8').toString('base64') } };
});
