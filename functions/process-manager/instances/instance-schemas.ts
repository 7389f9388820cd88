import { FACE_UPLOAD_URL_SECONDS, MAX_FACE_UPLOAD_BYTES } from './face-uploads.js';
import * as z from '../../shared/zod.js';
import { apiKeyHeaderFields } from '../../http/headers.js';
import { DateTime, queryInt, queryList } from '../../shared/schemas.js';
import { pageSchema } from '../../shared/page.js';
import { INSTANCE_STATUSES } from './instances.js';
import { REVIEW_DECISIONS, STATUS_MAPPED_VALUES } from '../model.js';
import { ParametersSchema } from '../tokens/token-schemas.js';

export const CreateInstanceQuerySchema = z.object({
  pt: z.withMeta(z.string().check(z.uuid('must be a process token id (the pt of its startProcessAddress)')), {
    description: 'The process token.',
  }),
});

export const CreateFromTemplateSchema = z.withMeta(
  z.object({
    processTokenId: z.string().check(z.uuid('must be a process token id')),
    parameters: z.withMeta(z.optional(ParametersSchema), {
      description: "Parameters for this instance; they are merged over the token's own (the request's win).",
    }),
  }),
  { id: 'ProcessInstanceFromTemplate' },
);

export const InstanceCreatedSchema = z.withMeta(
  z.object({
    redirectUrl: z.withMeta(z.string(), {
      description: 'Send the end user here (append &lang=<ISO code> to choose the language). It carries a capability for this instance only.',
    }),
    processInstanceId: z.string(),
    externalSources: z.optional(
      z.withMeta(
        z.object({
          faceUploads: z.record(
            z.string(),
            z.object({
              imageFormat: z.enum(['JPEG', 'PNG']),
              captureKey: z.string(),
              uploadUrl: z.withMeta(z.string(), {
                description: `A pre-signed S3 PUT for this instance and image key only, good for ${FACE_UPLOAD_URL_SECONDS / 60} minutes. At most ${MAX_FACE_UPLOAD_BYTES / 1024 / 1024} MB (Rekognition's limit).`,
              }),
              uploadHeaders: z.withMeta(z.record(z.string(), z.string()), {
                description: 'Send these headers with the PUT exactly as given (the signature covers the Content-Type).',
              }),
            }),
          ),
        }),
        { description: "Present when the process token has processInstanceInit: one upload per image key." },
      ),
    ),
    themeUrl: z.withMeta(z.optional(z.string()), {
      description:
        "Present when the definition names a theme (`themeId`): the theme's palette, asset URLs and what the hosted pages make of them, " +
        'as JSON readable without a token (getPublicTheme), for branding what the relying party shows around the journey.',
    }),
  }),
  { id: 'ProcessInstanceCreated' },
);

export const InstanceIdPathSchema = z.strictObject({
  processInstanceId: z.string().check(z.uuid('must be a process instance id (a UUID)')),
});

const base = {
  id: z.string(),
  tenantId: z.string(),
  processDefnId: z.string(),
  processDefnName: z.string(),
  processDefnVersion: z.number().check(z.int()),
  processTokenId: z.string(),
  status: z.enum(INSTANCE_STATUSES),
  statusMapped: z.withMeta(z.enum(STATUS_MAPPED_VALUES), {
    description:
      "The family's label of status: PENDING Pending, ACTIVE In Progress, COMPLETED_ENDED_SUCCESS Accepted, COMPLETED_ENDED_ERROR " +
      'Declined, COMPLETED_PROCESS_ERROR Error, COMPLETED_TERMINATED Abandoned, REVIEW Review.',
  }),
  createdAt: DateTime,
  lastUpdatedAt: DateTime,
  elapsedMilliseconds: z.withMeta(z.number().check(z.int(), z.gte(0)), { description: 'From createdAt to the final status, or to now while running.' }),
  firstName: z.optional(z.string()),
  lastName: z.optional(z.string()),
  email: z.optional(z.string()),
  phoneNumber: z.optional(z.string()),
  retentionDays: z.withMeta(z.number().check(z.int()), { description: "From the definition's retention." }),
  forTest: z.withMeta(z.optional(z.literal(true)), {
    description: 'Present (true) only on a test-mode instance, made from a forTest token: its outcomes may be forced (docs/sandbox.md).',
  }),
};

/** A decided review on the instance read (absent until a reviewer decides). */
const ReviewSchema = z.withMeta(
  z.object({
    status: z.enum(REVIEW_DECISIONS),
    comment: z.string(),
    reviewedBy: z.withMeta(z.string(), { description: 'The API key that decided (`apikey:{id}`).' }),
    reviewedAt: DateTime,
  }),
  {
    id: 'ProcessInstanceReview',
    description: "The latest reviewer's decision (POST .../{id}/review); absent until there is one.",
    examples: [{ status: 'APPROVE', comment: 'Passport checked by hand.', reviewedBy: 'apikey:5f0c6d7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f', reviewedAt: '2026-06-01T12:00:00.000Z' }],
  },
);

