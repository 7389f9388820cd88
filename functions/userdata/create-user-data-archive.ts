import { apiHandler, actorOf } from '../http/wrapper.js';
import { images, instances } from './deps.js';
import { jobs, queue, sealer } from '../exports/deps.js';
import { exportView, startExport } from '../exports/exports.js';
import { ARCHIVE_INLINE_MAX, archiveTooLarge, checkArchivePassword, loadUserData, userDataArchive } from './user-data.js';
import { userDataRoutes as routes } from './routes.js';

export const handler = apiHandler(routes.createUserDataArchive, async ({ tenantId, path, body, now, auth }) => {
  checkArchivePassword(body.config.password);
  const data = await loadUserData({ instances }, tenantId, path.processDefnId, path.processInstanceId, now);
  const fileName = `userdata-${data.processInstanceId}.zip`;
  // Estimated first, so a large archive is never built here; built, it may still be over (rarely).
  const zip = archiveTooLarge(data) ? undefined : await userDataArchive({ images }, tenantId, data, body.config.password);
  if (zip && zip.length <= ARCHIVE_INLINE_MAX) {
    const headers: Record<string, string> = { 'content-disposition': `attachment; filename="${fileName}"` };
    return {
      status: 200,
      headers,
      raw: { contentType: 'application/zip', body: zip },
    };
  }
  const job = await startExport(
    { jobs, queue, sealer },
    {
      tenantId,
      actor: actorOf(auth),
      kind: 'USER_DATA_ARCHIVE',
      fileName,
      contentType: 'application/zip',
      processDefnId: path.processDefnId,
      processInstanceId: path.processInstanceId,
      password: body.config.password,
    },
    now,
  );
  const headers: Record<string, string> = {
    location: routes.getUserDataArchiveExport.path
      .replace('{processDefnId}', path.processDefnId)
      .replace('{processInstanceId}', path.processInstanceId)
      .replace('{exportId}', job.exportId),
  };
  return {
    status: 202,
    headers,
    // A job just queued has no file yet, so nothing to pre-sign.
    body: await exportView({}, job, now),
  };
});
