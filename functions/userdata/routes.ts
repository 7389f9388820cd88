import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { badRequest, error, forbidden, unauthorized } from '../http/responses.js';
import { DateTime } from '../shared/schemas.js';
import { ExportIdPath, ExportSchema } from '../exports/schemas.js';
import { INSTANCE_STATUSES } from '../process-manager/model.js';

const UserDataPath = z.strictObject({
  processDefnId: z.string().check(z.uuid('must be a process definition id')),
  processInstanceId: z.string().check(z.uuid('must be a process instance id')),
});

const CheckResult = z.enum(['PASS', 'FAIL', 'REVIEW', 'NOT_ASSESSED', 'BYPASSED']);

export const CheckResponseSchema = z.withMeta(
  z.object({
    checkId: z.withMeta(z.string(), { description: 'The key the check is kept under (a face capture: its Face Key; `_checks.{checkId}` in the session).' }),
    activityId: z.string(),
    checkType: z.withMeta(z.string(), { description: 'What was checked, for example `FACE_CAPTURE`.' }),
    result: CheckResult,
    displayName: z.withMeta(z.string(), { description: 'Human readable; not to be used in application logic.' }),
    description: z.withMeta(z.string(), { description: 'Human readable; not to be used in application logic.' }),
    // A JSON document in a string: the family's wire format, kept; the document says what it holds.
    moreinfo: z.optional(
      z.withMeta(z.string(), {
        description:
          "The check's figures as a JSON document in a string (parse it): the engine, its measurements and the thresholds they were judged by; " +
          'its members depend on `checkType`. Not always populated.',
        contentMediaType: 'application/json',
        contentSchema: { type: 'object', additionalProperties: true },
      }),
    ),
    checkedAt: DateTime,
    reports: z.array(
      z.object({
        name: z.string(),
        result: CheckResult,
        description: z.string(),
        reportType: z.optional(z.withMeta(z.string(), { description: 'Only for the NFC face match check.' })),
      }),
    ),
  }),
  { id: 'CheckResponse', description: 'One check of an instance and its reports.' },
);

const ImageMeta = {
  imageKey: z.withMeta(z.string(), { description: "The step's key (a face capture's Face Key, a document capture's Doc Key)." }),
  captureId: z.string(),
  kind: z.withMeta(z.enum(['FACE', 'DOCUMENT', 'ADDITIONAL_DOCUMENT']), {
    description: 'A face capture, a side of an identity document (Capture Document Image), or a page or PDF of an additional document (Capture Additional Document v3).',
  }),
  side: z.optional(z.withMeta(z.enum(['FRONT', 'BACK']), { description: "A document capture's side." })),
  documentId: z.optional(z.withMeta(z.string(), { description: "An additional document's id (its key in the Additional Documents configuration)." })),
  page: z.optional(z.withMeta(z.number().check(z.int()), { description: "An additional document's page, from 1 (1 for a PDF)." })),
  pages: z.optional(z.withMeta(z.number().check(z.int()), { description: "A PDF's page count." })),
  auditOf: z.optional(
    z.withMeta(z.string(), { description: "A Rekognition Face Liveness audit image (Liveness Check REKOGNITION): the captureId of the capture (the session's reference image) it goes with." }),
  ),
  format: z.withMeta(z.enum(['JPEG', 'PNG', 'PDF']), { description: 'PDF: an additional document sent as one file (width and height 0).' }),
  contentType: z.string(),
  width: z.number().check(z.int()),
  height: z.number().check(z.int()),
  bytes: z.number().check(z.int()),
  sha256: z.withMeta(z.string(), { description: "Hex SHA-256 of the image's bytes." }),
  capturedAt: DateTime,
};

