import { apiHandler } from '../http/wrapper.js';
import { images, instances } from './deps.js';
import { checkArchivePassword, loadUserData, userDataArchive } from './user-data.js';
import { userDataRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.createUserDataArchive, async ({ tenantId, path, body, now }) => {
  checkArchivePassword(body.config.password);
  const data = await loadUserData({ instances }, tenantId, path.processDefnId, path.processInstanceId, now);
  return {
    status: 200,
    headers: { 'content-disposition': `attachment; filename="userdata-${data.processInstanceId}.zip"` },
    raw: { contentType: 'application/zip', body: await userDataArchive({ images }, tenantId, data, body.config.password) },
  };
});
