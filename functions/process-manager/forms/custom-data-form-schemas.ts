import * as z from '../../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../../shared/page.js';
import { CREATE_STATUSES, CUSTOM_DATA_FORM_STATUSES } from '../model.js';
import { lenientInt, parseCustomDataFormResource } from './custom-data-form-schema.js';

/** The largest resource (UTF-8 bytes): with its summary the item stays well under DynamoDB's 400 KB. */
export const MAX_RESOURCE_BYTES = 256 * 1024;

/** Names go into the versions path, so they hold no `/`; letters of any script are fine. */
export const CustomDataFormNameSchema = z
  .string()
  .check(
    z.regex(/^[\p{L}\p{N} _.()-]{1,255}$/u, 'must be 1 to 255 letters, digits, spaces or _ . ( ) -'),
    z.refine((s) => s.trim() === s, { message: 'must not start or end with a space' }),
  );

export const CustomDataFormStatusSchema = z.enum(CUSTOM_DATA_FORM_STATUSES);

/**
 * One path variable name at this level for every form route: API Gateway refuses sibling
 * routes whose variables at the same level are named differently, and the family's paths put a
 * name (`{name}/versions`) and an id (`{id}`) there. Each route's schema says which it is.
 */
export const CustomDataFormIdPathSchema = z.strictObject({
  customDataForm: z.withMeta(z.string().check(z.uuid('must be a data form id (a UUID)')), { description: "The form version's id." }),
});

export const CustomDataFormStatusPathSchema = z.strictObject({
  customDataForm: z.withMeta(z.string().check(z.uuid('must be a data form id (a UUID)')), { description: "The form version's id." }),
  status: CustomDataFormStatusSchema,
});

export const CustomDataFormNamePathSchema = z.strictObject({
  customDataForm: z.withMeta(CustomDataFormNameSchema, { description: "The form's name." }),
});

export const CustomDataFormVersionsQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      'property[,asc|desc]; default version,asc. By version (either way) a page reads only itself; other properties sort at most ' +
      '2,000 versions in memory and page by number only.',
  }),
  cursor: cursorParam(),
});

function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(z.nullable(schema));
}

export const CreateCustomDataFormSchema = z.withMeta(
  z.object({
    name: CustomDataFormNameSchema,
    description: optional(text(0, 1000)),
    version: z.withMeta(optional(lenientInt(1, 1_000_000)), {
      description: 'An integer, also as a string ("2"); absent: the next version of the name.',
    }),
    status: z.withMeta(optional(z.enum(CREATE_STATUSES)), { description: 'Default DRAFT. EDITABLE (the family\'s draft) is a DRAFT that reads EDITABLE.' }),
    creationOption: z.withMeta(optional(text(0, 100)), { description: "The designer's note of how the form was made; kept and returned." }),
    resource: z.withMeta(
      z.string().check(
        z.refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_RESOURCE_BYTES, { message: `must be at most ${MAX_RESOURCE_BYTES} bytes` }),
        z.superRefine((s, ctx) => {
          const parsed = parseCustomDataFormResource(s);
          if (!parsed.ok) for (const issue of parsed.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, input: s });
        }),
      ),
      { description: 'The form in the family format, as a JSON string; stored and returned exactly as sent.' },
    ),
  }),
  { id: 'CustomDataFormCreate', description: 'Members not listed here (tenantId, ...) are accepted and ignored.' },
);

const summary = {
  id: z.withMeta(z.string(), { description: 'Generated when the version is added.' }),
  name: z.string(),
  version: z.number().check(z.int()),
  description: z.string(),
  status: CustomDataFormStatusSchema,
  creationOption: z.nullable(z.string()),
  createdDtm: DateTime,
  createdBy: z.string(),
  lastUpdatedDtm: DateTime,
  lastUpdatedBy: z.string(),
};

export const CustomDataFormSummarySchema = z.withMeta(z.object(summary), { id: 'CustomDataFormSummary' });

export const CustomDataFormSchema = z.withMeta(
  z.object({ ...summary, resource: z.withMeta(z.string(), { description: 'The form as a JSON string, as it was sent.' }) }),
  { id: 'CustomDataForm' },
);

export const CustomDataFormPageSchema = cursorPageSchema(CustomDataFormSummarySchema, 'CustomDataFormPage');