const SummarySchema = z.withMeta(
  z.object({
    processInstanceId: z.string(),
    processDefnName: z.optional(z.string()),
    processDefnVersion: z.optional(z.number().check(z.int())),
    writtenAt: DateTime,
    decision: z.withMeta(z.nullable(z.string()), { description: 'The decision when the summary was written (PASS, FAIL or REVIEW), or null: a decider that runs later, or an error end, is not in it.' }),
    checks: z.withMeta(
      z.array(
        z.object({
          checkId: z.string(),
          result: z.nullable(z.string()),
          valid: z.withMeta(z.boolean(), { description: "The check's own `valid` where it has one, else whether its result is PASS." }),
          outcome: z.optional(z.string()),
          checkType: z.optional(z.string()),
          displayName: z.optional(z.string()),
        }),
      ),
      { description: "Each check of the session (`_checks`), by its key, as it stood: the final result of a check made again." },
    ),
    steps: z.withMeta(z.array(z.object({ activityId: z.string(), activityType: z.string(), at: DateTime })), {
      description: 'The steps kept with the instance (every user step the end user completed, and the service steps that keep data), oldest first, each at the time it last completed.',
    }),
    errors: z.withMeta(z.array(z.object({ error: z.string(), cause: z.optional(z.string()) })), {
      description: 'The error events taken (their ASL error name and cause), oldest first.',
    }),
    redirect: z.optional(z.object({ url: z.string(), at: DateTime })),
    truncated: z.optional(z.withMeta(z.literal(true), { description: 'The oldest steps (then errors, then checks) were left out to keep it within 300 KB.' })),
  }),
  { id: 'InstanceSummary', description: "A Write Summary Report step's summary of the instance, written when the step ran." },
);

/** The summary as the user data API shows it: what Write Summary Report V2 wrote (functions/activities/write-summary-v2.ts). */
export type InstanceSummaryView = z.infer<typeof SummarySchema>;

