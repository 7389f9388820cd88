import * as z from '../../shared/zod.js';
import { MAX_CURSOR_LENGTH } from '../../shared/cursor.js';
import { DateTime, queryInt } from '../../shared/schemas.js';
import { EVENT_RETENTION_DAYS } from '../../shared/events.js';

/** Events a page of an instance's events holds: by default, and at most. */
export const INSTANCE_EVENTS_PAGE = { default: 100, max: 500 } as const;

export const InstanceEventsQuerySchema = z.object({
  size: queryInt({ min: 1, max: INSTANCE_EVENTS_PAGE.max, default: INSTANCE_EVENTS_PAGE.default }),
  nextToken: z.optional(
    z.withMeta(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)), { description: "The previous page's `nextToken`, for the events after it (same instance)." }),
  ),
});

/**
 * An event as webhooks receive it (functions/shared/events.ts EventEnvelope). `type` and `data`
 * are open here: each type's `data` is in the document's `webhooks`, and types may be added.
 */
export const InstanceEventSchema = z.withMeta(
  z.object({
    id: z.withMeta(z.string(), { description: "The event's id (`evt_` and 26 characters): the `webhook-id` of its deliveries." }),
    type: z.withMeta(z.string(), { description: 'A `process-instance.*` type; each one\'s `data` is described in the document\'s `webhooks`.' }),
    tenantId: z.string(),
    timestamp: z.withMeta(DateTime, { description: 'When the change was made.' }),
    subject: z.object({ type: z.literal('process-instance'), id: z.withMeta(z.string(), { description: "The instance's id." }) }),
    data: z.withMeta(z.record(z.string(), z.unknown()), { description: "The event's payload, as its webhook delivery carries it." }),
  }),
  { id: 'ProcessInstanceEvent' },
);

export const InstanceEventPageSchema = z.withMeta(
  z.object({
    events: z.array(InstanceEventSchema),
    nextToken: z.optional(z.withMeta(z.string(), { description: 'Present when more events follow: send it back as `nextToken`.' })),
  }),
  {
    id: 'ProcessInstanceEventPage',
    description: `Oldest first (by time, then id). Events are kept ${EVENT_RETENTION_DAYS} days; events written before this read existed are not listed.`,
  },
);
