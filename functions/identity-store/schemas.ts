import * as z from '../shared/zod.js';
import { DateTime, optionalQueryInt, queryInt, text } from '../shared/schemas.js';
import { pageSchema } from '../shared/page.js';
import { ID26_PATTERN } from '../shared/ids.js';
import { MAX_PASSCODE_HISTORY } from './stores.js';
import { DEFAULT_EVENT_PAGE_SIZE, IDENTITY_EVENT_TYPES, MAX_EVENT_PAGE_SIZE } from './events.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const StoreName = z.withMeta(z.string().check(z.regex(NAME, 'must be 1 to 64 letters, digits, _ . - (starting with a letter or digit)')), {
  description: 'The store name: 1 to 64 letters, digits, `_`, `.`, `-`.',
});
const PolicyName = z.string().check(z.regex(NAME, 'must be 1 to 64 letters, digits, _ . - (starting with a letter or digit)'));
const UserId = z.withMeta(z.string().check(z.regex(ID26_PATTERN, 'must be a user id (26 characters)')), { description: 'The internal user id.' });
const ExternalId = z.withMeta(text(1, 255), { description: "The relying party's own id of the user, unique in its store." });
const SessionId = z.string().check(z.regex(ID26_PATTERN, 'must be a registration session id (26 characters)'));

const count = (max: number) => z.number().check(z.int(), z.gte(0), z.lte(max));
const Regex = z.strictObject({ pattern: text(1, 500), error: text(1, 200) });
const Regexes = z.array(Regex).check(z.maxLength(20));

export const PasscodeRequirementsSchema = z.withMeta(
  z.strictObject({
    minimumLength: z._default(z.number().check(z.int(), z.gte(1), z.lte(1024)), 8),
    maximumLength: z._default(z.number().check(z.int(), z.gte(1), z.lte(1024)), 64),
    digitCount: z._default(count(1024), 0),
    symbolCount: z._default(count(1024), 0),
    lowerCaseCount: z._default(count(1024), 0),
    upperCaseCount: z._default(count(1024), 0),
    characterVariety: z._default(z.withMeta(count(4), { description: 'How many of digits, symbols, lower and upper case it must mix.' }), 0),
    passcodeHistory: z._default(z.withMeta(count(MAX_PASSCODE_HISTORY), { description: 'How many earlier passcodes it must differ from.' }), 0),
    requiredRegExes: z._default(z.withMeta(Regexes, { description: 'Each must match (JavaScript syntax, `u` flag).' }), []),
    allowedRegExes: z._default(z.withMeta(Regexes, { description: 'When any are given, one must match.' }), []),
    disallowedRegExes: z._default(z.withMeta(Regexes, { description: 'None may match.' }), []),
  }),
  { id: 'PasscodeRequirements' },
);

const PasscodePolicySchema = z.strictObject({ description: z.optional(text(0, 255)), requirements: PasscodeRequirementsSchema });
const PasscodePolicies = z.record(PolicyName, PasscodePolicySchema).check(z.refine((m) => Object.keys(m).length <= 50, 'at most 50 policies'));

export const StoreSchema = z.withMeta(
  z.object({
    name: z.string(),
    description: z.string(),
    type: z.enum(['STANDARD', 'APPKEY']),
    passcodePolicies: z.record(z.string(), z.object({ description: z.optional(z.string()), requirements: PasscodeRequirementsSchema })),
    createdDtm: DateTime,
    createdBy: z.string(),
    lastUpdatedDtm: DateTime,
    lastUpdatedBy: z.string(),
  }),
  { id: 'IdentityStore' },
);

export const StoreCreateSchema = z.withMeta(
  z.strictObject({
    name: StoreName,
    description: z.optional(text(0, 255)),
    type: z.optional(z.withMeta(z.enum(['STANDARD', 'APPKEY']), { description: 'APPKEY stores are the ones push notification policies can belong to. Default STANDARD.' })),
    passcodePolicies: z.optional(PasscodePolicies),
  }),
  { id: 'IdentityStoreCreate' },
);

export const StoreUpdateSchema = z.withMeta(
  z.strictObject({ description: z.optional(text(0, 255)), passcodePolicies: z.optional(PasscodePolicies) }),
  { id: 'IdentityStoreUpdate', description: 'A partial update: what is given replaces what was (a policy map replaces the whole map).' },
);

export const StorePath = z.strictObject({ storeName: StoreName });
export const StoreListQuery = z.object({ page: queryInt({ min: 0, max: 1_000_000, default: 0 }), size: queryInt({ min: 1, max: 1000, default: 10 }) });
export const StorePageSchema = pageSchema(StoreSchema, 'IdentityStorePage');

export const UserSchema = z.withMeta(
  z.object({
    id: UserId,
    externalId: z.string(),
    storeName: z.string(),
    status: z.enum(['ACTIVE']),
    passcodes: z.withMeta(z.array(z.object({ policyName: z.string(), registeredDtm: DateTime })), {
      description: 'The policies the user has a passcode under (never the verifier).',
    }),
    createdDtm: DateTime,
    lastUpdatedDtm: DateTime,
  }),
  {
    id: 'IdentityUser',
    description:
      "An identity store user: the service's 26-character id, the relying party's external id (unique in the store), " +
      'and a summary of its credentials. Secrets (passcode verifiers) are never returned.',
  },
);
export const UserCreateSchema = z.withMeta(z.strictObject({ externalId: ExternalId }), { id: 'IdentityUserCreate' });
export const UserPath = z.strictObject({ storeName: StoreName, userId: UserId });
/** On the `/ext` paths the segment is the external id. */
export const ExtUserPath = z.strictObject({ storeName: StoreName, userId: z.withMeta(text(1, 255), { description: 'The external user id.' }) });
export const UserPolicyPath = z.strictObject({ storeName: StoreName, userId: UserId, policyName: PolicyName });
export const ExtUserPolicyPath = z.strictObject({ storeName: StoreName, userId: text(1, 255), policyName: PolicyName });
export const SessionPath = z.strictObject({ storeName: StoreName, sessionId: SessionId });

