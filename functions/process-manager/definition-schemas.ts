import * as z from '../shared/zod.js';
import { DateTime, queryInt, queryList } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';
import { DefinitionNameSchema, ProcessDefinitionSchema } from '../../statemachines/definition.js';
import { DEFINITION_STATUSES } from './model.js';

export const DefinitionIdPathSchema = z.strictObject({
  processDefinitionId: z.string().check(z.uuid('must be a process definition id (a UUID)')),
});

export const DefinitionListQuerySchema = z.object({
  name: z.withMeta(z.pipe(z.optional(z.string().check(z.maxLength(255))), z.transform((v) => v ?? '%')), {
    description: 'SQL LIKE pattern on the name, case-insensitive.',
  }),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: queryList(z.string().check(z.maxLength(100))),
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
  sort: queryList(z.string().check(z.maxLength(100))),
});

export const DefinitionStatusPathSchema = z.strictObject({
  processDefinitionId: z.string().check(z.uuid('must be a process definition id (a UUID)')),
  status: z.enum(DEFINITION_STATUSES),
});

const published = {
  id: z.withMeta(z.string(), { description: 'Generated when the version is published; the processDefnId of instances.' }),
  processDefinitionId: z.withMeta(z.string(), { description: 'The same id, under the name the family\'s clients read.' }),
  status: z.withMeta(z.enum(DEFINITION_STATUSES), {
    description: 'DRAFT, DEPLOYED_ACTIVE (takes process tokens and starts journeys), DEPLOYED_INACTIVE, ARCHIVED (final).',
  }),
  themeId: z.withMeta(z.nullable(z.string()), { description: 'As uploaded (null for the JSON format); journey pages have one look for now.' }),
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

export const DefinitionPageSchema = pageSchema(DefinitionSummarySchema, 'ProcessDefinitionPage');

export const TAG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export const TagsRequestSchema = z.withMeta(
  z.strictObject({
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
