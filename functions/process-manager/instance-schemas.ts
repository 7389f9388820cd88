import * as z from 'zod';
import { DateTime } from '../shared/schemas.js';
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
