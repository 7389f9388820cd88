import * as z from '../../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../../shared/page.js';
import { DefinitionNameSchema, ProcessDefinitionSchema } from '../../../statemachines/definition.js';
import { PresentationSchema } from '../../../statemachines/presentation.js';
import { CREATE_STATUSES, DEFINITION_STATUSES } from '../model.js';

export const DefinitionIdPathSchema = z.strictObject({
  processDefinitionId: z.string().check(z.uuid('must be a process definition id (a UUID)')),
});

export const DefinitionListQuerySchema = z.object({
  name: z.withMeta(z.pipe(z.optional(z.string().check(z.maxLength(255))), z.transform((v) => v ?? '%')), {
    description: 'SQL LIKE pattern on the name, case-insensitive.',
  }),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description: 'property[,asc|desc]; default name,asc then version,asc. Properties: name, version, createdDtm (createdDtm sorts at most 2,000 matching versions and pages by number only).',
  }),
  cursor: cursorParam(),
});

/**
 * `/processDefinitions/{processDefinitionId}/versions` takes the definition's NAME in that
 * segment, as the family's clients send it: API Gateway wants one variable name per path level
 * (the `{processDefinitionId}/tags` and `/status` routes share the level), so the variable keeps
 * the id's name.
 */
export const DefinitionVersionsPathSchema = z.strictObject({
  processDefinitionId: z.withMeta(DefinitionNameSchema, { description: "The definition's name (not an id): its versions are listed." }),
});

export const DefinitionVersionsQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      'property[,asc|desc]; default version,asc. Properties: version, createdDtm, status. By version (either way) a page reads only itself; ' +
      'the others sort at most 2,000 versions in memory and page by number only.',
  }),
  cursor: cursorParam(),
});

export const DefinitionStatusPathSchema = z.strictObject({
  processDefinitionId: z.string().check(z.uuid('must be a process definition id (a UUID)')),
  status: z.enum(DEFINITION_STATUSES),
});

/** The largest BPMN file an upload takes (decoded), so its definition and ASL stay within what AWS takes. */
export const MAX_BPMN_BYTES = 1024 * 1024;
/** The upload route's body limit: a 1 MB BPMN as base64 (about 1.4 MB), plus room for the other members. */
export const MAX_UPLOAD_BODY_BYTES = 4 * Math.ceil(MAX_BPMN_BYTES / 3) + 64 * 1024;
/** The family's `attributes` are kept as uploaded; this bounds them (JSON, UTF-8 bytes). */
export const MAX_ATTRIBUTES_BYTES = 8 * 1024;

function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(z.nullable(schema));
}

/**
 * The family's upload (`{name, description, serverType, resources: {bpmn: {data, type}},
 * processDefinitionType, attributes, themeId}`), read leniently as a Spring service would: `null`
 * is absent, and members not listed here (`tenantId`, `version`, ...) are accepted and ignored.
 * The server assigns the version.
 */
export const BpmnUploadSchema = z.withMeta(
  z.object({
    name: DefinitionNameSchema,
    description: optional(text(0, 255)),
    serverType: z.withMeta(optional(text(0, 100)), { description: "The family's server type; kept and returned as uploaded." }),
    processDefinitionType: z.withMeta(optional(text(0, 100)), { description: 'Kept and returned as uploaded.' }),
    attributes: z.withMeta(
      optional(
        z.looseObject({}).check(
          z.refine((a) => Buffer.byteLength(JSON.stringify(a), 'utf8') <= MAX_ATTRIBUTES_BYTES, {
            message: `must be at most ${MAX_ATTRIBUTES_BYTES} bytes of JSON`,
          }),
        ),
      ),
      { description: 'For example `{"searchable": true}`; kept and returned as uploaded.' },
    ),
    themeId: z.withMeta(optional(text(0, 255)), { description: 'A theme of this tenant (a theme version\'s id; 400 UNKNOWN_THEME otherwise, or when it is ARCHIVED). Instances of the definition answer its `themeUrl`.' }),
    status: z.withMeta(optional(z.enum(CREATE_STATUSES)), { description: "Default DRAFT; EDITABLE is the family's draft, read back so." }),
    presentation: optional(PresentationSchema),
    resources: z.looseObject({
      bpmn: z.looseObject({
        data: z.withMeta(z.string(), {
          description: `The BPMN 2.0 XML file (UTF-8, at most ${MAX_BPMN_BYTES} bytes) as base64 (RFC 4648, padded, no line breaks).`,
        }),
        type: optional(z.enum(['BPMN'])),
      }),
    }),
  }),
  {
    id: 'ProcessDefinitionBpmnUpload',
    description:
      "The family's deployment tools' shape: the server assigns the name's next version and creates it DRAFT " +
      '(activate it with `.../status/DEPLOYED_ACTIVE`). Members not listed here are accepted and ignored.',
  },
);

export type BpmnUpload = z.output<typeof BpmnUploadSchema>;

/**
 * A definition in the service's JSON format as the create route takes it: the format itself
 * (strict: a member it does not know is a mistake worth a 400) and the members a version has
 * beside its definition (`themeId`, `status`), as the family's upload has them.
 */
