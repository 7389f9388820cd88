import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import { apiError } from '../errors.js';
import {
  CreateCustomPageSchema,
  CustomPageIdPathSchema,
  CustomPageListQuerySchema,
  CustomPageNamePathSchema,
  CustomPageNameVersionPathSchema,
  CustomPagePageSchema,
  CustomPagePreviewSchema,
  CustomPageSchema,
  CustomPageStatusPathSchema,
  CustomPageUploadSchema,
  MAX_CREATE_BODY_BYTES,
  PreviewCustomPageSchema,
  UpdateCustomPageSchema,
} from './custom-page-schemas.js';

const TAG = 'Custom pages';
const BASE = '/api/theme-server/customPages';

/** A create or preview body over what one request carries: the answer names the pre-signed path. */
class CustomPageBodyTooLargeError extends apiError('CUSTOM_PAGE_BODY_TOO_LARGE') {
  constructor(message: string) {
    super(`${message} Upload a bundle this big through POST ${BASE}/uploads (a pre-signed PUT of up to 15 MiB), then create the page with its uploadId.`);
  }
}

const BUNDLE_REFUSALS =
  'A bundle breaking a rule is refused with its own code: BUNDLE_TOO_LARGE, BUNDLE_FILE_TYPE, BUNDLE_NO_INDEX, BUNDLE_UNSAFE_PATH, ' +
  'BUNDLE_LINK, BUNDLE_BOMB, BUNDLE_TOO_MANY_FILES, BUNDLE_PATH_TOO_LONG, BUNDLE_DUPLICATE_PATH, BUNDLE_ENCRYPTED, BUNDLE_UNREADABLE, BUNDLE_EMPTY ' +
  '(docs/custom-pages.md).';

const bodyTooLarge = error(
  `The body is over ${MAX_CREATE_BODY_BYTES} bytes (CUSTOM_PAGE_BODY_TOO_LARGE): PUT the archive through POST ${BASE}/uploads and name its uploadId instead.`,
);

const pageFiles = ['PutObject', 'DeleteObject', 'ListBucket'] as const;

