import * as z from '../shared/zod.js';
import { DateTime, queryInt, queryList, text } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';
import { MAX_CURSOR_LENGTH } from '../shared/cursor.js';

const optional = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

export const WebhookPathSchema = z.strictObject({
  webhookId: z.withMeta(z.string().check(z.uuid('must be a webhook id (a UUID)')), { description: "The webhook's id." }),
});

export const WebhooksQuerySchema = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 20 }),
  sort: queryList(z.string().check(z.maxLength(100))),
});

const Url = z.withMeta(z.string().check(z.maxLength(2048, 'must be at most 2048 characters')), {
  description: 'https:// to a public address (http:// to loopback only when the service runs locally). Checked again before every delivery.',
  format: 'uri',
});
const Target = z.withMeta(
  z.union([
    z.strictObject({ type: z.literal('sqs'), queueArn: z.string().check(z.maxLength(256)) }),
    z.strictObject({ type: z.literal('eventbridge'), eventBusArn: z.string().check(z.maxLength(512)) }),
  ]),
  {
    description:
      "Instead of a URL: the relying party's own SQS queue or EventBridge bus in its own account. Its policy must allow the " +
      "deployment's delivery role (output SubscriberDeliveryRoleArn) with `aws:PrincipalTag/arthr-tenant` equal to the tenant id.",
  },
);
const EventTypes = z.withMeta(z.array(z.string().check(z.maxLength(100))).check(z.maxLength(50)), {
  description: 'Event types (the OpenAPI document\'s `webhooks`), or `*` (the default) for all.',
});
const DefinitionNames = z.withMeta(z.array(text(1, 255)).check(z.maxLength(50)), {
  description: 'Only process instance events of these definitions (by name); empty (the default) for all. Identity store events are not filtered by it.',
});

export const CreateWebhookSchema = z.withMeta(
  z.object({
    url: optional(Url),
    target: optional(Target),
    description: optional(text(0, 1000)),
    eventTypes: optional(EventTypes),
    processDefnNames: optional(DefinitionNames),
    enabled: optional(z.boolean()),
  }),
  { id: 'WebhookCreate', description: 'Exactly one of `url` and `target`. Members not listed here (tenantId, ...) are accepted and ignored.' },
);

export const UpdateWebhookSchema = z.withMeta(
  z.object({
    url: optional(Url),
    target: optional(Target),
    description: optional(text(0, 1000)),
    eventTypes: optional(EventTypes),
    processDefnNames: optional(DefinitionNames),
    enabled: optional(z.withMeta(z.boolean(), { description: 'true enables it again after a 410 Gone disabled it.' })),
  }),
  { id: 'WebhookUpdate', description: 'Only what is given changes; a `url` replaces a `target` and the other way round (not both at once).' },
);

export const WebhookSchema = z.withMeta(
  z.object({
    id: z.string(),
    url: z.optional(z.string()),
    target: z.optional(Target),
    description: z.string(),
    eventTypes: z.array(z.string()),
    processDefnNames: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: z.optional(z.withMeta(z.enum(['DISABLED', 'ENDPOINT_GONE']), { description: 'ENDPOINT_GONE: the endpoint answered 410 Gone.' })),
    secretRotatedDtm: DateTime,
    previousSecretExpiresDtm: z.optional(z.withMeta(DateTime, { description: 'Until then the replaced secret signs too (a second `v1,` signature).' })),
    createdDtm: DateTime,
    createdBy: z.string(),
    updatedDtm: DateTime,
  }),
  { id: 'Webhook' },
);
export const WebhookPageSchema = pageSchema(WebhookSchema, 'WebhookPage');

export const WebhookWithSecretSchema = z.withMeta(
  z.extend(WebhookSchema, {
    secret: z.withMeta(z.string(), { description: 'The signing secret (`whsec_` and base64), shown this once: keep it.' }),
  }),
  { id: 'WebhookWithSecret' },
);

export const TestEventSchema = z.withMeta(z.object({ eventId: z.string() }), { id: 'WebhookTestEvent' });

export const DeliveriesQuerySchema = z.object({
  size: queryInt({ min: 1, max: 100, default: 20 }),
  nextToken: z.optional(z.string().check(z.maxLength(200))),
});

const AttemptSchema = z.object({
  at: DateTime,
  status: z.optional(z.withMeta(z.number().check(z.int()), { description: 'The HTTP status the endpoint answered.' })),
  error: z.optional(z.withMeta(z.string(), { description: 'Why no answer came: timeout, network, refused: <rule>, ...' })),
  latencyMs: z.number(),
});
const deliveryFields = {
  eventId: z.string(),
  eventType: z.string(),
  eventTimestamp: DateTime,
  subjectId: z.string(),
  status: z.enum(['PENDING', 'DELIVERED', 'FAILED', 'DISCARDED']),
  attempts: z.array(AttemptSchema),
  nextAttemptAt: z.optional(DateTime),
};
export const DeliveryPageSchema = z.withMeta(
  z.object({
    deliveries: z.array(z.object(deliveryFields)),
    nextToken: z.optional(z.string()),
  }),
  { id: 'WebhookDeliveryPage', description: 'Newest first.' },
);

/** Events of an instance a page of its deliveries covers: by default, and at most (each read against every webhook). */
export const INSTANCE_DELIVERIES_PAGE = { default: 20, max: 50 } as const;

export const InstanceDeliveriesQuerySchema = z.object({
  processInstanceId: z.withMeta(z.string().check(z.uuid('must be a process instance id (a UUID)')), { description: "The instance whose events' deliveries to list." }),
  // How many of the instance's events a page covers (each event's deliveries to every webhook).
  size: queryInt({ min: 1, max: INSTANCE_DELIVERIES_PAGE.max, default: INSTANCE_DELIVERIES_PAGE.default }),
  nextToken: z.optional(z.withMeta(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)), { description: "The previous page's `nextToken` (same instance)." })),
});

export const InstanceDeliveryPageSchema = z.withMeta(
  z.object({
    deliveries: z.array(z.object({ webhookId: z.withMeta(z.string(), { description: 'The webhook it went to.' }), ...deliveryFields })),
    nextToken: z.optional(z.withMeta(z.string(), { description: 'Present when more of the instance\'s events follow: send it back as `nextToken`.' })),
  }),
  {
    id: 'InstanceWebhookDeliveryPage',
    description: "Oldest event first; an event's deliveries in the order of the tenant's webhooks. An event no webhook took has none.",
  },
);

export const ReplaySchema = z.withMeta(
  z.object({
    eventId: optional(z.string().check(z.regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an event id'))),
    from: optional(DateTime),
    to: optional(DateTime),
  }),
  { id: 'WebhookReplay', description: 'One event (`eventId`), or the events made from `from` to `to` (the first 500 of the tenant\'s, oldest first) that the webhook takes now.' },
);
export const ReplayResultSchema = z.withMeta(
  z.object({
    queued: z.withMeta(z.number().check(z.int()), { description: 'Deliveries queued: the events read that the webhook takes now.' }),
    more: z.withMeta(z.boolean(), { description: 'The range holds more than the 500 events one replay reads: replay again from `last`.' }),
    last: z.optional(z.withMeta(DateTime, { description: 'When the last event read was made (with `more`).' })),
  }),
  { id: 'WebhookReplayResult' },
);
