import { defineRoute } from '../../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../../http/responses.js';
import { EVENT_RETENTION_DAYS } from '../../shared/events.js';
import { InstanceIdPathSchema } from './instance-schemas.js';
import { INSTANCE_EVENTS_PAGE, InstanceEventPageSchema, InstanceEventsQuerySchema } from './instance-event-schemas.js';

/**
 * An instance's events. Its own module of the route table (functions/routes.ts), so that its
 * handler bundles only these schemas and the instance reads bundle none of them.
 */
export const instanceEventRoutes = {
  getProcessInstanceEvents: defineRoute({
    operationId: 'getProcessInstanceEvents',
    method: 'GET',
    path: '/api/process-manager/processInstances/{processInstanceId}/events',
    handler: 'functions/process-manager/instances/get-process-instance-events.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstanceEvents',
    summary: "An instance's events, oldest first, as webhooks receive them",
    description:
      `Every event the instance made (created, step and status changes, notifications, reviews, completed), each the envelope a webhook ` +
      `delivery carries, whether or not any webhook took it. \`size\` events a page (default ${INSTANCE_EVENTS_PAGE.default}, at most ` +
      `${INSTANCE_EVENTS_PAGE.max}); \`nextToken\` continues after the last one. Kept ${EVENT_RETENTION_DAYS} days. An event shows here ` +
      'within about a second of its change (the index behind this read is eventually consistent). A `nextToken` that is not one this ' +
      "list gave for this instance is 400 INVALID_CURSOR.",
    tag: 'Process instances',
    request: { path: InstanceIdPathSchema, query: InstanceEventsQuerySchema },
    responses: {
      200: { description: 'A page of events.', schema: InstanceEventPageSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance in this tenant, or past its expiringDtm.'),
    },
    // GetItem: the instance (404); Query: its partition of the events index (GSI1).
    aws: { table: ['GetItem'], queryIndexes: true },
  }),
};
