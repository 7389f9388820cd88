import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import { ProcessDefinitionSchema } from '../../statemachines/definition.js';
import {
  DefinitionIdPathSchema,
  DefinitionListQuerySchema,
  DefinitionPageSchema,
  DefinitionSchema,
  TagSchema,
  TagsRequestSchema,
} from './definition-schemas.js';

/** Process definitions and their tags. Part of the route table (functions/routes.ts); handlers import only their own area. */
export const definitionRoutes = {
  createProcessDefinition: defineRoute({
    operationId: 'createProcessDefinition',
    method: 'POST',
    path: '/api/process-manager/processDefinitions',
    handler: 'functions/process-manager/create-process-definition.ts',
    auth: 'bearer',
    permission: 'ProcessManager:addProcessDefinition',
    summary: 'Publish a version of a process definition',
    description:
      'The definition is checked against the activity catalogue (a 400 names the activity and the input), compiled to ' +
      'Amazon States Language and given its own state machine. A published name + version is immutable (409 if it exists).',
    tag: 'Process definitions',
    request: { body: ProcessDefinitionSchema, maxBodyBytes: 256 * 1024 },
    responses: {
      201: { description: 'The published definition, defaults applied.', schema: DefinitionSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      409: error('This name and version already exist.'),
    },
    aws: { table: ['GetItem', 'PutItem'], stateMachines: 'publish' },
  }),
  listProcessDefinitions: defineRoute({
    operationId: 'listProcessDefinitions',
    method: 'GET',
    path: '/api/process-manager/processDefinitions',
    handler: 'functions/process-manager/list-process-definitions.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessDefinitions',
    summary: 'List published definitions (name and version), a page at a time',
    tag: 'Process definitions',
    request: { query: DefinitionListQuerySchema },
    responses: { 200: { description: 'A page of definitions.', schema: DefinitionPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  listDefinitionTags: defineRoute({
    operationId: 'listDefinitionTags',
    method: 'GET',
    path: '/api/process-manager/processDefinitions/tags',
    handler: 'functions/process-manager/list-definition-tags.ts',
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
    handler: 'functions/process-manager/get-process-definition.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessDefinitions',
    summary: 'Read one published definition version',
    tag: 'Process definitions',
    request: { path: DefinitionIdPathSchema },
    responses: {
      200: { description: 'The definition.', schema: DefinitionSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such definition in this tenant.'),
    },
    aws: { table: ['GetItem'] },
  }),
  addDefinitionTags: defineRoute({
    operationId: 'addDefinitionTags',
    method: 'POST',
    path: '/api/process-manager/processDefinitions/{processDefinitionId}/tags',
    handler: 'functions/process-manager/add-definition-tags.ts',
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
