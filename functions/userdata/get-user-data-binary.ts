import { apiHandler } from '../http/wrapper.js';
import { images, instances } from './deps.js';
import { GETDATA_DOCUMENT_BUDGET, loadUserData, withImageData } from './user-data.js';
import { userDataRoutes as routes } from './routes.js';

/** The user data as one binary document (UTF-8 JSON), base64 in `data`; images past the budget by URL, as in `userdata`. */
export const handler = apiHandler(routes.getUserDataBinary, async ({ tenantId, path, now }) => {
  const data = await withImageData(
    { images },
    tenantId,
    await loadUserData({ instances }, tenantId, path.processDefnId, path.processInstanceId, now),
    GETDATA_DOCUMENT_BUDGET,
    now,
  );
  return { status: 200, body: { data: Buffer.from(JSON.stringify(data), 'utf8').toString('base64') } };
});
