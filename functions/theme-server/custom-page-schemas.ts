import * as z from '../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../shared/page.js';
import { lenientInt } from '../../statemachines/forms.js';
import { CUSTOM_PAGE_STATUSES } from './model.js';

/** The largest JSON body of a create (a 4.5 MB archive, base64): under Lambda's 6 MB payload with the event around it. */
export const MAX_CREATE_BODY_BYTES = 6_000_000;

/** Names go into paths (`{name}/versions`), so they hold no `/`. */
export const CustomPageNameSchema = z
  .string()
  .check(
    z.regex(/^[\p{L}\p{N} _.()-]{1,255}$/u, 'must be 1 to 255 letters, digits, spaces or _ . ( ) -'),
    z.refine((s) => s.trim() === s, { message: 'must not start or end with a space' }),
  );

export const CustomPageStatusSchema = z.enum(CUSTOM_PAGE_STATUSES);

const pageId = z.withMeta(z.string().check(z.uuid('must be a custom page id (a UUID)')), { description: "The page version's id." });

/** One path variable name at this level for every route (API Gateway refuses siblings named differently). */
export const CustomPageIdPathSchema = z.strictObject({ customPage: pageId });
export const CustomPageStatusPathSchema = z.strictObject({ customPage: pageId, status: CustomPageStatusSchema });
export const CustomPageNamePathSchema = z.strictObject({ customPage: z.withMeta(CustomPageNameSchema, { description: "The page's name." }) });
export const CustomPageNameVersionPathSchema = z.strictObject({
  customPage: z.withMeta(CustomPageNameSchema, { description: "The page's name." }),
  version: z.withMeta(lenientInt(1, 1_000_000), { description: 'The version number.' }),
});

export const CustomPageListQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), { description: 'property[,asc|desc]; unsorted pages come in version order (a name\'s versions) or name then version (every page).' }),
  cursor: cursorParam(),
});

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0 && !url.username && !url.password;
  } catch {
    return false;
  }
}

function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(z.nullable(schema));
}

const content = {
  archive: z.withMeta(optional(z.string()), { description: 'The bundle (.zip or .tar.gz) in base64. One of archive, uploadId, baseAppUrl.' }),
  uploadId: z.withMeta(optional(z.string().check(z.uuid('must be an uploadId from POST /api/theme-server/customPages/uploads'))), {
    description: 'A pre-signed upload whose archive was PUT (for bundles over what one request carries).',
  }),
  baseAppUrl: z.withMeta(
    optional(z.string().check(z.maxLength(2048), z.refine(isHttpsUrl, { message: 'must be an https URL' }))),
    { description: 'A page that is an app elsewhere (https), instead of a bundle.' },
  ),
};

export const CreateCustomPageSchema = z.withMeta(
  z.object({
    name: CustomPageNameSchema,
    description: optional(text(0, 1000)),
    version: z.withMeta(optional(lenientInt(1, 1_000_000)), { description: 'Absent: the next version of the name.' }),
    status: z.withMeta(optional(CustomPageStatusSchema), { description: 'Default EDITABLE (a draft).' }),
    creationOption: z.withMeta(optional(text(0, 100)), { description: 'The designer\'s note ("Save & Deploy"); kept and returned.' }),
    ...content,
  }),
  { id: 'CustomPageCreate', description: 'Members not listed here are accepted and ignored.' },
);

export const PreviewCustomPageSchema = z.withMeta(z.object({ ...content }), { id: 'CustomPagePreviewRequest', description: 'Members not listed here (name, description...) are accepted and ignored.' });

export const UpdateCustomPageSchema = z.withMeta(
  z.object({ description: optional(text(0, 1000)), ...content }),
  { id: 'CustomPageUpdate', description: 'The page object as read; members that do not change (id, name, version, status, archiveEntries...) are ignored.' },
);

const summary = {
  id: z.withMeta(z.string(), { description: 'Generated when the version is added.' }),
  name: z.string(),
  version: z.number().check(z.int()),
  description: z.string(),
  status: CustomPageStatusSchema,
  creationOption: z.nullable(z.string()),
  createdDtm: DateTime,
  createdBy: z.string(),
  lastUpdatedDtm: DateTime,
  lastUpdatedBy: z.string(),
};

export const CustomPageSummarySchema = z.withMeta(z.object(summary), { id: 'CustomPageSummary' });

export const ArchiveEntrySchema = z.withMeta(z.object({ path: z.withMeta(z.string(), { description: 'From the bundle root, starting with `/`.' }) }), { id: 'CustomPageArchiveEntry' });

export const CustomPageSchema = z.withMeta(
  z.object({
    ...summary,
    baseAppUrl: z.nullable(z.string()),
    archiveEntries: z.array(ArchiveEntrySchema),
    archiveSize: z.withMeta(z.number().check(z.int()), { description: 'The files inflated, in bytes.' }),
    previewUrl: z.withMeta(z.nullable(z.string()), { description: "The version's index.html on the pages origin, readable without a token; null once its archive is deleted." }),
    baseUrl: z.withMeta(z.nullable(z.string()), { description: "The version's folder on the pages origin (trailing slash)." }),
  }),
  { id: 'CustomPage' },
);

export const CustomPagePreviewSchema = z.withMeta(
  z.object({ previewId: z.string(), previewUrl: z.string(), baseUrl: z.string(), archiveEntries: z.array(ArchiveEntrySchema) }),
  { id: 'CustomPagePreview' },
);

export const CustomPageUploadSchema = z.withMeta(
  z.object({
    uploadId: z.string(),
    uploadUrl: z.withMeta(z.string(), { description: 'PUT the archive\'s bytes here, with uploadHeaders.' }),
    uploadMethod: z.literal('PUT'),
    uploadHeaders: z.record(z.string(), z.string()),
    expiresAt: DateTime,
    maxBytes: z.number().check(z.int()),
  }),
  { id: 'CustomPageUpload' },
);

export const CustomPagePageSchema = cursorPageSchema(CustomPageSummarySchema, 'CustomPagePage');
