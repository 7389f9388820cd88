import { defineRoute, type RouteDef } from '../../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../../http/responses.js';
import {
  CreateCustomDataFormSchema,
  CustomDataFormIdPathSchema,
  CustomDataFormNamePathSchema,
  CustomDataFormPageSchema,
  CustomDataFormSchema,
  CustomDataFormStatusPathSchema,
  CustomDataFormVersionsQuerySchema,
} from './custom-data-form-schemas.js';

const TAG = 'Data forms';
const BASE = '/api/process-manager/customDataForms';

/** Data forms by name and version, in the family's shape. Part of the route table (functions/routes.ts). */
export const customDataFormRoutes = {
  addCustomDataForm: defineRoute({
    operationId: 'addCustomDataForm',
    layerPackages: ['re2-wasm'],
    method: 'POST',
    path: BASE,
    handler: 'functions/process-manager/forms/add-custom-data-form.ts',
    auth: 'bearer',
    permission: 'ProcessManager:addCustomDataForm',
    summary: 'Add a version of a data form',
    description:
      '`resource` is the form in the family format as a JSON string; it is checked (a 400 names the member inside it, ' +
      'such as `body.resource.components.2.validate.minLength`) and stored exactly as sent. Members the service does not ' +
      'use are kept. Without `version` the server assigns the next one of the name; a name + version is immutable (409).',
    tag: TAG,
    // A 256 KiB resource, escaped inside the JSON body.
    request: { body: CreateCustomDataFormSchema, maxBodyBytes: 384 * 1024 },
    responses: {
      201: { description: 'The stored version.', schema: CustomDataFormSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      409: error('This name and version already exist (CUSTOM_DATA_FORM_EXISTS).'),
    },
    aws: { table: ['Query', 'PutItem'] },
  }),
  listCustomDataFormVersions: defineRoute({
    operationId: 'listCustomDataFormVersions',
    method: 'GET',
    path: `${BASE}/{customDataForm}/versions`,
    handler: 'functions/process-manager/forms/list-custom-data-form-versions.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getCustomDataForms',
    summary: "A name's versions, a page at a time",
    description:
      'The path variable is the form\'s name here. `sort` is `property[,asc|desc]` (version, status, createdDtm, ' +
      'lastUpdatedDtm); unsorted pages come in version order. The latest version: `?page=0&size=1&sort=version,desc`. ' +
      'A name with no versions gives an empty page.',
    tag: TAG,
    request: { path: CustomDataFormNamePathSchema, query: CustomDataFormVersionsQuerySchema },
    responses: { 200: { description: 'A page of versions, without their resources.', schema: CustomDataFormPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  getCustomDataForm: defineRoute({
    operationId: 'getCustomDataForm',
    method: 'GET',
    path: `${BASE}/{customDataForm}`,
    handler: 'functions/process-manager/forms/get-custom-data-form.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getCustomDataForms',
    summary: 'Read one data form version, with its resource',
    description: "The path variable is the version's id (a UUID) here.",
    tag: TAG,
    request: { path: CustomDataFormIdPathSchema },
    responses: {
      200: { description: 'The version.', schema: CustomDataFormSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such data form in this tenant.'),
    },
    aws: { table: ['GetItem'] },
  }),
  setCustomDataFormStatus: defineRoute({
    operationId: 'setCustomDataFormStatus',
    method: 'POST',
    path: `${BASE}/{customDataForm}/status/{status}`,
    handler: 'functions/process-manager/forms/set-custom-data-form-status.ts',
    auth: 'bearer',
    permission: 'ProcessManager:updateCustomDataForm',
    summary: "Move a data form version along its lifecycle",
    description:
      'DRAFT (or EDITABLE, a draft so created) → DEPLOYED_ACTIVE or ARCHIVED; DEPLOYED_ACTIVE ⇄ DEPLOYED_INACTIVE; either → ARCHIVED (as for definitions). ' +
      'ARCHIVED is final and nothing goes back to DRAFT (400 INVALID_STATUS_TRANSITION). Setting the current status ' +
      'changes nothing. No body is needed; one sent is ignored.',
    tag: TAG,
    request: { path: CustomDataFormStatusPathSchema },
    responses: {
      200: { description: 'The version with its new status.', schema: CustomDataFormSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such data form in this tenant.'),
      409: error('The status changed meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'UpdateItem'] },
  }),
} satisfies Record<string, RouteDef>;
