import * as z from '../../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../../shared/page.js';
import { isHttpUrl, MAX_REDIRECT_URL_LENGTH } from '../../shared/http-url.js';
import { SandboxSchema } from '../sandbox-schema.js';

export const PROCESS_TOKEN_TYPES = ['UNLIMITED', 'MULTI_USE_COUNT_LIMITED', 'MULTI_USE_TIME_LIMITED'] as const;
export const PROCESS_TOKEN_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export const IMAGE_FORMATS = ['JPEG', 'PNG'] as const;
export const MAX_COUNT_LIMIT = 1_000_000;
export const MAX_PARAMETERS = 50;

/** An absolute http(s) URL: `javascript:`, `data:` and relative URLs are refused. */
export const HttpUrl = z.withMeta(
  z.string().check(z.maxLength(MAX_REDIRECT_URL_LENGTH), z.refine(isHttpUrl, 'must be an absolute http(s) URL without credentials (https is recommended)')),
  { format: 'uri' },
);

const ParameterKey = z
  .string()
  .check(z.regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, 'keys are 1-100 characters: letters, digits, _ . - (not starting with a digit)'));

/**
 * A parameter whose value is `null` is absent (as a Spring client sends a field it has no value
 * for): it is dropped, never stored, so the journey has no value for it (a required input that
 * names it fails as for any parameter not given) and a templated creation's `null` leaves the
 * token's own value in place.
 */
export const ParametersSchema = z.withMeta(
  z
    .pipe(
      z.record(ParameterKey, z.nullable(z.string().check(z.maxLength(2000)))),
      z.transform((p): Record<string, string> => Object.fromEntries(Object.entries(p).filter((e): e is [string, string] => e[1] !== null))),
    )
    .check(
      z.refine((p) => Object.keys(p).length <= MAX_PARAMETERS, `at most ${MAX_PARAMETERS} parameters`),
      z.refine((p) => p._redirectUrl === undefined || HttpUrl.safeParse(p._redirectUrl).success, {
        message: '_redirectUrl must be an absolute http(s) URL (https is recommended)',
        path: ['_redirectUrl'],
      }),
    ),
  {
    description:
      'Extra data for the instance (typically firstName, lastName, email, phoneNumber). `_redirectUrl` is where the end ' +
      'user is sent at the end of the journey. A `null` value is absent (dropped).',
  },
);

export const ProcessInstanceInitSchema = z.withMeta(
  z.object({
    externalSources: z.withMeta(
      z.object({
        faceUploads: z
          .record(
            z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'image keys are 1-64 letters, digits, _ or -')),
            z.object({ imageFormat: z.enum(IMAGE_FORMATS) }),
          )
          .check(z.refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 10, 'between 1 and 10 face uploads')),
      }),
      { description: 'Only faceUploads is supported as an external source.' },
    ),
  }),
  { id: 'ProcessInstanceInit' },
);

const DefnVersion = z.withMeta(
  z.pipe(
    z.union([
      z.string().check(z.regex(/^[1-9]\d{0,8}$/, 'must be a positive integer')),
      z.number().check(z.int(), z.gte(1), z.lte(999_999_999)),
    ]),
    z.transform(String),
  ),
  { description: 'Process definition version (a positive integer, sent as a string or a number).' },
);