export const JsonDefinitionCreateSchema = z.withMeta(
  z.extend(ProcessDefinitionSchema, {
    themeId: z.withMeta(optional(text(0, 255)), { description: 'A theme of this tenant (a theme version\'s id; 400 UNKNOWN_THEME otherwise, or when it is ARCHIVED). Instances of the definition answer its `themeUrl`.' }),
    status: z.withMeta(optional(z.enum(CREATE_STATUSES)), { description: "Default DEPLOYED_ACTIVE; EDITABLE is the family's draft, read back so." }),
  }),
  { id: 'ProcessDefinitionCreate', description: "The service's JSON format, its version named." },
);

export type JsonDefinitionCreate = z.output<typeof JsonDefinitionCreateSchema>;

/** A definition in the service's JSON format, or the family's BPMN upload (told apart by `resources`). */
export type CreateDefinitionBody = JsonDefinitionCreate | BpmnUpload;

export function isBpmnUpload(body: CreateDefinitionBody): body is BpmnUpload {
  return 'resources' in body;
}

/**
 * The create route's body: either format. The member `resources` says which one it is, and the
 * body is checked against that one alone, so a 400 names the problems of the format the client
 * meant (a plain union would answer "Invalid input" for both). The OpenAPI document shows the two.
 */
const EitherFormat = z.union([JsonDefinitionCreateSchema, BpmnUploadSchema]);

export const CreateDefinitionBodySchema = z.pipe(
  z.transform((body: unknown, ctx): z.input<typeof EitherFormat> => {
    const schema = body !== null && typeof body === 'object' && 'resources' in body ? BpmnUploadSchema : JsonDefinitionCreateSchema;
    const parsed = z.safeParse(schema, body);
    // Its output is valid input again (defaults filled, nulls kept), which the union then takes.
    if (parsed.success) return parsed.data as z.input<typeof EitherFormat>;
    for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: body } as Parameters<typeof ctx.issues.push>[0]);
    return z.NEVER;
  }),
  EitherFormat,
);

const published = {
  id: z.withMeta(z.string(), { description: 'Generated when the version is published; the processDefnId of instances.' }),
  processDefinitionId: z.withMeta(z.string(), { description: 'The same id, under the name the family\'s clients read.' }),
  status: z.withMeta(z.enum(DEFINITION_STATUSES), {
    description: 'DRAFT or EDITABLE (drafts), DEPLOYED_ACTIVE (takes process tokens and starts journeys), DEPLOYED_INACTIVE, ARCHIVED (final).',
  }),
  themeId: z.withMeta(z.nullable(z.string()), { description: 'The theme given on create (null when none was).' }),
  serverType: z.withMeta(z.nullable(z.string()), { description: 'As uploaded; null for the JSON format.' }),
  processDefinitionType: z.withMeta(z.nullable(z.string()), { description: 'As uploaded; null for the JSON format.' }),
  attributes: z.withMeta(z.nullable(z.record(z.string(), z.unknown())), { description: 'As uploaded; null for the JSON format.' }),
  createdDtm: DateTime,
  createdBy: z.string(),
};

export const DefinitionSummarySchema = z.withMeta(
  z.object({
    ...published,
    name: z.string(),
    version: z.number().check(z.int()),
    description: z.string(),
    retentionDays: z.number().check(z.int()),
  }),
  { id: 'ProcessDefinitionSummary' },
);

export const DefinitionSchema = z.withMeta(z.extend(ProcessDefinitionSchema, published), { id: 'ProcessDefinition' });

/**
 * The single read of a version: the definition, and its BPMN file as the family's upload carries
 * it (`resources.bpmn.data`, base64), which the family's migration tools read. Lists never carry it.
 */
export const DefinitionReadSchema = z.withMeta(
  z.extend(ProcessDefinitionSchema, {
    ...published,
    resources: z.withMeta(
      z.optional(
        z.object({
          bpmn: z.object({
            data: z.withMeta(z.string(), { description: 'The BPMN file, base64: as uploaded, or for a JSON version the one `.../bpmnFile` writes.' }),
            type: z.enum(['BPMN']),
          }),
        }),
      ),
      { description: 'Absent only if the file would take this answer past 5.5 MB: read `.../bpmnFile` then.' },
    ),
  }),
  { id: 'ProcessDefinitionRead' },
);

export const DefinitionPageSchema = cursorPageSchema(DefinitionSummarySchema, 'ProcessDefinitionPage');

export const TAG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export const TagsRequestSchema = z.withMeta(
  z.object({
    tags: z
      .array(z.string().check(z.regex(TAG_PATTERN, 'tags are 1-100 letters, digits, _ . - starting with a letter or digit')))
      .check(z.minLength(1), z.maxLength(20)),
  }),
  { id: 'DefinitionTagsRequest', description: 'Tag names to put on the definition; a tag on another definition moves here.' },
);

export const TagSchema = z.withMeta(
  z.object({
    name: z.string(),
    processDefinitionId: z.string(),
    processDefinitionName: z.string(),
    processDefinitionVersion: z.number().check(z.int()),
    createdDtm: DateTime,
    createdBy: z.string(),
  }),
  { id: 'DefinitionTag' },
);
