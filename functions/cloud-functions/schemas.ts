import * as z from '../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../shared/page.js';
import { CREATE_STATUSES, DEPLOYMENT_STATUSES } from '../process-manager/model.js';
import { CLOUD_FUNCTION_FORMATS, CLOUD_FUNCTION_TYPES } from './model.js';
import { MAX_CODE_BYTES, MAX_PYTHON_CHARS, MAX_ZIP_BYTES, MEMORY_MB, TIMEOUT_SECONDS } from './functions.js';
import { MAX_SECRET_BYTES, MIN_SECRET_CHARS } from './secrets.js';

/** Names go into paths, so they hold no `/`: letters, digits and `_ . -`, as the family's function names. */
export const CloudFunctionNameSchema = z.withMeta(
  z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be 1 to 128 letters, digits, _ . - (starting with a letter or digit)')),
  { description: "The function's name." },
);

/** Secret names as Step references name them (`${secrets.apiKey}`-style keys): letters, digits, `_ . -`. */
export const CloudSecretNameSchema = z.withMeta(
  z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be 1 to 128 letters, digits, _ . - (starting with a letter or digit)')),
  { description: "The secret's name." },
);

const Status = z.enum(DEPLOYMENT_STATUSES);
const Id = z.withMeta(z.string().check(z.uuid('must be a cloud function id (a UUID)')), { description: "The function version's id." });

/** One path variable name at this level (API Gateway wants siblings' variables named alike); each route says which it is. */
export const CloudFunctionIdPathSchema = z.strictObject({ cloudFunction: Id });
export const CloudFunctionNamePathSchema = z.strictObject({ cloudFunction: CloudFunctionNameSchema });
export const CloudFunctionStatusPathSchema = z.strictObject({ cloudFunction: Id, status: Status });
export const CloudSecretPathSchema = z.strictObject({ cloudSecret: CloudSecretNameSchema });

export const PagedQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: queryList(z.string().check(z.maxLength(100))),
});

/** A name's versions: by version (either way) a page reads only itself, and continues by cursor. */
export const CloudFunctionVersionsQuerySchema = z.extend(PagedQuerySchema, {
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      'property[,asc|desc]; default version,asc. By version (either way) a page reads only itself; other properties sort at most ' +
      '2,000 versions in memory and page by number only.',
  }),
  cursor: cursorParam(),
});

export const CloudSecretsQuerySchema = z.extend(PagedQuerySchema, {
  name: z.withMeta(z.optional(z.string().check(z.maxLength(128))), { description: 'Only names that begin with this (case-sensitive).' }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      'property[,asc|desc]; default name,asc (byte order: A-Z before a-z). By name (either way) a page reads only itself; other ' +
      'properties sort at most 2,000 matching secrets in memory and page by number only.',
  }),
  cursor: cursorParam(),
});

const optional = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));
/** An integer in bounds (a numeric string reads as one: the wrapper reads requests leniently). */
const int = (min: number, max: number) => z.number().check(z.int(), z.gte(min), z.lte(max));
const bounded = (b: { min: number; max: number; default: number }, what: string) =>
  z.withMeta(optional(int(b.min, b.max)), { description: `${what}, ${b.min} to ${b.max}; default ${b.default}.` });

export const CreateCloudFunctionSchema = z.withMeta(
  z.object({
    name: CloudFunctionNameSchema,
    description: optional(text(0, 1000)),
    version: z.withMeta(optional(int(1, 1_000_000)), { description: 'An integer, also as a string ("2"); absent: the next version of the name.' }),
    status: z.withMeta(optional(z.enum(CREATE_STATUSES)), {
      description: 'Default DRAFT; EDITABLE (the family\'s draft) is a DRAFT that reads EDITABLE. A step without a version runs the latest DEPLOYED_ACTIVE one.',
    }),
    type: z.withMeta(optional(z.enum(CLOUD_FUNCTION_TYPES)), {
      description:
        'What runs it: JAVASCRIPT (default; `source` or `zip`), or a Python script in the family\'s contract (`resource`): PYTHON39V1 ' +
        '(Execute Cloud Function v1 and v2) or PYTHON312V2 (v2 only). Both Python types run on CPython 3.12 (docs/cloud-functions.md).',
    }),
    resource: z.withMeta(optional(z.string().check(z.maxLength(MAX_CODE_BYTES))), {
      description: `The family's field for the code: a Python script (at most ${MAX_PYTHON_CHARS} characters, compiled at upload: a SyntaxError is refused with its line), or one JavaScript module as \`source\`.`,
    }),
    source: z.withMeta(optional(z.string().check(z.maxLength(MAX_CODE_BYTES))), {
      description: 'One ES module whose exported `handler` runs (see docs/cloud-functions.md for the contract). Either this or `zip`.',
    }),
    zip: z.withMeta(optional(z.string().check(z.maxLength(Math.ceil(MAX_ZIP_BYTES / 3) * 4))), {
      description: `A zip of ES modules (.js, .mjs, .json), base64; at most ${MAX_ZIP_BYTES} bytes zipped, ${MAX_CODE_BYTES} unpacked, 100 files.`,
    }),
    entryPoint: z.withMeta(optional(z.string().check(z.maxLength(255))), {
      description: 'The module whose `handler` export runs: default `index.js` (or the only module).',
    }),
    timeoutSeconds: bounded(TIMEOUT_SECONDS, 'Seconds a run may take'),
    memoryMb: bounded(MEMORY_MB, 'MiB of memory a run may use'),
  }),
  { id: 'CloudFunctionCreate' },
);

