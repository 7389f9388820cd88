import * as z from 'zod';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';

export const API_KEY_TYPES = ['PERMANENT', 'SESSION'] as const;
export const API_KEY_STATUSES = ['ACTIVE', 'BLOCKED', 'ARCHIVED'] as const;

/**
 * Operations a key may be used for directly with `X-API-Key` (the spec's "K" routes).
 * A key's `permittedOperations` narrows it to some of them; empty means all of them.
 */
export const DIRECT_OPERATIONS = [
  'issueToken',
  'createProcessToken',
  'listProcessTokens',
  'createProcessInstance',
  'createProcessInstanceFromTemplate',
] as const;

export const SORTABLE_FIELDS = [
  'id',
  'name',
  'type',
  'status',
  'createdDtm',
  'lastUpdatedDtm',
  'expiringDtm',
  'lastIssuedAtDtm',
] as const;

export const PAGE_SIZE_MAX = 1000;

const ReadOnly = z.unknown().optional().meta({ readOnly: true, description: 'Read-only; ignored on input.' });

const writable = {
  name: text(1, 255).meta({ description: 'Length 1 to 255 characters.' }),
  description: text(0, 255).meta({ description: 'Length 0 to 255 characters.' }),
  type: z.enum(API_KEY_TYPES).meta({
    description: 'PERMANENT keys live until archived or deleted; SESSION keys must carry expiringDtm.',
  }),
  status: z.enum(API_KEY_STATUSES).meta({
    description: 'ACTIVE keys issue tokens. BLOCKED keys are paused and may be re-activated. ARCHIVED is final.',
  }),
  permissions: z
    .array(z.string().max(300))
    .max(100)
    .meta({ description: 'Full permission strings, `TNT#{tenantId}#<Server>:<operation>`, of this tenant only.' }),
  permittedOperations: z
    .array(z.enum(DIRECT_OPERATIONS))
    .max(DIRECT_OPERATIONS.length)
    .meta({ description: 'Operations the key may call directly with X-API-Key; empty allows all of them.' }),
  expiringDtm: DateTime.nullable().meta({ description: 'After this instant the key issues no token. Null: no expiry.' }),
};

const readOnly = {
  id: ReadOnly,
  code: ReadOnly,
  lastIssuedAtDtm: ReadOnly,
  createdDtm: ReadOnly,
  lastUpdatedDtm: ReadOnly,
  createdBy: ReadOnly,
  lastUpdatedBy: ReadOnly,
};

export const ApiKeyCreateSchema = z
  .object({
    name: writable.name,
    description: writable.description.optional(),
    type: writable.type.optional(),
    status: writable.status.optional(),
    permissions: writable.permissions.optional(),
    permittedOperations: writable.permittedOperations.optional(),
    expiringDtm: writable.expiringDtm.optional(),
    ...readOnly,
  })
  .strict()
  .meta({ id: 'ApiKeyCreate' });

/** Update: fields present replace the stored ones; fields absent are kept. */
export const ApiKeyUpdateSchema = ApiKeyCreateSchema.partial().meta({ id: 'ApiKeyUpdate' });

export type ApiKeyCreateInput = z.infer<typeof ApiKeyCreateSchema>;
export type ApiKeyUpdateInput = z.infer<typeof ApiKeyUpdateSchema>;

export const ApiKeySchema = z
  .object({
    id: z.string(),
    type: z.enum(API_KEY_TYPES),
    code: z.string().meta({ description: 'The last four characters of the secret, to recognise a key by.' }),
    name: z.string(),
    description: z.string(),
    status: z.enum(API_KEY_STATUSES),
    permissions: z.array(z.string()),
    permittedOperations: z.array(z.enum(DIRECT_OPERATIONS)),
    expiringDtm: DateTime.nullable(),
    lastIssuedAtDtm: DateTime.nullable(),
    createdDtm: DateTime,
    lastUpdatedDtm: DateTime,
    createdBy: z.string(),
    lastUpdatedBy: z.string(),
  })
  .meta({ id: 'ApiKey' });

export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  secret: z.string().meta({
    description: 'The value to send in X-API-Key. Returned only in this response; it is stored as a hash.',
  }),
}).meta({ id: 'ApiKeyCreated' });

export const ApiKeyPageSchema = pageSchema(ApiKeySchema, 'ApiKeyPage');

export const ApiKeyListQuerySchema = z
  .object({
    name: z.string().max(255).optional().transform((v) => v ?? '%').meta({
      description: 'SQL LIKE pattern on the name, case-insensitive: % any run, _ one character, \\ escapes.',
      default: '%',
    }),
    page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
    size: queryInt({ min: 1, max: PAGE_SIZE_MAX, default: 10 }),
    sort: queryList(z.string().max(100)).meta({
      description: `property[,asc|desc]; repeat for more orders. Properties: ${SORTABLE_FIELDS.join(', ')}.`,
    }),
  });

export const ApiKeyIdPathSchema = z.object({ apiKeyId: z.string().uuid('must be an API key id (a UUID)') }).strict();

export const TokenIssuedSchema = z
  .object({
    token: z.string().meta({ description: 'RS256 JWT (typ at+jwt) to send as Authorization: Bearer.' }),
    ttl: z.number().int().meta({ description: 'Seconds until the token expires (default 3600).', format: 'int32' }),
  })
  .meta({ id: 'TokenIssued' });
