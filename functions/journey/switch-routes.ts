import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';

/** As the journey pages' (journey-routes.ts). */
const InstancePath = z.strictObject({ processInstanceId: z.string().check(z.uuid('must be a process instance id')) });
const SwitchQuery = z.object({
  s: z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/, 'must be the secret of a switch link')),
  lang: z.optional(z.string().check(z.maxLength(35))),
});
const page = (description: string) => ({ description, contentType: 'text/html', schema: z.string() });

/**
 * The link of a Switch Device step (functions/journey/devices.ts), for end users: kept apart from
 * the journey pages' table so that their bundles do not carry it. Part of the route table
 * (functions/routes.ts).
 */
export const switchDeviceRoutes = {
  openSwitchLink: defineRoute({
    operationId: 'openSwitchLink',
    method: 'GET',
    path: '/journey/{processInstanceId}/switch',
    handler: 'functions/journey/open-switch-link.ts',
    auth: 'endUser',
    html: true,
    summary: "A Switch Device step's link, opened on a phone: the phone gets the journey",
    description:
      'Authorised by the single-use secret `s` its step\'s page shows (as a QR code too), not by `c`. The step completes ' +
      '(`H_isSwitchedFromDesktop` and `isMobile` true) and the phone is sent on to the journey page with a capability of its own. ' +
      'Valid while the journey waits at that step (until its timer or Step Timeout) and the device that showed it holds the journey.',
    tag: 'Journey pages',
    request: { path: InstancePath, query: SwitchQuery },
    responses: {
      303: { description: "On to the journey page, with the phone's own capability." },
      400: page('A malformed link.'),
      404: page('An unknown or wrong link (JOURNEY_NOT_AVAILABLE).'),
      409: page('Used already (SWITCH_LINK_USED), or its step is over or the journey moved to another device (SWITCH_LINK_EXPIRED); nothing changes.'),
      503: page('Step Functions throttled or did not confirm the hand-over (SERVICE_UNAVAILABLE, with Retry-After): opening the link again goes on.'),
    },
    // Query: the definition's documents, for the step's timer. ConditionCheckItem: the link opens only while its step waits.
    aws: { table: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], stateMachines: 'sendTask' },
  }),
} satisfies Record<string, RouteDef>;
