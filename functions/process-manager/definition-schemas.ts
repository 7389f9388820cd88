import * as z from 'zod';
import { DateTime, queryInt, queryList } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';
import { ProcessDefinitionSchema } from '../../statemachines/definition.js';

export const DefinitionIdPathSchema = z
  .object({ processDefinitionId: z.string().uuid('must be a process definition id (a UUID)') })
  .strict();

export const DefinitionListQuerySchema = z.object({
  name: z.string().max(255).optional().transform((v) => v ?? '%').meta({ description: 'SQL LIKE pattern on the name, case-insensitive.' }),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: queryList(z.string().max(100)),
});

const published = {
  id: z.string().meta({ description: 'Generated when the version is published; the processDefnId of instances.' }),
  createdDtm: DateTime,
  createdBy: z.string(),
};

export const DefinitionSummarySchema = z
  .object({
    ...published,
    name: z.string(),
    version: z.number().int(),
    description: z.string(),
    retentionDays: z.number().int(),
  })
  .meta({ id: 'ProcessDefinitionSummary' });

export const DefinitionSchema = ProcessDefinitionSchema.extend(published).meta({ id: 'ProcessDefinition' });

export const DefinitionPageSchema = pageSchema(DefinitionSummarySchema, 'ProcessDefinitionPage');

export const TAG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export const TagsRequestSchema = z
  .object({
    tags: z
      .array(z.string().regex(TAG_PATTERN, 'tags are 1-100 letters, digits, _ . - starting with a letter or digit'))
      .min(1)
      .max(20),
  })
  .strict()
  .meta({ id: 'DefinitionTagsRequest', description: 'Tag names to put on the definition; a tag on another definition moves here.' });

export const TagSchema = z
  .object({
    name: z.string(),
    processDefinitionId: z.string(),
    processDefinitionName: z.string(),
    processDefinitionVersion: z.number().int(),
    createdDtm: DateTime,
    createdBy: z.string(),
  })
  .meta({ id: 'DefinitionTag' });