export const ProcessTokenCreateSchema = z.withMeta(
  z.object({
    name: z.withMeta(text(1, 255), { description: 'Unique in the tenant.' }),
    description: z.optional(text(0, 255)),
    status: z.withMeta(z.optional(z.enum(PROCESS_TOKEN_STATUSES)), { description: 'Default ACTIVE. INACTIVE tokens create nothing.' }),
    type: z.withMeta(z.optional(z.enum(PROCESS_TOKEN_TYPES)), { description: 'Default UNLIMITED.' }),
    maxCount: z.withMeta(z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_COUNT_LIMIT))), {
      description: 'Required for MULTI_USE_COUNT_LIMITED: how many instances the token can create.',
    }),
    validFromDtm: z.withMeta(z.optional(DateTime), { description: 'MULTI_USE_TIME_LIMITED: start of validity (default: now).' }),
    validToDtm: z.withMeta(z.optional(DateTime), { description: 'Required for MULTI_USE_TIME_LIMITED: end of validity.' }),
    notBeforeDtm: z.withMeta(z.optional(DateTime), { description: 'Another name for validFromDtm (as some clients send it).' }),
    notAfterDtm: z.withMeta(z.optional(DateTime), { description: 'Another name for validToDtm (as some clients send it).' }),
    processDefnName: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
    processDefnVersion: z.optional(DefnVersion),
    processDefnTag: z.withMeta(z.optional(z.string().check(z.minLength(1), z.maxLength(100))), {
      description: 'A definition tag instead of name + version; resolved when each instance is created.',
    }),
    uiUrl: z.withMeta(z.optional(HttpUrl), {
      description:
        "Only the service's own user interfaces: this tenant's host at `/journey` (the default) or `/web/trustweb`, the family's " +
        'hosted-UI link, whose `?pt=<token id>` starts an instance as startProcessAddress does. Kept as given.',
    }),
    parameters: z.optional(ParametersSchema),
    processInstanceInit: z.optional(ProcessInstanceInitSchema),
    maxProcessDuration: z.withMeta(z.optional(z.string().check(z.maxLength(64))), {
      deprecated: true,
      description: 'Deprecated since August 2025; accepted and ignored; will be removed.',
    }),
    forTest: z.withMeta(z.optional(z.boolean()), {
      description:
        "Test mode (the family's forTest; `\"true\"` is read as true): the token's instances are marked `forTest: true` on every read and " +
        'page, counted in no business metric, and may have their outcomes forced with `sandbox` (docs/sandbox.md). Default false.',
    }),
    sandbox: z.optional(SandboxSchema),
  }),
  { id: 'ProcessTokenCreate' },
);

export type ProcessTokenCreateInput = z.infer<typeof ProcessTokenCreateSchema>;

export const ProcessTokenSchema = z.withMeta(
  z.object({
    id: z.withMeta(z.string(), { description: 'The token id: the `pt` of instance creation.' }),
    name: z.string(),
    description: z.string(),
    status: z.enum(PROCESS_TOKEN_STATUSES),
    type: z.enum(PROCESS_TOKEN_TYPES),
    maxCount: z.nullable(z.number().check(z.int())),
    counter: z.withMeta(z.number().check(z.int()), { description: 'Instances created from the token so far.' }),
    validFromDtm: z.nullable(DateTime),
    validToDtm: z.nullable(DateTime),
    processDefnName: z.nullable(z.string()),
    processDefnVersion: z.nullable(z.string()),
    processDefnTag: z.nullable(z.string()),
    uiUrl: z.string(),
    parameters: z.record(z.string(), z.string()),
    processInstanceInit: z.nullable(ProcessInstanceInitSchema),
    maxProcessDuration: z.withMeta(z.nullable(z.string()), { deprecated: true }),
    startProcessAddress: z.withMeta(z.string(), {
      description: 'POST here (bearer or X-API-Key) to start an instance: it carries pt=<id>.',
    }),
    createdDtm: DateTime,
    createdBy: z.string(),
    warnings: z.withMeta(z.optional(z.array(z.string())), { description: 'Present when the request used deprecated fields.' }),
    forTest: z.withMeta(z.optional(z.literal(true)), { description: 'Present (true) only on a test-mode token (docs/sandbox.md).' }),
    sandbox: z.withMeta(z.optional(SandboxSchema), { description: 'The outcomes a test-mode token forces, as given.' }),
  }),
  { id: 'ProcessToken' },
);

export const ProcessTokenPageSchema = cursorPageSchema(ProcessTokenSchema, 'ProcessTokenPage');

export const PROCESS_TOKEN_SORTABLE = ['name', 'createdDtm', 'status', 'type', 'counter'] as const;

export const ProcessTokenListQuerySchema = z.object({
  name: z.withMeta(z.pipe(z.optional(z.string().check(z.maxLength(255))), z.transform((v) => v ?? '%')), {
    description: 'SQL LIKE pattern, case-insensitive.',
  }),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      `property[,asc|desc]; default createdDtm,asc. Properties: ${PROCESS_TOKEN_SORTABLE.join(', ')}. By createdDtm (either way) a page reads ` +
      'only itself; the others sort at most 2,000 matching tokens in memory and page by number only.',
  }),
  cursor: cursorParam(),
});

export const ProcessTokenIdPathSchema = z.strictObject({
  processTokenId: z.string().check(z.uuid('must be a process token id (a UUID)')),
});