export const UserDataSchema = z.withMeta(
  z.object({
    processInstanceId: z.string(),
    processDefnId: z.string(),
    processDefnName: z.string(),
    processDefnVersion: z.number().check(z.int()),
    status: z.enum(INSTANCE_STATUSES),
    forTest: z.withMeta(z.optional(z.literal(true)), { description: 'Present (true) only for a test-mode instance: its outcomes may be forced (docs/sandbox.md).' }),
    forms: z.withMeta(z.record(z.string(), z.record(z.string(), z.unknown())), {
      description: "Each data form's values, under the form's `Form data Key`.",
    }),
    data: z.withMeta(z.optional(z.record(z.string(), z.record(z.string(), z.string()))), {
      description:
        'Only when custom pages were used: what each custom page sent last (its SEND variables, as text), under its step\'s `Custom Page Key` ' +
        '(docs/custom-pages.md, "In a journey"). Each custom page step is also in `steps`, with its last submission.',
      example: { nameForm: { preferredName: 'Ada', goback: 'false' } },
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
    checks: z.withMeta(z.array(CheckResponseSchema), { description: 'Every check result, in the order made (also at `userdata/checks`).' }),
    images: z.withMeta(
      z.array(
        z.object({
          ...ImageMeta,
          data: z.optional(z.withMeta(z.string(), { description: 'The image, base64: while the answer stays within its size budget.' })),
          url: z.optional(
            z.withMeta(z.string(), {
              description: 'Instead of `data` for the images past the budget (5.5 MB of JSON; 4.4 MB for `getdata`): a pre-signed S3 GET of the image.',
            }),
          ),
          urlExpiresAt: z.optional(z.withMeta(DateTime, { description: 'When `url` stops working (5 minutes after the answer); read the user data again for a fresh one.' })),
        }),
      ),
      {
        description:
          'Every image the end user provided (face captures, document sides): its bytes in `data` while the document stays within the Lambda response limit, a pre-signed `url` for the rest.',
      },
    ),
    summary: z.optional(SummarySchema),
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
    aws: { table: ['GetItem', 'Query'], images: ['GetObject'] },
  }),
  getUserDataChecks: defineRoute({
    operationId: 'getUserDataChecks',
    method: 'GET',
    path: '/api/userdata-server/processDefinitions/{processDefnId}/processInstances/{processInstanceId}/userdata/checks',
    handler: 'functions/userdata/get-user-data-checks.ts',
    auth: 'bearer',
    permission: 'UserDataServer:getProcessInstanceUserData',
    summary: "An instance's check results",
    tag: 'User data',
    request: { path: UserDataPath },
    responses: {
      200: { description: 'The checks, in the order made.', schema: z.array(CheckResponseSchema) },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance of this definition in this tenant, or past its retention.'),
    },
    aws: { table: ['GetItem', 'Query'] },
  }),
  getUserDataBinary: defineRoute({
    operationId: 'getUserDataBinary',
    method: 'GET',
    path: '/api/userdata-server/processDefinitions/{processDefnId}/processInstances/{processInstanceId}/getdata',
    handler: 'functions/userdata/get-user-data-binary.ts',
    auth: 'bearer',
    permission: 'UserDataServer:getProcessInstanceUserData',
    summary: 'The user data as one binary document, base64 in `data`',
    tag: 'User data',
    request: { path: UserDataPath },
    responses: {
      200: {
        description: 'The user data document (UTF-8 JSON), base64-encoded.',
        schema: z.withMeta(z.object({ data: z.string() }), { id: 'UserDataBinary' }),
      },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such instance of this definition in this tenant, or past its retention.'),
    },
    aws: { table: ['GetItem', 'Query'], images: ['GetObject'] },
  }),
  createUserDataArchive: defineRoute({
    operationId: 'createUserDataArchive',
    method: 'POST',
    path: '/api/userdata-server/processDefinitions/{processDefnId}/processInstances/{processInstanceId}/userdataarchive',
    handler: 'functions/userdata/create-user-data-archive.ts',
    auth: 'bearer',
    permission: 'UserDataServer:getProcessInstanceUserData',
    summary: 'A password-protected zip (AES-256) of the user data',
    description: 'The password: 12 to 128 characters mixing at least three of lower case, upper case, digits and symbols.',
    tag: 'User data',
    request: {
      path: UserDataPath,
      body: z.withMeta(z.object({ config: z.object({ password: z.string().check(z.minLength(1), z.maxLength(1000)) }) }), {
        id: 'UserDataArchiveRequest',
      }),
    },
    responses: {
      200: { description: 'The zip; every entry encrypted with AES-256.', contentType: 'application/zip', schema: z.string() },
      202: {
        description:
          'The zip would be over 4.4 MB (over the Lambda response limit once base64-encoded): an export job makes it; `Location` is its status route, which gives a download URL once it SUCCEEDED.',
        schema: ExportSchema,
      },
      400: error('A missing or weak password, or a malformed request.'),
      401: unauthorized,
      403: forbidden,
      404: error('No such instance of this definition in this tenant, or past its retention.'),
    },
    aws: { table: ['GetItem', 'Query', 'PutItem'], images: ['GetObject'], exports: ['Seal', 'SendMessage'] },
  }),
  getUserDataArchiveExport: defineRoute({
    operationId: 'getUserDataArchiveExport',
    method: 'GET',
    path: '/api/userdata-server/processDefinitions/{processDefnId}/processInstances/{processInstanceId}/userdataarchive/exports/{exportId}',
    handler: 'functions/userdata/get-user-data-archive-export.ts',
    auth: 'bearer',
    permission: 'UserDataServer:getProcessInstanceUserData',
    summary: 'The status of an archive export, with its download URL once made',
    tag: 'User data',
    request: { path: z.strictObject({ ...UserDataPath.shape, exportId: ExportIdPath }) },
    responses: {
      200: { description: 'The export job.', schema: ExportSchema },
      400: badRequest,
      401: unauthorized,
      403: forbidden,
      404: error('No such archive export of this instance in this tenant, or past its 7 days.'),
    },
    aws: { table: ['GetItem'], exports: ['GetObject'] },
  }),
} satisfies Record<string, RouteDef>;
