import * as z from '../../shared/zod.js';
import { ExportIdPath, ExportSchema } from '../../exports/schemas.js';
import { CSV_EXPORT_MAX_ROWS, CSV_INLINE_MAX_ROWS } from '../model.js';
import { defineRoute, type RouteDef } from '../../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../../http/responses.js';
import {
  CreateFromTemplateSchema,
  CreateInstanceQuerySchema,
  CreateInstanceHeadersSchema,
  InstanceCreatedSchema,
  InstanceIdPathSchema,
  InstanceSchema,
  InstanceWithParametersSchema,
  InstanceCsvRequestSchema,
  InstanceListQuerySchema,
  InstancePageSchema,
  InstanceSearchQuerySchema,
  ResumedInstanceSchema,
} from './instance-schemas.js';
import { ReviewRequestSchema } from './review-schemas.js';

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

/** What both ways of creating an instance answer and touch: they run the same operation. */
const creation = {
  auth: 'bearerOrApiKey',
  permission: 'ProcessManager:createProcessInstance',
  tag: 'Process instances',
  responses: { 201: created, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such process token.'), 409: refusedToken },
  // PutObject: the pre-signed face uploads (a URL grants what its signer's role may do).
  aws: { table: ['GetItem', 'PutItem', 'UpdateItem'], signingKey: 'publicKey', stateMachines: 'start', images: ['PutObject'] },
} as const;

/** Process instances. Part of the route table (functions/routes.ts); handlers import only their own area. */
export const instanceRoutes = {
  createProcessInstance: defineRoute({
    operationId: 'createProcessInstance',
    method: 'POST',
    path: '/api/process-manager/processInstances/create',
    handler: 'functions/process-manager/instances/create-process-instance.ts',
    ...creation,
    summary: 'Create a process instance from a process token and start its journey',
    description: 'No body. Bearer token or X-API-Key. Optional Idempotency-Key header (1-255 visible ASCII characters).',
    request: { query: CreateInstanceQuerySchema, headers: CreateInstanceHeadersSchema },
  }),
  createProcessInstanceFromTemplate: defineRoute({
    operationId: 'createProcessInstanceFromTemplate',
    method: 'POST',
    path: '/api/process-manager/processInstances',
    handler: 'functions/process-manager/instances/create-process-instance-from-template.ts',
    ...creation,
    summary: 'Create a process instance from a templated process token, with parameters in the body',
    request: { body: CreateFromTemplateSchema, headers: CreateInstanceHeadersSchema },
  }),
  createProcessInstanceFromLink: defineRoute({
    operationId: 'createProcessInstanceFromLink',
    method: 'GET',
    path: '/web/trustweb',
    handler: 'functions/process-manager/instances/create-process-instance-from-link.ts',
    ...creation,
    summary: "Create a process instance from a token's hosted-UI link (`uiUrl?pt=`), as startProcessAddress does",
    description:
      "The family's hosted-UI link: a token whose `uiUrl` is this host's `/web/trustweb` is opened as `uiUrl?pt=<token id>`. " +
      'The same operation as `POST .../processInstances/create?pt=`: bearer token or X-API-Key, optional Idempotency-Key, the same answer.',
    request: { query: CreateInstanceQuerySchema, headers: CreateInstanceHeadersSchema },
  }),
  listProcessInstances: defineRoute({
    operationId: 'listProcessInstances',
    method: 'GET',
    path: '/api/process-manager/processInstances',
    handler: 'functions/process-manager/instances/list-process-instances.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstance',
    summary: "List the tenant's instances, newest first, a page at a time",
    tag: 'Process instances',
    request: { query: InstanceListQuerySchema },
    responses: { 200: { description: 'A page of instances.', schema: InstancePageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { queryIndexes: true },
  }),
  searchProcessInstances: defineRoute({
    operationId: 'searchProcessInstances',
    method: 'GET',
    path: '/api/process-manager/processInstances/search',
    handler: 'functions/process-manager/instances/search-process-instances.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstance',
    summary: 'Search instances by free text, creation range, definition and status',
    tag: 'Process instances',
    request: { query: InstanceSearchQuerySchema },
    responses: { 200: { description: 'A page of matching instances.', schema: InstancePageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { queryIndexes: true },
  }),
  exportProcessInstancesCsv: defineRoute({
    operationId: 'exportProcessInstancesCsv',
    method: 'POST',
    path: '/api/process-manager/processInstances/csv',
    handler: 'functions/process-manager/instances/export-process-instances-csv.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstance',
    summary: 'Export the instances matching the search filters as CSV',
    description:
      `The body takes the search filters. Up to ${CSV_INLINE_MAX_ROWS} matches the answer is text/csv with a header row; more, an export job makes the file (at most ${CSV_EXPORT_MAX_ROWS} rows) and the answer is 202. ` +
      "Cells a spreadsheet would run as formulas get a leading `'`; numbers and phone numbers (`+4915123456789`, `-12.5`) stay as they are.",
    tag: 'Process instances',
    request: { body: InstanceCsvRequestSchema },
    responses: {
      200: { description: `One row per instance (at most ${CSV_INLINE_MAX_ROWS}).`, contentType: 'text/csv', schema: z.string() },
      202: {
        description: `More than ${CSV_INLINE_MAX_ROWS} instances match: an export job makes the CSV; \`Location\` is its status route, which gives a download URL once it SUCCEEDED.`,
        schema: ExportSchema,
      },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
    },
    aws: { queryIndexes: true, table: ['PutItem'], exports: ['SendMessage'] },
  }),
  getProcessInstancesCsvExport: defineRoute({
    operationId: 'getProcessInstancesCsvExport',
    method: 'GET',
    path: '/api/process-manager/processInstances/csv/exports/{exportId}',
    handler: 'functions/process-manager/instances/get-process-instances-csv-export.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstance',
    summary: 'The status of a CSV export, with its download URL once made',
    tag: 'Process instances',
    request: { path: z.strictObject({ exportId: ExportIdPath }) },
    responses: {
      200: { description: 'The export job.', schema: ExportSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such CSV export in this tenant, or past its 7 days.'),
    },
    aws: { table: ['GetItem'], exports: ['GetObject'] },
  }),
  getProcessInstance: defineRoute({
    operationId: 'getProcessInstance',
    method: 'GET',
    path: '/api/process-manager/processInstances/{processInstanceId}',
    handler: 'functions/process-manager/instances/get-process-instance.ts',
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
    aws: { table: ['GetItem'] },
  }),
  resumeProcessInstance: defineRoute({
    operationId: 'resumeProcessInstance',
    method: 'POST',
    path: '/api/process-manager/processInstances/{processInstanceId}/resume',
    handler: 'functions/process-manager/instances/resume-process-instance.ts',
    auth: 'bearer',
    permission: 'ProcessManager:resumeProcessInstance',
    summary: 'Resume an instance a Pause Instance step paused, as its resume URL does: once',
    description:
      'No body. The pause is marked resumed, the instance is ACTIVE again and its Waiting for Resume step completes. Sent before ' +
      'the journey reached that step: 409 RESUME_NOT_READY with Retry-After, nothing changed.',
    tag: 'Process instances',
    request: { path: InstanceIdPathSchema },
    responses: {
      200: { description: 'Resumed: the instance, and a journey link for the end user.', schema: ResumedInstanceSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance in this tenant, or past its expiringDtm.'),
      409: error('INSTANCE_NOT_PAUSED: no Pause Instance step paused it; RESUME_NOT_READY (with Retry-After): its Waiting for Resume step has not begun yet.'),
      410: error('RESUME_ALREADY_USED: the pause was resumed already; RESUME_EXPIRED: the journey has ended, or no longer waits for the resume.'),
    },
    aws: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], stateMachines: 'sendTask' },
  }),
  getProcessInstanceWithParameters: defineRoute({
    operationId: 'getProcessInstanceWithParameters',
    method: 'GET',
    path: '/api/process-manager/processInstances/{processInstanceId}/withParameters',
    handler: 'functions/process-manager/instances/get-process-instance-with-parameters.ts',
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
    aws: { table: ['GetItem'] },
  }),
  reviewProcessInstance: defineRoute({
    operationId: 'reviewProcessInstance',
    method: 'POST',
    path: '/api/process-manager/processInstances/{processInstanceId}/review',
    handler: 'functions/process-manager/instances/review-process-instance.ts',
    auth: 'bearer',
    permission: 'ProcessManager:reviewProcessInstance',
    summary: "Decide an instance's review: approve, reject or keep it in review, with a comment",
    description:
      'For an instance in review: in status REVIEW (its journey ended there, or waits for the back office), or waiting at a Waiting for ' +
      'B/O review step. The decision is the journey\'s: APPROVE makes the instance COMPLETED_ENDED_SUCCESS, REJECT COMPLETED_ENDED_ERROR, ' +
      'REVIEW keeps it REVIEW (the comment recorded); a waiting back-office step is then completed with `_decision` PASS, FAIL or REVIEW ' +
      'and the journey goes on. The review, with who decided and when, is on the instance read; a `process-instance.reviewed` event goes ' +
      'out (with status-changed and completed when the status changes). Sending the same decision again while its step still waits ' +
      'resumes that step and decides nothing twice.',
    tag: 'Process instances',
    request: { path: InstanceIdPathSchema, body: ReviewRequestSchema },
    responses: {
      200: { description: 'The instance after the decision, with its review.', schema: InstanceSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance in this tenant, or past its expiringDtm.'),
      409: error(
        'PROCESS_INSTANCE_NOT_IN_REVIEW: the instance is neither in status REVIEW nor waiting for the back office (running elsewhere, not ' +
          'started, or decided APPROVE or REJECT already); CONCURRENT_UPDATE: another decision or change came first. Nothing was changed.',
      ),
      503: error(
        'SERVICE_UNAVAILABLE: an AWS service throttled or did not answer. When the decision was recorded but its step not yet resumed, ' +
          'send the same request again: it resumes the step.',
      ),
    },
    // The instance and its step read; the decision (instance, views, events); the step's claim,
    // the journey's next session version, the hand-over (SendTaskSuccess) and the step finished.
    aws: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], stateMachines: 'sendTask' },
  }),
} satisfies Record<string, RouteDef>;
