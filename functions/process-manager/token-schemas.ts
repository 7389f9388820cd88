import * as z from 'zod';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';

export const PROCESS_TOKEN_TYPES = ['UNLIMITED', 'MULTI_USE_COUNT_LIMITED', 'MULTI_USE_TIME_LIMITED'] as const;
export const PROCESS_TOKEN_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export const IMAGE_FORMATS = ['JPEG', 'PNG'] as const;
export const MAX_COUNT_LIMIT = 1_000_000;
export const MAX_PARAMETERS = 50;

/** An absolute http(s) URL: `javascript:`, `data:` and relative URLs are refused. */
export const HttpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !!u.hostname && !u.username && !u.password;
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL without credentials (https is recommended)')
  .meta({ format: 'uri' });

const ParameterKey = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, 'keys are 1-100 characters: letters, digits, _ . - (not starting with a digit)');

export const ParametersSchema = z
  .record(ParameterKey, z.string().max(2000))
  .refine((p) => Object.keys(p).length <= MAX_PARAMETERS, `at most ${MAX_PARAMETERS} parameters`)
  .refine((p) => p._redirectUrl === undefined || HttpUrl.safeParse(p._redirectUrl).success, {
    message: '_redirectUrl must be an absolute http(s) URL (https is recommended)',
    path: ['_redirectUrl'],
  })
  .meta({
    description:
      'Extra data for the instance (typically firstName, lastName, email, phoneNumber). `_redirectUrl` is where the end ' +
      'user is sent at the end of the journey.',
  });

export const ProcessInstanceInitSchema = z
  .object({
    externalSources: z
      .object({
        faceUploads: z
          .record(
            z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'image keys are 1-64 letters, digits, _ or -'),
            z.object({ imageFormat: z.enum(IMAGE_FORMATS) }).strict(),
          )
          .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 10, 'between 1 and 10 face uploads'),
      })
      .strict()
      .meta({ description: 'Only faceUploads is supported as an external source.' }),
  })
  .strict()
  .meta({ id: 'ProcessInstanceInit' });

const DefnVersion = z
  .union([z.string().regex(/^[1-9]\d{0,8}$/, 'must be a positive integer'), z.number().int().min(1).max(999_999_999)])
  .transform(String)
  .meta({ description: 'Process definition version (a positive integer, sent as a string or a number).' });

export const ProcessTokenCreateSchema = z
  .object({
    name: text(1, 255).meta({ description: 'Unique in the tenant.' }),
    description: text(0, 255).optional(),
    status: z.enum(PROCESS_TOKEN_STATUSES).optional().meta({ description: 'Default ACTIVE. INACTIVE tokens create nothing.' }),
    type: z.enum(PROCESS_TOKEN_TYPES).optional().meta({ description: 'Default UNLIMITED.' }),
    maxCount: z.number().int().min(1).max(MAX_COUNT_LIMIT).optional().meta({
      description: 'Required for MULTI_USE_COUNT_LIMITED: how many instances the token can create.',
    }),
    validFromDtm: DateTime.optional().meta({ description: 'MULTI_USE_TIME_LIMITED: start of validity (default: now).' }),
    validToDtm: DateTime.optional().meta({ description: 'Required for MULTI_USE_TIME_LIMITED: end of validity.' }),
    processDefnName: z.string().min(1).max(100).optional(),
    processDefnVersion: DefnVersion.optional(),
    processDefnTag: z.string().min(1).max(100).optional().meta({
      description: 'A definition tag instead of name + version; resolved when each instance is created.',
    }),
    uiUrl: HttpUrl.optional().meta({ description: "Only the service's own user interface is supported: omit it, or give this tenant's own host." }),
    parameters: ParametersSchema.optional(),
    processInstanceInit: ProcessInstanceInitSchema.optional(),
    maxProcessDuration: z.string().max(64).optional().meta({ deprecated: true, description: 'Deprecated since August 2025; accepted and ignored; will be removed.' }),
  })
  .strict()
  .meta({ id: 'ProcessTokenCreate' });

export type ProcessTokenCreateInput = z.infer<typeof ProcessTokenCreateSchema>;

export const ProcessTokenSchema = z
  .object({
    id: z.string().meta({ description: 'The token id: the `pt` of instance creation.' }),
    name: z.string(),
    description: z.string(),
    status: z.enum(PROCESS_TOKEN_STATUSES),
    type: z.enum(PROCESS_TOKEN_TYPES),
    maxCount: z.number().int().nullable(),
    counter: z.number().int().meta({ description: 'Instances created from the token so far.' }),
    validFromDtm: DateTime.nullable(),
    validToDtm: DateTime.nullable(),
    processDefnName: z.string().nullable(),
    processDefnVersion: z.string().nullable(),
    processDefnTag: z.string().nullable(),
    uiUrl: z.string(),
    parameters: z.record(z.string(), z.string()),
    processInstanceInit: ProcessInstanceInitSchema.nullable(),
    maxProcessDuration: z.string().nullable().meta({ deprecated: true }),
    startProcessAddress: z.string().meta({ description: 'POST here (bearer or X-API-Key) to start an instance: it carries pt=<id>.' }),
    createdDtm: DateTime,
    createdBy: z.string(),
    warnings: z.array(z.string()).optional().meta({ description: 'Present when the request used deprecated fields.' }),
  })
  .meta({ id: 'ProcessToken' });

export const ProcessTokenPageSchema = pageSchema(ProcessTokenSchema, 'ProcessTokenPage');

export const PROCESS_TOKEN_SORTABLE = ['name', 'createdDtm', 'status', 'type', 'counter'] as const;

export const ProcessTokenListQuerySchema = z.object({
  name: z.string().max(255).optional().transform((v) => v ?? '%').meta({ description: 'SQL LIKE pattern, case-insensitive.' }),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: queryList(z.string().max(100)),
});

export const ProcessTokenIdPathSchema = z.object({ processTokenId: z.string().uuid('must be a process token id (a UUID)') }).strict();