const summary = {
  id: z.string(),
  name: z.string(),
  version: z.number().check(z.int()),
  description: z.string(),
  status: Status,
  type: z.enum(CLOUD_FUNCTION_TYPES),
  format: z.enum(CLOUD_FUNCTION_FORMATS),
  entryPoint: z.string(),
  files: z.array(z.string()),
  sha256: z.string(),
  timeoutSeconds: z.number().check(z.int()),
  memoryMb: z.number().check(z.int()),
  createdDtm: DateTime,
  createdBy: z.string(),
  lastUpdatedDtm: DateTime,
  lastUpdatedBy: z.string(),
};

export const CloudFunctionSummarySchema = z.withMeta(z.object(summary), { id: 'CloudFunctionSummary' });
export const CloudFunctionSchema = z.withMeta(
  z.object({
    ...summary,
    modules: z.withMeta(z.record(z.string(), z.string()), { description: 'The code: module path → source (a Python function: `function.py`).' }),
    resource: z.withMeta(z.optional(z.string()), { description: 'A function of one file (a Python script, one JavaScript module): that file, as the family reads it.' }),
  }),
  { id: 'CloudFunction' },
);
export const CloudFunctionPageSchema = cursorPageSchema(CloudFunctionSummarySchema, 'CloudFunctionPage');

const SecretValue = z.withMeta(
  z.string().check(
    // Logs mask every secret value; one shorter than 8 characters would mask ordinary text, so none is.
    z.minLength(MIN_SECRET_CHARS, `must be at least ${MIN_SECRET_CHARS} characters`),
    z.refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_SECRET_BYTES, { message: `must be at most ${MAX_SECRET_BYTES} bytes` }),
  ),
  { description: `The value, ${MIN_SECRET_CHARS} characters to ${MAX_SECRET_BYTES} bytes. Write-only: no read returns it.`, writeOnly: true },
);

export const CreateCloudSecretSchema = z.withMeta(
  z.object({ name: CloudSecretNameSchema, description: optional(text(0, 1000)), value: SecretValue }),
  { id: 'CloudSecretCreate' },
);
export const RotateCloudSecretSchema = z.withMeta(z.object({ description: optional(text(0, 1000)), value: SecretValue }), { id: 'CloudSecretRotate' });

export const CloudSecretSchema = z.withMeta(
  z.object({
    name: z.string(),
    description: z.string(),
    version: z.withMeta(z.number().check(z.int()), { description: '1 at creation, one more at each rotation.' }),
    createdDtm: DateTime,
    createdBy: z.string(),
    lastUpdatedDtm: DateTime,
    lastUpdatedBy: z.string(),
  }),
  { id: 'CloudSecret', description: 'A secret without its value: no read returns a value.' },
);
export const CloudSecretPageSchema = cursorPageSchema(CloudSecretSchema, 'CloudSecretPage');

const LogLine = z.object({ level: z.enum(['debug', 'info', 'warn', 'error']), message: z.string(), at: DateTime });
export const CloudFunctionLogsSchema = z.withMeta(
  z.object({
    content: z.array(
      z.object({
        activityId: z.string(),
        at: DateTime,
        functionName: z.string(),
        functionVersion: z.number().check(z.int()),
        ruleExecutionName: z.optional(z.string()),
        outcome: z.enum(['SUCCEEDED', 'FAILED']),
        error: z.nullable(z.object({ name: z.string(), message: z.string() })),
        durationMs: z.number(),
        lines: z.array(LogLine),
        truncated: z.boolean(),
      }),
    ),
  }),
  { id: 'CloudFunctionLogs', description: "An instance's cloud function runs in step and time order, their console output with secret values masked." },
);
