import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import { DateTime } from '../shared/schemas.js';

const UserDataPath = z.strictObject({
  processDefnId: z.string().check(z.uuid('must be a process definition id')),
  processInstanceId: z.string().check(z.uuid('must be a process instance id')),
});

export const UserDataSchema = z.withMeta(
  z.object({
    processInstanceId: z.string(),
    processDefnId: z.string(),
    processDefnName: z.string(),
    processDefnVersion: z.number(),
    status: z.string(),
    forms: z.withMeta(z.record(z.string(), z.record(z.string(), z.unknown())), {
      description: "Each data form's values, under the form's `Form data Key`.",
    }),
    steps: z.withMeta(
      z.array(
        z.object({
          activityId: z.string(),
          activityType: z.string(),
          dataKey: z.string(),
          submittedAt: DateTime,
          values: z.record(z.string(), z.unknown()),
        }),
      ),
      { description: 'Every user step the end user completed, in order.' },
    ),
  }),
  { id: 'UserData', description: 'What the end user provided. A `data` member is returned only when custom pages are used (they are not).' },
);

/** The user data API. Part of the route table (functions/routes.ts). */
export const userDataRoutes = {
  getUserData: defineRoute({
    operationId: 'getUserData',
    method: 'GET',
    path: '/api/userdata-server/processDefinitions/{processDefnId}/processInstances/{processInstanceId}/userdata',
    handler: 'functions/userdata/get-user-data.ts',
    auth: 'bearer',
    permission: 'UserDataServer:getProcessInstanceUserData',
    summary: 'Everything the end user provided in an instance',
    tag: 'User data',
    request: { path: UserDataPath },
    responses: {
      200: { description: 'The user data.', schema: UserDataSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance of this definition in this tenant, or past its retention.'),
    },
    aws: { table: ['GetItem', 'Query'] },
  }),
} satisfies Record<string, RouteDef>;