export const InstanceSchema = z.withMeta(
  z.object({
    ...base,
    expiringDtm: z.withMeta(DateTime, { description: 'createdAt + retentionDays: eligible for deletion after it.' }),
    review: z.optional(ReviewSchema),
  }),
  { id: 'ProcessInstance' },
);

/** What the resume API answers: the instance, ACTIVE again, and a journey link for the end user to go on with. */
export const ResumedInstanceSchema = z.withMeta(
  z.object({
    ...base,
    expiringDtm: DateTime,
    redirectUrl: z.withMeta(z.string(), { description: 'The journey page with a capability of its own, for the end user to go on with (the first link keeps working).' }),
  }),
  { id: 'ResumedProcessInstance' },
);

export const InstanceWithParametersSchema = z.withMeta(
  z.object({ ...base, processTokenParameters: z.record(z.string(), z.string()) }),
  { id: 'ProcessInstanceWithParameters' },
);

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Instance creation's headers: the API key (a "B or K" route) and an optional Idempotency-Key. */
export const CreateInstanceHeadersSchema = z.looseObject({
  ...apiKeyHeaderFields,
  'idempotency-key': z.withMeta(z.optional(z.string().check(z.regex(IDEMPOTENCY_KEY_PATTERN))), {
    description: 'Makes a retry safe: a repeat with the same key gets the first answer (1-255 visible ASCII characters).',
  }),
});

export const INSTANCE_SORTABLE = ['createdAt', 'lastUpdatedAt', 'status', 'processDefnName'] as const;

/** The list's and the search's filters (query parameters), as the service family names them. */
export const InstanceSearchQuerySchema = z.object({
  searchString: z.withMeta(z.optional(z.string().check(z.maxLength(255))), {
    description: 'Free text, case-insensitive, matched against the instance id, definition name and token parameters (names, email, phone, ...).',
  }),
  startDateTime: z.withMeta(z.optional(DateTime), { description: 'Created at or after this instant.' }),
  endDateTime: z.withMeta(z.optional(DateTime), { description: 'Created at or before this instant.' }),
  processDefinitionName: z.optional(z.string().check(z.maxLength(100))),
  processDefinitionId: z.optional(z.string().check(z.uuid())),
  processInstanceStatus: z.withMeta(queryList(z.enum(INSTANCE_STATUSES)), {
    description: 'One or more statuses (repeat the parameter).',
  }),
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  sort: z.withMeta(queryList(z.string().check(z.maxLength(100))), {
    description:
      `property[,asc|desc]; default createdAt,desc. Properties: ${INSTANCE_SORTABLE.join(', ')}. ` +
      'Any sort but createdAt sorts at most 10,000 matches (400 beyond: narrow the filters).',
  }),
  cursor: z.withMeta(z.optional(z.string().check(z.maxLength(512))), {
    description:
      "The previous page's nextCursor: the page right after it, at the cost of one page whatever the depth. Send the same " +
      'filters and sort with it; `page` then only numbers the answer. Without a cursor, pages reach 10,000 instances deep.',
  }),
});

export const InstanceListQuerySchema = z.pick(InstanceSearchQuerySchema, { page: true, size: true, sort: true, cursor: true });

/** The CSV export takes the search's filters in a JSON body. */
export const InstanceCsvRequestSchema = z.withMeta(
  z.object({
    searchString: z.optional(z.string().check(z.maxLength(255))),
    startDateTime: z.optional(DateTime),
    endDateTime: z.optional(DateTime),
    processDefinitionName: z.optional(z.string().check(z.maxLength(100))),
    processDefinitionId: z.optional(z.string().check(z.uuid())),
    processInstanceStatus: z.optional(z.array(z.enum(INSTANCE_STATUSES)).check(z.maxLength(INSTANCE_STATUSES.length))),
    sort: z.optional(z.array(z.string().check(z.maxLength(100))).check(z.maxLength(5))),
  }),
  { id: 'ProcessInstanceCsvRequest' },
);

export const InstanceListItemSchema = z.withMeta(
  z.object({
    ...base,
    expiringDtm: DateTime,
    scheduledExpiry: z.withMeta(z.boolean(), { description: 'True when the instance will be deleted after its retention period.' }),
    extendedSearchField: z.withMeta(z.nullable(z.string()), {
      description: 'For extended instance search on identity stores; null when not used.',
    }),
    extendedSearchTerms: z.withMeta(z.array(z.string()), {
      description: 'For extended instance search on identity stores; empty when not used.',
    }),
  }),
  { id: 'ProcessInstanceListItem' },
);

const InstancePageBase = pageSchema(InstanceListItemSchema, 'ProcessInstancePageBase');

/** The Spring-style page, with a cursor to the next one and whether totalElements is capped. */
export const InstancePageSchema = z.withMeta(
  z.object({
    ...InstancePageBase.shape,
    nextCursor: z.withMeta(z.nullable(z.string()), { description: 'Send as `cursor` for the next page; null on the last page.' }),
    totalElementsCapped: z.withMeta(z.boolean(), {
      description: 'True when more than 10,000 instances match: totalElements (and totalPages) then count 10,000.',
    }),
  }),
  { id: 'ProcessInstancePage' },
);
