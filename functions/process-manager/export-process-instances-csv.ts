import { apiHandler } from '../http/wrapper.js';
import { instances } from './deps.js';
import { filterInstances, instancesCsv, sortInstances } from './instance-search.js';
import { instanceRoutes as routes } from './instance-routes.js';

export const handler = apiHandler(routes.exportProcessInstancesCsv, async ({ tenantId, body, now }) => {
  const candidates = await instances.listByCreation(tenantId, { from: body.startDateTime, to: body.endDateTime });
  const { records } = sortInstances(filterInstances(candidates, body, now), body.sort ?? [], 'body.sort');
  return {
    status: 200,
    raw: { contentType: 'text/csv; charset=utf-8', body: instancesCsv(records) },
    headers: { 'content-disposition': 'attachment; filename="process-instances.csv"' },
  };
});
