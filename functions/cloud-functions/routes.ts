import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import {
  CloudFunctionIdPathSchema,
  CloudFunctionLogsSchema,
  CloudFunctionNamePathSchema,
  CloudFunctionPageSchema,
  CloudFunctionSchema,
  CloudFunctionStatusPathSchema,
  CloudSecretPageSchema,
  CloudSecretPathSchema,
  CloudSecretSchema,
  CloudSecretsQuerySchema,
  CreateCloudFunctionSchema,
  CreateCloudSecretSchema,
  CloudFunctionVersionsQuerySchema,
  RotateCloudSecretSchema,
} from './schemas.js';
import { InstanceIdPathSchema } from '../process-manager/instances/instance-schemas.js';

const FUNCTIONS = '/api/process-manager/cloudFunctions';
const SECRETS = '/api/process-manager/cloudSecrets';

/** Cloud functions and secrets, in the family's name / versions / id / status pattern. Part of the route table. */
export const cloudFunctionRoutes = {
  addCloudFunction: defineRoute({
    operationId: 'addCloudFunction',
    method: 'POST',
    path: FUNCTIONS,
    handler: 'functions/cloud-functions/add-cloud-function.ts',
    auth: 'bearer',
    permission: 'ProcessManager:addCloudFunction',
    summary: 'Add a version of a cloud function',
    description:
      'The code is one ES module (`source`) or a zip of modules (`zip`, base64) with `entryPoint`; the entry module exports ' +
      '`handler({variables, secrets})`, which returns the process variables to set. For example:\n\n' +
      '```js\nexport async function handler({ variables, secrets }) {\n' +
      "  const res = await fetch('https://otp.example.com/send', { method: 'POST', headers: { authorization: `Bearer ${secrets.otpKey}` }, " +
      'body: JSON.stringify({ phone: variables.phoneNumber }) });\n' +
      "  console.log('otp sent', res.status);\n  return { otpSent: res.ok };\n}\n```\n\n" +
      'It has `fetch` (HTTPS only, private and metadata addresses refused), `console`, `setTimeout`, `atob`/`btoa`, ' +
      '`TextEncoder`/`TextDecoder`, `URL` and its own modules; no `process`, `require`, Node modules or environment. ' +
      'Without `version` the server assigns the next one of the name; a name + version is immutable (409).\n\n' +
      'A Python function (the family\'s: `type` PYTHON39V1 or PYTHON312V2, the script as `resource`) is a top-level script that reads ' +
      'the dict `params` (`secrets`, `vars`) and fills the dict `results`; the script is compiled at upload (a SyntaxError is refused ' +
      'with its line and column). For example:\n\n' +
      '```python\nimport requests\nr = requests.post("https://otp.example.com/send", json={"phone": params["vars"]["idv"]["phone"]},\n' +
      '                  headers={"authorization": "Bearer " + params["secrets"]["otpKey"]}, timeout=10)\n' +
      'results["pass"] = r.ok\nresults["executionVariables"] = {"otpSent": r.ok}\n```\n\nSee docs/cloud-functions.md.',
    tag: 'Cloud functions',
    request: { body: CreateCloudFunctionSchema, maxBodyBytes: 512 * 1024 },
    responses: {
      201: { description: 'The stored version, with its modules.', schema: CloudFunctionSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      409: error('This name and version already exist (CLOUD_FUNCTION_EXISTS).'),
      503: error('The runner that compiles a Python script did not answer (SERVICE_UNAVAILABLE); send the same upload again.'),
    },
    aws: { table: ['Query', 'PutItem'], functionRunner: 'checkPython' },
    // A Python upload waits for the runner to compile it (its first start: the interpreter's snapshot).
    lambda: { timeoutSeconds: 30 },
  }),
  listCloudFunctionVersions: defineRoute({
    operationId: 'listCloudFunctionVersions',
    method: 'GET',
    path: `${FUNCTIONS}/{cloudFunction}/versions`,
    handler: 'functions/cloud-functions/list-cloud-function-versions.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getCloudFunctions',
    summary: "A function name's versions, a page at a time",
    description: "The path variable is the function's name here. `sort` as for data forms; the latest: `?page=0&size=1&sort=version,desc`.",
    tag: 'Cloud functions',
    request: { path: CloudFunctionNamePathSchema, query: CloudFunctionVersionsQuerySchema },
    responses: { 200: { description: 'A page of versions, without their code.', schema: CloudFunctionPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['Query'] },
  }),
  getCloudFunction: defineRoute({
    operationId: 'getCloudFunction',
    method: 'GET',
    path: `${FUNCTIONS}/{cloudFunction}`,
    handler: 'functions/cloud-functions/get-cloud-function.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getCloudFunctions',
    summary: 'Read one function version, with its code',
    description: "The path variable is the version's id (a UUID) here.",
    tag: 'Cloud functions',
    request: { path: CloudFunctionIdPathSchema },
    responses: { 200: { description: 'The version.', schema: CloudFunctionSchema }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such function in this tenant.') },
    aws: { table: ['GetItem'] },
  }),
  setCloudFunctionStatus: defineRoute({
    operationId: 'setCloudFunctionStatus',
    method: 'POST',
    path: `${FUNCTIONS}/{cloudFunction}/status/{status}`,
    handler: 'functions/cloud-functions/set-cloud-function-status.ts',
    auth: 'bearer',
    permission: 'ProcessManager:updateCloudFunction',
    summary: 'Move a function version along its lifecycle',
    description: 'As for definitions and data forms: DRAFT (or EDITABLE, a draft so created) → DEPLOYED_ACTIVE or ARCHIVED; DEPLOYED_ACTIVE ⇄ DEPLOYED_INACTIVE; either → ARCHIVED (final).',
    tag: 'Cloud functions',
    request: { path: CloudFunctionStatusPathSchema },
    responses: {
      200: { description: 'The version with its new status.', schema: CloudFunctionSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such function in this tenant.'),
      409: error('The status changed meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'UpdateItem'] },
  }),
  listCloudSecrets: defineRoute({
    operationId: 'listCloudSecrets',
    method: 'GET',
    path: SECRETS,
    handler: 'functions/cloud-functions/list-cloud-secrets.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getCloudSecrets',
    summary: "The tenant's cloud secrets, a page at a time (never their values)",
    description:
      '`sort` by name, version, createdDtm or lastUpdatedDtm; unsorted pages come in name order, in which a page reads only itself and ' +
      '`nextCursor` continues after it (docs/lists.md). `name` keeps the names that begin with it.',
    tag: 'Cloud secrets',
    request: { query: CloudSecretsQuerySchema },
    responses: { 200: { description: 'A page of secrets, without values.', schema: CloudSecretPageSchema }, 400: badRequest, 401: unauthorized, 403: forbidden },
    aws: { table: ['GetItem', 'Query'] },
  }),
  createCloudSecret: defineRoute({
    operationId: 'createCloudSecret',
    method: 'POST',
    path: SECRETS,
    handler: 'functions/cloud-functions/create-cloud-secret.ts',
    auth: 'bearer',
    permission: 'ProcessManager:addCloudSecret',
    summary: 'Create a cloud secret',
    description: 'The value is sealed with the secrets key (KMS on AWS) before it is stored, and no read returns it; a step gives it only to the function it runs, and only the secrets the step lists.',
    tag: 'Cloud secrets',
    request: { body: CreateCloudSecretSchema, maxBodyBytes: 16 * 1024 },
    responses: {
      201: { description: 'The secret, without its value.', schema: CloudSecretSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      409: error('A secret of this name exists (CLOUD_SECRET_EXISTS): rotate it instead.'),
    },
    aws: { table: ['PutItem'], cloudSecrets: 'seal' },
  }),
  getCloudSecret: defineRoute({
    operationId: 'getCloudSecret',
    method: 'GET',
    path: `${SECRETS}/{cloudSecret}`,
    handler: 'functions/cloud-functions/get-cloud-secret.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getCloudSecrets',
    summary: 'Read a cloud secret (never its value)',
    tag: 'Cloud secrets',
    request: { path: CloudSecretPathSchema },
    responses: { 200: { description: 'The secret, without its value.', schema: CloudSecretSchema }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such secret in this tenant.') },
    aws: { table: ['GetItem'] },
  }),
  rotateCloudSecret: defineRoute({
    operationId: 'rotateCloudSecret',
    method: 'POST',
    path: `${SECRETS}/{cloudSecret}`,
    handler: 'functions/cloud-functions/rotate-cloud-secret.ts',
    auth: 'bearer',
    permission: 'ProcessManager:updateCloudSecret',
    summary: 'Rotate a cloud secret: a new value under the next version',
    description: 'Steps that start after the rotation get the new value; the old one is not kept.',
    tag: 'Cloud secrets',
    request: { path: CloudSecretPathSchema, body: RotateCloudSecretSchema, maxBodyBytes: 16 * 1024 },
    responses: {
      200: { description: 'The secret, without its value.', schema: CloudSecretSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such secret in this tenant.'),
      409: error('It was rotated meanwhile (CONCURRENT_UPDATE).'),
    },
    aws: { table: ['GetItem', 'PutItem'], cloudSecrets: 'seal' },
  }),
  deleteCloudSecret: defineRoute({
    operationId: 'deleteCloudSecret',
    method: 'DELETE',
    path: `${SECRETS}/{cloudSecret}`,
    handler: 'functions/cloud-functions/delete-cloud-secret.ts',
    auth: 'bearer',
    permission: 'ProcessManager:deleteCloudSecret',
    summary: 'Delete a cloud secret',
    description: 'A step that lists it afterwards fails with its `Cloud Secret Missing` error.',
    tag: 'Cloud secrets',
    request: { path: CloudSecretPathSchema },
    responses: { 204: { description: 'Deleted.' }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such secret in this tenant.') },
    aws: { table: ['DeleteItem'] },
  }),
  listCloudFunctionLogs: defineRoute({
    operationId: 'listCloudFunctionLogs',
    method: 'GET',
    path: '/api/process-manager/processInstances/{processInstanceId}/cloudFunctionLogs',
    handler: 'functions/cloud-functions/list-cloud-function-logs.ts',
    auth: 'bearer',
    permission: 'ProcessManager:getProcessInstance',
    summary: "An instance's cloud function runs and their console output",
    description:
      "Every run of a step whose `Report Log` is true (the default): its outcome, duration and console lines, secret values " +
      'masked as `[secret]`, at most 64 KiB of lines a run. Kept as long as the instance.',
    tag: 'Cloud functions',
    request: { path: InstanceIdPathSchema },
    responses: { 200: { description: 'The runs.', schema: CloudFunctionLogsSchema }, 400: badRequest, 401: unauthorized, 403: forbidden, 404: error('No such instance in this tenant.') },
    aws: { table: ['GetItem', 'Query'] },
  }),
} satisfies Record<string, RouteDef>;
