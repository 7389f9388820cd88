import { apiHandler } from '../../http/wrapper.js';
import { instanceEvents, instances } from '../deps.js';
import { instanceEventsPage } from './instance-events.js';
import { instanceEventRoutes as routes } from './instance-event-routes.js';

export const handler = apiHandler(routes.getProcessInstanceEvents, async ({ tenantId, path, query, now }) => {
  const page = await instanceEventsPage(
    { instances, events: instanceEvents },
    tenantId,
    path.processInstanceId,
    { size: query.size, nextToken: query.nextToken, list: 'processInstanceEvents', where: 'query.nextToken' },
    now,
  );
  return { status: 200, body: page };
});
