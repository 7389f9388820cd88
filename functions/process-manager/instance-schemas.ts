import * as z from 'zod';
import { DateTime, queryInt, queryList } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';
import { INSTANCE_STATUSES } from './instances.js';
import { ParametersSchema } from './token-schemas.js';

export const CreateInstanceQuerySchema = z.object({
  pt: z.string().uuid('must be a process token id (the pt of its startProcessAddress)').meta({ description: 'The process token.' }),
});

export const CreateFromTemplateSchema = z
  .object({
    processTokenId: z.string().uuid('must be a process token id'),
    parameters: ParametersSchema.optional().meta({
      description: "Parameters for this instance; they are merged over the token's own (the request's win).",
    }),
  })
  .strict()
  .meta({ id: 'ProcessInstanceFromTemplate' });

export const InstanceCreatedSchema = z
  .object({
    redirectUrl: z.string().meta({
      description: 'Send the end user here (append &lang=<ISO code> to choose the language). It carries a capability for this instance only.',
    }),
    processInstanceId: z.string(),
  })
  .meta({ id: 'ProcessInstanceCreated' });

export const InstanceIdPathSchema = z
  .object({ processInstanceId: z.string().uuid('must be a process instance id (a UUID)') })
  .strict();

const base = {
  id: z.string(),
  tenantId: z.string(),
  processDefnId: z.string(),
  processDefnName: z.string(),
  processDefnVersion: z.number().int(),
  processTokenId: z.string(),
  status: z.enum(INSTANCE_STATUSES),
  createdAt: DateTime,
  lastUpdatedAt: DateTime,
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  email: z.string().optional(),
  phoneNumber: z.string().optional(),
  retentionDays: z.number().int().meta({ description: "From the definition's retention." }),
};

export const InstanceSchema = z
  .object({ ...base, expiringDtm: DateTime.meta({ description: 'createdAt + retentionDays: eligible for deletion after it.' }) })
  .meta({ id: 'ProcessInstance' });

export const InstanceWithParametersSchema = z
  .object({ ...base, processTokenParameters: z.record(z.string(), z.string()) })
  .meta({ id: 'ProcessInstanceWithParameters' });

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const INSTANCE_SORTABLE = ['createdAt', 'lastUpdatedAt', 'status', 'processDefnName'] as const;

/** The list's and the search's filters (query parameters), as the service family names them. */
export const InstanceSearchQuerySchema = z.object({
  searchString: z.string().max(255).optional().meta({
    description: 'Free text, case-insensitive, matched against the instance id, definition name and token parameters (names, email, phone, ...).',
  }),
  startDateTime: DateTime.optional().meta({ description: 'Created at or after this instant.' }),
  endDateTime: DateTime.optional().meta({ description: 'Created at or before this instant.' }),
  processDefinitionName: z.string().max(100).optional(),
  processDefinitionId: z.string().uuid().optional(),
  processInstanceStatus: queryList(z.enum(INSTANCE_STATUSES)).meta({
    description: 'One or more statuses (repeat the parameter).',
  }),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: queryList(z.string().max(100)).meta({
    description: `property[,asc|desc]; default createdAt,desc. Properties: ${INSTANCE_SORTABLE.join(', ')}.`,
  }),
});

export const InstanceListQuerySchema = InstanceSearchQuerySchema.pick({ page: true, size: true, sort: true });

/** The CSV export takes the search's filters in a JSON body. */
export const InstanceCsvRequestSchema = z
  .object({
    searchString: z.string().max(255).optional(),
    startDateTime: DateTime.optional(),
    endDateTime: DateTime.optional(),
    processDefinitionName: z.string().max(100).optional(),
    processDefinitionId: z.string().uuid().optional(),
    processInstanceStatus: z.array(z.enum(INSTANCE_STATUSES)).max(INSTANCE_STATUSES.length).optional(),
    sort: z.array(z.string().max(100)).max(5).optional(),
  })
  .strict()
  .meta({ id: 'ProcessInstanceCsvRequest' });

export const InstanceListItemSchema = z
  .object({
    ...base,
    expiringDtm: DateTime,
    scheduledExpiry: z.boolean().meta({ description: 'True when the instance will be deleted after its retention period.' }),
    extendedSearchField: z.string().nullable().meta({ description: 'For extended instance search on identity stores; null when not used.' }),
    extendedSearchTerms: z.array(z.string()).meta({ description: 'For extended instance search on identity stores; empty when not used.' }),
  })
  .meta({ id: 'ProcessInstanceListItem' });

export const InstancePageSchema = pageSchema(InstanceListItemSchema, 'ProcessInstancePage');