export const PasscodeRegistrationStartedSchema = z.withMeta(
  z.object({
    passcodeRequirements: PasscodeRequirementsSchema,
    algorithmInfo: z.object({
      type: z.enum(['SRP']),
      parameters: z.withMeta(
        z.object({
          i: z.withMeta(z.string(), { description: 'The registration session id (26 characters): complete the registration at `.../passcodes/registrations/sessions/{i}`.' }),
          n: z.withMeta(z.string(), { description: 'The group prime N, base64 of its big-endian bytes.' }),
          g: z.withMeta(z.string(), { description: 'The generator.' }),
          hash: z.withMeta(z.string(), { description: 'The hash function of the SRP routines.' }),
          group: z.withMeta(z.string(), { description: 'The group: `rfc5054-2048` (RFC 5054 Appendix A, 2048 bits).' }),
          saltBytes: z.number().check(z.int()),
          routines: z.withMeta(z.string(), { description: 'The SRP-6a formulas the server checks against, in one line.' }),
          salt: z.withMeta(z.string(), { description: 'The salt for this passcode, base64.' }),
          identity: z.withMeta(z.string(), { description: 'The SRP identity I: the user id.' }),
          historySalts: z.withMeta(z.array(z.string()), {
            description: "Salts of the user's earlier passcodes the policy's history rule covers: send the new passcode's verifier under each as `historyVerifiers`.",
          }),
        }),
        { description: 'What a client needs to make the verifier v = g^x mod N of the passcode; the passcode never leaves the client.' },
      ),
    }),
    expiresDtm: z.withMeta(DateTime, { description: 'Complete the registration before this.' }),
  }),
  { id: 'PasscodeRegistrationStarted' },
);

const Base64 = z.string().check(z.minLength(1), z.maxLength(2048));
export const PasscodeRegistrationCompleteSchema = z.withMeta(
  z.strictObject({
    srpRegistrationData: z.strictObject({
      verifier: z.withMeta(Base64, { description: 'The SRP verifier v, base64 of its big-endian bytes: 1 < v < N.' }),
      historyVerifiers: z.optional(z.array(Base64).check(z.maxLength(MAX_PASSCODE_HISTORY))),
    }),
  }),
  { id: 'PasscodeRegistrationComplete' },
);
export const UserResponseSchema = z.withMeta(z.object({ user: UserSchema }), { id: 'IdentityUserResponse' });

export const EventSchema = z.withMeta(
  z.object({
    eventId: z.string(),
    type: z.enum(IDENTITY_EVENT_TYPES),
    storeName: z.string(),
    userId: z.optional(z.string()),
    externalId: z.optional(z.string()),
    at: DateTime,
    actor: z.withMeta(z.string(), { description: 'An API key (`apikey:{id}`) or a journey (`journey:{processInstanceId}`).' }),
    details: z.record(z.string(), z.string()),
  }),
  { id: 'IdentityEvent' },
);

const PageSize = z.number().check(z.int(), z.gte(1), z.lte(MAX_EVENT_PAGE_SIZE));
export const EventQueryStartSchema = z.withMeta(
  z.strictObject({
    storeName: z.optional(StoreName),
    userId: z.optional(UserId),
    externalId: z.optional(text(1, 255)),
    eventTypes: z.optional(z.array(z.enum(IDENTITY_EVENT_TYPES)).check(z.minLength(1))),
    from: z.optional(z.withMeta(DateTime, { description: 'Events at or after this.' })),
    to: z.optional(z.withMeta(DateTime, { description: 'Events at or before this.' })),
    size: z.optional(z.withMeta(PageSize, { description: `Page size of the result (default ${DEFAULT_EVENT_PAGE_SIZE}).` })),
  }),
  { id: 'IdentityEventQueryStart' },
);
export const EventQueryStartedSchema = z.withMeta(
  z.object({ executionId: z.string(), status: z.enum(['SUCCEEDED']), expiresDtm: DateTime }),
  { id: 'IdentityEventQueryStarted', description: 'The query is ready at once; its result can be paged for an hour.' },
);
export const EventQueryPath = z.strictObject({ executionId: z.string().check(z.regex(ID26_PATTERN, 'must be an execution id')) });
export const EventQueryResultQuery = z.object({
  size: z.withMeta(optionalQueryInt({ min: 1, max: MAX_EVENT_PAGE_SIZE }), { description: "Page size; the query's own size when absent." }),
  nextToken: z.optional(z.string().check(z.maxLength(512))),
});
export const EventQueryResultSchema = z.withMeta(
  z.object({
    executionId: z.string(),
    events: z.array(EventSchema),
    nextToken: z.optional(z.withMeta(z.string(), { description: 'Send as `nextToken` for the next page; absent on the last.' })),
  }),
  { id: 'IdentityEventQueryResult' },
);
