import { apiHandler, actorOf } from '../../http/wrapper.js';
import { instances } from '../deps.js';
import { jobs, queue, sealer } from '../../exports/deps.js';
import { exportView, startExport } from '../../exports/exports.js';
import { exportRows, instancesCsv } from './instance-search.js';
import { CSV_INLINE_MAX_ROWS } from '../model.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const CSV_FILE_NAME = 'process-instances.csv';

export const handler = apiHandler(routes.exportProcessInstancesCsv, async ({ tenantId, body, now, auth }) => {
  const { sort, ...filters } = body;
  const { views, tooMany } = await exportRows(instances, tenantId, filters, sort ?? [], now, CSV_INLINE_MAX_ROWS);
  if (!tooMany) {
    const headers: Record<string, string> = { 'content-disposition': `attachment; filename="${CSV_FILE_NAME}"` };
    return {
      status: 200,
      raw: { contentType: 'text/csv; charset=utf-8', body: instancesCsv(views) },
      headers,
    };
  }
  // More than one answer should carry: the worker writes the whole file to S3.
  const job = await startExport(
    { jobs, queue, sealer },
    { tenantId, actor: actorOf(auth), kind: 'INSTANCES_CSV', fileName: CSV_FILE_NAME, contentType: 'text/csv; charset=utf-8', query: { filters, sort: sort ?? [] } },
    now,
  );
  const headers: Record<string, string> = { location: routes.getProcessInstancesCsvExport.path.replace('{exportId}', job.exportId) };
  return { status: 202, headers, body: await exportView({}, job, now) };
});
