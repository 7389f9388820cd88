import * as z from '../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../shared/page.js';

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
  'createProcessInstanceFromLink',
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

const ReadOnly = z.withMeta(z.optional(z.unknown()), { readOnly: true, description: 'Read-only; ignored on input.' });

const writable = {
  name: z.withMeta(text(1, 255), { description: 'Length 1 to 255 characters.' }),
  description: z.withMeta(text(0, 255), { description: 'Length 0 to 255 characters.' }),
  type: z.withMeta(z.enum(API_KEY_TYPES), {
    description: 'PERMANENT keys live until archived or deleted; SESSION keys must carry expiringDtm.',
  }),
  status: z.withMeta(z.enum(API_KEY_STATUSES), {
    description: 'ACTIVE keys issue tokens. BLOCKED keys are paused and may be re-activated. ARCHIVED is final.',
  }),
  permissions: z.withMeta(z.array(z.string().check(z.maxLength(300))).check(z.maxLength(100)), {
    description: 'Full permission strings, `TNT#{tenantId}#<Server>:<operation>`, of this tenant only.',
  }),
  permittedOperations: z.withMeta(z.array(z.enum(DIRECT_OPERATIONS)).check(z.maxLength(DIRECT_OPERATIONS.length)), {
    description: 'Operations the key may call directly with X-API-Key; empty allows all of them.',
  }),
  expiringDtm: z.withMeta(z.nullable(DateTime), { description: 'After this instant the key issues no token. Null: no expiry.' }),
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

export const ApiKeyCreateSchema = z.withMeta(
  z.object({
    name: writable.name,
    description: z.optional(writable.description),
    type: z.optional(writable.type),
    status: z.optional(writable.status),
    permissions: z.optional(writable.permissions),
    permittedOperations: z.optional(writable.permittedOperations),
    expiringDtm: z.optional(writable.expiringDtm),
    ...readOnly,
  }),
  { id: 'ApiKeyCreate' },
);

/** Update: fields present replace the stored ones; fields absent are kept. */
export const ApiKeyUpdateSchema = z.withMeta(z.partial(ApiKeyCreateSchema), { id: 'ApiKeyUpdate' });

export type ApiKeyCreateInput = z.infer<typeof ApiKeyCreateSchema>;
export type ApiKeyUpdateInput = z.infer<typeof ApiKeyUpdateSchema>;

export const ApiKeySchema = z.withMeta(
  z.object({
    id: z.string(),
    type: z.enum(API_KEY_TYPES),
    code: z.withMeta(z.string(), { description: 'The last four characters of the secret, to recognise a key by.' }),
    name: z.string(),
    description: z.string(),
    status: z.enum(API_KEY_STATUSES),
    permissions: z.array(z.string()),
    permittedOperations: z.array(z.enum(DIRECT_OPERATIONS)),
    expiringDtm: z.nullable(DateTime),
    lastIssuedAtDtm: z.nullable(DateTime),
    createdDtm: DateTime,
    lastUpdatedDtm: DateTime,
    createdBy: z.string(),
    lastUpdatedBy: z.string(),
  }),
  { id: 'ApiKey' },
);

export const ApiKeyCreatedSchema = z.withMeta(
  z.extend(ApiKeySchema, {
    secret: z.withMeta(z.string(), {
      description: 'The value to send in X-API-Key. Returned only in this response; it is stored as a hash.',
    }),
  }),
  { id: 'ApiKeyCreated' },
);

export const ApiKeyPageSchema = cursorPageSchema(ApiKeySchema, 'ApiKeyPage');

export const ApiKeyListQuerySchema = z.object({
  name: z.withMeta(
    z.pipe(z.optional(z.string().check(z.maxLength(255))), z.transform((v) => v ?? '%')),
    {
      description: 'SQL LIKE pattern on the name, case-insensitive: % any run, _ one character, \\ escapes.',
      default: '%',
    },
  ),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: PAGE_SIZE_MAX, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      `property[,asc|desc]; repeat for more orders; default createdDtm,asc. Properties: ${SORTABLE_FIELDS.join(', ')}. By createdDtm ` +
      '(either way) a page reads only itself; the others sort at most 2,000 matching keys in memory and page by number only.',
  }),
  cursor: cursorParam(),
});

export const ApiKeyIdPathSchema = z.strictObject({ apiKeyId: z.string().check(z.uuid('must be an API key id (a UUID)')) });

export const TokenIssuedSchema = z.withMeta(
  z.object({
    token: z.withMeta(z.string(), { description: 'RS256 JWT (typ at+jwt) to send as Authorization: Bearer.' }),
    ttl: z.withMeta(z.number().check(z.int()), { description: 'Seconds until the token expires (default 3600).', format: 'int32' }),
  }),
  { id: 'TokenIssued' },
);