/** Custom pages by name and version, in the family's shape. Part of the route table (functions/routes.ts). */
export const customPageRoutes = {
  listCustomPages: defineRoute({
    operationId: 'listCustomPages',
    method: 'GET',
    path: BASE,
    handler: 'functions/theme-server/list-custom-pages.ts',
    auth: 'bearer',
    permission: 'ThemeServer:getCustomPages',
    summary: "The tenant's custom page versions, a page at a time",
    description: 'Every version of every page, by name then version unless `sort` says otherwise (name, version, status, createdDtm, lastUpdatedDtm).',
    tag: TAG,
    request: { query: CustomPageListQuerySchema },
    responses: { 200: { description: 'A page of versions, without their files.', schema: CustomPagePageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  listCustomPageVersions: defineRoute({
    operationId: 'listCustomPageVersions',
    method: 'GET',
    path: `${BASE}/{customPage}/versions`,
    handler: 'functions/theme-server/list-custom-page-versions.ts',
    auth: 'bearer',
    permission: 'ThemeServer:getCustomPages',
    summary: "A name's versions, a page at a time",
    description: "The path variable is the page's name here. The latest version: `?page=0&size=1&sort=version,desc`. A name with no versions gives an empty page.",
    tag: TAG,
    request: { path: CustomPageNamePathSchema, query: CustomPageListQuerySchema },
    responses: { 200: { description: 'A page of versions.', schema: CustomPagePageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  getCustomPageVersion: defineRoute({
    operationId: 'getCustomPageVersion',
    method: 'GET',
    path: `${BASE}/{customPage}/{version}`,
    handler: 'functions/theme-server/get-custom-page-version.ts',
    auth: 'bearer',
    permission: 'ThemeServer:getCustomPages',
    summary: 'Read one version by name and version number',
    tag: TAG,
    request: { path: CustomPageNameVersionPathSchema },
    responses: { 200: { description: 'The version.', schema: CustomPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such version in this tenant.') },
    aws: { table: ['GetItem'], pagesOrigin: true },
  }),
  getCustomPage: defineRoute({
    operationId: 'getCustomPage',
    method: 'GET',
    path: `${BASE}/{customPage}`,
    handler: 'functions/theme-server/get-custom-page.ts',
    auth: 'bearer',
    permission: 'ThemeServer:getCustomPages',
    summary: 'Read one version by id, with its files and previewUrl',
    description: "The path variable is the version's id (a UUID) here. `previewUrl` and every entry under `baseUrl` are readable without a token.",
    tag: TAG,
    request: { path: CustomPageIdPathSchema },
    responses: { 200: { description: 'The version.', schema: CustomPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such custom page in this tenant.') },
    aws: { table: ['GetItem'], pagesOrigin: true },
  }),
  addCustomPage: defineRoute({
    operationId: 'addCustomPage',
    method: 'POST',
    path: BASE,
    handler: 'functions/theme-server/add-custom-page.ts',
    auth: 'bearer',
    permission: 'ThemeServer:addCustomPage',
    summary: 'Add a version of a custom page',
    description:
      'Each upload is a new version with a new id (the next version of the name unless `version` is given). The content is one of: `archive` ' +
      `(the bundle, .zip or .tar.gz, in base64: the family's body, up to ${MAX_CREATE_BODY_BYTES} bytes of JSON), \`uploadId\` (a bundle PUT through ` +
      `POST ${BASE}/uploads, up to 15 MiB) or \`baseAppUrl\` (https). ${BUNDLE_REFUSALS}`,
    tag: TAG,
    request: { body: CreateCustomPageSchema, maxBodyBytes: MAX_CREATE_BODY_BYTES, overLimit: CustomPageBodyTooLargeError },
    responses: {
      201: { description: 'The stored version.', schema: CustomPageSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      409: error('This name and version already exist (CUSTOM_PAGE_EXISTS).'),
      413: bodyTooLarge,
    },
    // DeleteItem and DeleteObject: an upload is used once (and a failed write undone).
    aws: { table: ['Query', 'PutItem', 'DeleteItem'], pages: ['PutObject', 'GetObject', 'DeleteObject'] },
    lambda: { memorySize: 1024, timeoutSeconds: 29 },
  }),
  previewCustomPage: defineRoute({
    operationId: 'previewCustomPage',
    method: 'POST',
    path: `${BASE}/previews`,
    handler: 'functions/theme-server/preview-custom-page.ts',
    auth: 'bearer',
    permission: 'ThemeServer:addCustomPage',
    summary: 'Serve a bundle for a look, without adding a version',
    description: `The same content and rules as a create; answers where it is served. ${BUNDLE_REFUSALS}`,
    tag: TAG,
    request: { body: PreviewCustomPageSchema, maxBodyBytes: MAX_CREATE_BODY_BYTES, overLimit: CustomPageBodyTooLargeError },
    responses: { 201: { description: 'Where the preview is served.', schema: CustomPagePreviewSchema }, 400: badRequest, 401: unauthorized, 403: forbidden, 413: bodyTooLarge },
    aws: { table: ['DeleteItem'], pages: ['PutObject', 'GetObject', 'DeleteObject'] },
    lambda: { memorySize: 1024, timeoutSeconds: 29 },
  }),
  startCustomPageUpload: defineRoute({
    operationId: 'startCustomPageUpload',
    method: 'POST',
    path: `${BASE}/uploads`,
    handler: 'functions/theme-server/start-custom-page-upload.ts',
    auth: 'bearer',
    permission: 'ThemeServer:addCustomPage',
    summary: 'A pre-signed URL to PUT a bundle to (for bundles over what one request carries)',
    description:
      `PUT the archive's bytes to \`uploadUrl\` with \`uploadHeaders\` before \`expiresAt\` (15 minutes), then POST ${BASE} with ` +
      '`{name, description, uploadId}`. An upload is used once. No body is needed.',
    tag: TAG,
    request: {},
    responses: { 201: { description: 'Where to PUT the archive.', schema: CustomPageUploadSchema }, 401: unauthorized, 403: forbidden },
    aws: { table: ['PutItem'], pages: ['PutObject'] },
  }),
  setCustomPageStatus: defineRoute({
    operationId: 'setCustomPageStatus',
    method: 'POST',
    path: `${BASE}/{customPage}/status/{status}`,
    handler: 'functions/theme-server/set-custom-page-status.ts',
    auth: 'bearer',
    permission: 'ThemeServer:updateCustomPage',
    summary: 'Move a custom page version along its lifecycle',
    description:
      'As data forms: EDITABLE (or DRAFT) → DEPLOYED_ACTIVE or ARCHIVED; DEPLOYED_ACTIVE ⇄ DEPLOYED_INACTIVE; either → ARCHIVED, which is final. ' +
      'Setting the current status changes nothing. No body is needed; `{}` or the page object is ignored. The answer carries `previewUrl`.',
    tag: TAG,
    // The family's clients may send the page object back, with up to 1,000 archive entries.
    request: { path: CustomPageStatusPathSchema, maxBodyBytes: 512 * 1024 },
    responses: {
      200: { description: 'The version with its new status.', schema: CustomPageSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such custom page in this tenant.'),
      409: error('The status changed meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'UpdateItem'], pagesOrigin: true },
  }),
  updateCustomPage: defineRoute({
    operationId: 'updateCustomPage',
    method: 'POST',
    path: `${BASE}/{customPage}`,
    handler: 'functions/theme-server/update-custom-page.ts',
    auth: 'bearer',
    permission: 'ThemeServer:updateCustomPage',
    summary: 'Update a version: its description, and its content while a draft',
    description:
      'The body is the page object as read (what does not change is ignored). `description` always; a new `archive`, `uploadId` or `baseAppUrl` ' +
      `only while the version is EDITABLE or DRAFT (400 INVALID_STATUS_TRANSITION otherwise: add a new version). New files get a new folder (a new previewUrl). ${BUNDLE_REFUSALS}`,
    tag: TAG,
    request: { path: CustomPageIdPathSchema, body: UpdateCustomPageSchema, maxBodyBytes: MAX_CREATE_BODY_BYTES, overLimit: CustomPageBodyTooLargeError },
    responses: {
      200: { description: 'The updated version.', schema: CustomPageSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such custom page in this tenant.'),
      409: error('The version changed meanwhile (CONCURRENT_UPDATE).'),
      413: bodyTooLarge,
    },
    aws: { table: ['GetItem', 'UpdateItem', 'DeleteItem'], pages: [...pageFiles, 'GetObject'] },
    lambda: { memorySize: 1024, timeoutSeconds: 29 },
  }),
  deleteCustomPageArchive: defineRoute({
    operationId: 'deleteCustomPageArchive',
    method: 'DELETE',
    path: `${BASE}/{customPage}/archive`,
    handler: 'functions/theme-server/delete-custom-page-archive.ts',
    auth: 'bearer',
    permission: 'ThemeServer:deleteCustomPage',
    summary: "Delete a version's files; the version stays, without entries",
    tag: TAG,
    request: { path: CustomPageIdPathSchema },
    responses: {
      200: { description: 'The version, without files (previewUrl null).', schema: CustomPageSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such custom page in this tenant.'),
      409: error('The version changed meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'UpdateItem'], pages: ['DeleteObject', 'ListBucket'] },
  }),
  deleteCustomPage: defineRoute({
    operationId: 'deleteCustomPage',
    method: 'DELETE',
    path: `${BASE}/{customPage}`,
    handler: 'functions/theme-server/delete-custom-page.ts',
    auth: 'bearer',
    permission: 'ThemeServer:deleteCustomPage',
    summary: 'Delete a version and its files',
    description: 'As with data forms, a definition that names the version is not checked; its journeys fail that step as for a missing page.',
    tag: TAG,
    request: { path: CustomPageIdPathSchema },
    responses: { 204: { description: 'Deleted.' }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such custom page in this tenant.') },
    aws: { table: ['GetItem', 'DeleteItem'], pages: ['DeleteObject', 'ListBucket'] },
  }),
} satisfies Record<string, RouteDef>;
