import * as z from '../shared/zod.js';
import { DateTime } from '../shared/schemas.js';

/** An export job as its status route (and the 202 that started it) shows it. */
export const ExportSchema = z.withMeta(
  z.object({
    exportId: z.string(),
    kind: z.enum(['USER_DATA_ARCHIVE', 'INSTANCES_CSV']),
    status: z.withMeta(z.enum(['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED']), {
      description: 'PENDING: queued; RUNNING: being made; SUCCEEDED: `url` downloads it; FAILED: `error` says why.',
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
    expiresAt: z.withMeta(DateTime, { description: 'The job and its file are deleted after this (7 days after creation).' }),
    fileName: z.string(),
    contentType: z.string(),
    completedAt: z.optional(DateTime),
    bytes: z.optional(z.number().check(z.int())),
    rows: z.optional(z.withMeta(z.number().check(z.int()), { description: 'A CSV export: its rows, the header not counted.' })),
    error: z.optional(z.string()),
    url: z.optional(z.withMeta(z.string(), { description: 'When SUCCEEDED: a pre-signed S3 GET of the file, good until `urlExpiresAt` (5 minutes); read the status again for a fresh one.' })),
    urlExpiresAt: z.optional(DateTime),
  }),
  { id: 'Export', description: 'An asynchronous export: made by a worker into S3, downloaded by a pre-signed URL.' },
);

export const ExportIdPath = z.string().check(z.uuid('must be an export id'));
