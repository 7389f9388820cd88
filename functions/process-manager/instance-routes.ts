import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import {
  CreateFromTemplateSchema,
  CreateInstanceQuerySchema,
  InstanceCreatedSchema,
  InstanceIdPathSchema,
  InstanceSchema,
  InstanceWithParametersSchema,
} from './instance-schemas.js';

const refusedToken = error(
  'The process token cannot create an instance now: PROCESS_TOKEN_INACTIVE, PROCESS_TOKEN_EXHAUSTED (maxCount reached), ' +
    'PROCESS_TOKEN_NOT_YET_VALID, PROCESS_TOKEN_EXPIRED; or IDEMPOTENCY_KEY_REUSED.',
);
const created = {
  description:
    'The instance, PENDING, with its journey started. With an Idempotency-Key header, a retried request gets this same ' +
    'answer for 24 hours instead of a second instance.',
  schema: InstanceCreatedSchema,
};

/** Process instances. Part of the route table (functions/routes.ts); handlers import only their own area. */
export const instanceRoutes = {
  createProcessInstance: defineRoute({
    operationId: 'createProcessInstance',
    method: 'POST',
    path: '/api/process-manager/processInstances/create',
    handler: 'functions/process-manager/create-process-instance.ts',
    auth: 'bearerOrApiKey',
    permission: 'ProcessManager:createProcessInstance',
    summary: 'Create a process instance from a process token and start its journey',
    description: 'No body. Bearer token or X-API-Key. Optional Idempotency-Key header (1-255 visible ASCII characters).',
    tag: 'Process instances',
    request: { query: CreateInstanceQuerySchema },
    responses: { 201: created, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such process token.'), 409: refusedToken },
    aws: { table: 'readWrite', signingKey: 'publicKey', stateMachines: 'start', events: 'publish' },
  }),
  createProcessInstanceFromTemplate: defineRoute({
    operationId: 'createProcessInstanceFromTemplate',
    method: 'POST',
    path: '/api/process-manager/processInstances',
    handler: 'functions/process-manager/create-process-instance-from-template.ts',
    auth: 'bearerOrApiKey',
    permission: 'ProcessManager:createProcessInstance',
    summary: 'Create a process instance from a templated process token, with parameters in the body',
    tag: 'Process instances',
    request: { body: CreateFromTemplateSchema },
    responses: { 201: created, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such process token.'), 409: refusedToken },
    aws: { table: 'readWrite', signingKey: 'publicKey', stateMachines: 'start', events: 'publish' },
  }),
  getProcessInstance: defineRoute({
    operationId: 'getProcessInstance',
    method: 'GET',
    path: '/api/process-manager/processInstances/{processInstanceId}',
    handler: 'functions/process-manager/get-process-instance.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstance',
    summary: "Read an instance's status, with retentionDays and expiringDtm",
    tag: 'Process instances',
    request: { path: InstanceIdPathSchema },
    responses: {
      200: { description: 'The instance.', schema: InstanceSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance in this tenant, or past its expiringDtm.'),
    },
    aws: { table: 'read' },
  }),
  getProcessInstanceWithParameters: defineRoute({
    operationId: 'getProcessInstanceWithParameters',
    method: 'GET',
    path: '/api/process-manager/processInstances/{processInstanceId}/withParameters',
    handler: 'functions/process-manager/get-process-instance-with-parameters.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstance',
    summary: 'Read an instance with the parameters of its process token',
    tag: 'Process instances',
    request: { path: InstanceIdPathSchema },
    responses: {
      200: { description: 'The instance and its processTokenParameters.', schema: InstanceWithParametersSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance in this tenant, or past its expiringDtm.'),
    },
    aws: { table: 'read' },
  }),
} satisfies Record<string, RouteDef>;
