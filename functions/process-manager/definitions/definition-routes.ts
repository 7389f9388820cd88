import * as z from '../../shared/zod.js';
import { defineRoute, type RouteDef } from '../../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../../http/responses.js';
import {
  CreateDefinitionBodySchema,
  DefinitionStatusPathSchema,
  DefinitionSummarySchema,
  DefinitionVersionsPathSchema,
  DefinitionVersionsQuerySchema,
  DefinitionIdPathSchema,
  DefinitionListQuerySchema,
  DefinitionPageSchema,
  DefinitionReadSchema,
  DefinitionSchema,
  MAX_BPMN_BYTES,
  MAX_UPLOAD_BODY_BYTES,
  TagSchema,
  TagsRequestSchema,
} from './definition-schemas.js';

/** Process definitions and their tags. Part of the route table (functions/routes.ts); handlers import only their own area. */
export const definitionRoutes = {
  createProcessDefinition: defineRoute({
    operationId: 'createProcessDefinition',
    layerPackages: ['re2-wasm'],
    method: 'POST',
    path: '/api/process-manager/processDefinitions',
    handler: 'functions/process-manager/definitions/create-process-definition.ts',
    auth: 'bearer',
    permission: 'ProcessManager:addProcessDefinition',
    summary: 'Publish a version of a process definition: in the JSON format, or a BPMN upload in the family\'s shape',
    description:
      'Two formats, told apart by `resources`. The JSON format names its version, is checked against the activity ' +
      'catalogue (a 400 names the activity and the input) and is active at once. The family\'s upload `{name, description, ' +
      'serverType, resources: {bpmn: {data, type: "BPMN"}}, processDefinitionType, attributes, themeId}` carries the BPMN ' +
      `file as base64 (at most ${MAX_BPMN_BYTES} bytes decoded); the server assigns the name's next version and creates it ` +
      'DRAFT (activate it with `.../status/DEPLOYED_ACTIVE`) unless `status` says otherwise (EDITABLE: the family\'s draft). A file the service cannot run is refused whole (400 ' +
      'INVALID_BPMN, one detail per problem at `bpmn.<element id>`, every one). Either is compiled to Amazon States Language (at most ' +
      '1 MB, 400 STATE_MACHINE_TOO_LARGE); a version that is active gets the state machine of its compiled form, shared ' +
      'with every version that compiles alike (an upload gets it when activated). A published name + version is immutable (409 if it exists).',
    tag: 'Process definitions',
    request: { body: CreateDefinitionBodySchema, maxBodyBytes: MAX_UPLOAD_BODY_BYTES },
    responses: {
      201: { description: 'The published definition, defaults applied.', schema: DefinitionSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      409: error('This name and version already exist.'),
      413: error(`The body is over ${MAX_UPLOAD_BODY_BYTES} bytes, or the BPMN file over ${MAX_BPMN_BYTES} bytes.`),
    },
    // GetItem: the JSON format's version exists; Query + UpdateItem: an upload takes the next version.
    aws: { table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'], stateMachines: 'publish' },
  }),
  listProcessDefinitions: defineRoute({
    operationId: 'listProcessDefinitions',
    method: 'GET',
    path: '/api/process-manager/processDefinitions',
    handler: 'functions/process-manager/definitions/list-process-definitions.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessDefinitions',
    summary: 'List published definitions (name and version), a page at a time',
    tag: 'Process definitions',
    description:
      'By name, then version, unless sorted otherwise. Reads the small name + version items of every version (to order names) and only ' +
      "the page's definitions; `nextCursor` continues after the page's last version (docs/lists.md).",
    request: { query: DefinitionListQuerySchema },
    responses: { 200: { description: 'A page of definitions.', schema: DefinitionPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query', 'BatchGetItem'] },
  }),
  listDefinitionTags: defineRoute({
    operationId: 'listDefinitionTags',
    method: 'GET',
    path: '/api/process-manager/processDefinitions/tags',
    handler: 'functions/process-manager/definitions/list-definition-tags.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessDefinitions',
    summary: "The tenant's definition tags, each with the definition it is on",
    tag: 'Process definitions',
    request: {},
    responses: { 200: { description: 'All tags, by name.', schema: z.array(TagSchema) }, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  getProcessDefinition: defineRoute({
    operationId: 'getProcessDefinition',
    method: 'GET',
    path: '/api/process-manager/processDefinitions/{processDefinitionId}',
    handler: 'functions/process-manager/definitions/get-process-definition.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessDefinitions',
    summary: 'Read one published definition version, with its BPMN file',
    description: 'With its BPMN file in `resources.bpmn.data` (base64, `type` "BPMN"), as the family\'s upload has it; lists leave it out.',
    tag: 'Process definitions',
    request: { path: DefinitionIdPathSchema },
    responses: {
      200: { description: 'The definition with its file.', schema: DefinitionReadSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such definition in this tenant.'),
    },
    // The version's item, then its stored definition (chunk items).
    aws: { table: ['GetItem', 'Query'] },
  }),
  getProcessDefinitionBpmn: defineRoute({
    operationId: 'getProcessDefinitionBpmn',
    method: 'GET',
    path: '/api/process-manager/processDefinitions/{processDefinitionId}/bpmnFile',
    handler: 'functions/process-manager/definitions/get-process-definition-bpmn.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessDefinitions',
    summary: 'Read a definition version as a BPMN file',
    description:
      'An uploaded BPMN comes back byte for byte, as uploaded. A version published in the JSON format gets a BPMN ' +
      'generated from it, in the same Camunda 7 dialect, that uploads again as the same journey.',
    tag: 'Process definitions',
    request: { path: DefinitionIdPathSchema },
    responses: {
      200: { description: 'The BPMN 2.0 XML file.', contentType: 'application/xml', schema: z.string() },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such definition in this tenant.'),
    },
    aws: { table: ['GetItem', 'Query'] },
  }),
  listProcessDefinitionVersions: defineRoute({
    operationId: 'listProcessDefinitionVersions',
    method: 'GET',
    path: '/api/process-manager/processDefinitions/{processDefinitionId}/versions',
    handler: 'functions/process-manager/definitions/list-process-definition-versions.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessDefinitions',
    summary: "One definition's versions, by its name, a page at a time",
    description:
      'The path segment is the definition\'s name. `sort=version,desc` with `size=1` gives the latest version ' +
      '(`content[0].processDefinitionId`, `content[0].version`), as the family\'s deployment tools read it. In version order a page ' +
      'reads only its own versions, and `nextCursor` continues after it (docs/lists.md).',
    tag: 'Process definitions',
    request: { path: DefinitionVersionsPathSchema, query: DefinitionVersionsQuerySchema },
    responses: { 200: { description: 'A page of versions (empty for an unknown name).', schema: DefinitionPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query', 'BatchGetItem'] },
  }),
  setProcessDefinitionStatus: defineRoute({
    operationId: 'setProcessDefinitionStatus',
    method: 'POST',
    path: '/api/process-manager/processDefinitions/{processDefinitionId}/status/{status}',
    handler: 'functions/process-manager/definitions/set-process-definition-status.ts',
    auth: 'bearer',
    permission: 'ProcessManager:addProcessDefinition',
    summary: "Move a definition version through its lifecycle (DRAFT or EDITABLE, DEPLOYED_ACTIVE, DEPLOYED_INACTIVE, ARCHIVED)",
    description:
      'Only a DEPLOYED_ACTIVE version takes new process tokens and starts journeys; journeys already running go on. ' +
      'DRAFT (or EDITABLE, a draft so created) → DEPLOYED_ACTIVE or ARCHIVED; DEPLOYED_ACTIVE ↔ DEPLOYED_INACTIVE; either → ARCHIVED, which is final. ' +
      'Setting the status a version has changes nothing (200). The same permission publishes and activates. ' +
      'Becoming DEPLOYED_ACTIVE gives the version its state machine (made, or shared with every version that compiles alike): ' +
      '503 when the account\'s quota of state machines is used up, or while an unused one is being deleted (retry after `Retry-After`).',
    tag: 'Process definitions',
    request: { path: DefinitionStatusPathSchema },
    responses: {
      200: { description: 'The version with its new status.', schema: DefinitionSummarySchema },
      400: error('Not a status, or not a transition the lifecycle allows (INVALID_STATUS_TRANSITION).'),
      401: unauthorized,
      403: forbidden,
      404: error('No such definition in this tenant.'),
      409: error('The status was changed by another request meanwhile.'),
    },
    // Query: the definition's stored chunks, compiled on activation; UpdateItem: the version, its
    // lock and its state machine's reference item, in one transaction.
    aws: { table: ['GetItem', 'Query', 'UpdateItem'], stateMachines: 'publish' },
  }),
  addDefinitionTags: defineRoute({
    operationId: 'addDefinitionTags',
    method: 'POST',
    path: '/api/process-manager/processDefinitions/{processDefinitionId}/tags',
    handler: 'functions/process-manager/definitions/add-definition-tags.ts',
    auth: 'bearer',
    permission: 'ProcessManager:addProcessDefinitionTag',
    summary: 'Put tags on a definition version',
    description: 'A tag name is unique in the tenant and sits on one definition at a time: posting it here moves it.',
    tag: 'Process definitions',
    request: { path: DefinitionIdPathSchema, body: TagsRequestSchema },
    responses: {
      201: { description: 'The tags now on the definition.', schema: z.array(TagSchema) },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such definition in this tenant.'),
    },
    aws: { table: ['GetItem', 'PutItem'] },
  }),
} satisfies Record<string, RouteDef>;
