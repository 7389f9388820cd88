import { ValidationError } from '../errors.js';
import { apiHandler } from '../http/wrapper.js';
import { instances } from './deps.js';
import { exportRows, INSTANCE_COUNT_CAP, instancesCsv } from './instance-search.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.exportProcessInstancesCsv, async ({ tenantId, body, now }) => {
  const { views, tooMany } = await exportRows(instances, tenantId, body, body.sort ?? [], now, INSTANCE_COUNT_CAP);
  if (tooMany) {
    // Until the asynchronous export (a job writing to S3) exists: a bounded answer, never a timeout.
    throw new ValidationError('Too many instances for one export.', [
      { location: 'body', message: `more than ${INSTANCE_COUNT_CAP} instances match: narrow the filters (creation range, status, definition)` },
    ]);
  }
  return {
    status: 200,
    raw: { contentType: 'text/csv; charset=utf-8', body: instancesCsv(views) },
    headers: { 'content-disposition': 'attachment; filename="process-instances.csv"' },
  };
});
