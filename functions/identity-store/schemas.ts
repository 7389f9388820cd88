import * as z from '../shared/zod.js';
import { DateTime, optionalQueryInt, queryInt, text } from '../shared/schemas.js';
import { cursorPageSchema, cursorParam } from '../shared/page.js';
import { ID26_PATTERN } from '../shared/ids.js';
import { MAX_PASSCODE_HISTORY } from './stores/stores.js';
import { DEFAULT_EVENT_PAGE_SIZE, IDENTITY_EVENT_TYPES, MAX_EVENT_PAGE_SIZE } from './events/events.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const StoreName = z.withMeta(z.string().check(z.regex(NAME, 'must be 1 to 64 letters, digits, _ . - (starting with a letter or digit)')), {
  description: 'The store name: 1 to 64 letters, digits, `_`, `.`, `-`.',
});
const PolicyName = z.string().check(z.regex(NAME, 'must be 1 to 64 letters, digits, _ . - (starting with a letter or digit)'));
const UserId = z.withMeta(z.string().check(z.regex(ID26_PATTERN, 'must be a user id (26 characters)')), { description: 'The internal user id.' });
const ExternalId = z.withMeta(text(1, 255), { description: "The relying party's own id of the user, unique in its store." });
const SessionId = z.string().check(z.regex(ID26_PATTERN, 'must be a registration session id (26 characters)'));

const count = (max: number) => z.number().check(z.int(), z.gte(0), z.lte(max));
const Regex = z.object({ pattern: text(1, 500), error: text(1, 200) });
const Regexes = z.array(Regex).check(z.maxLength(20));

export const PasscodeRequirementsSchema = z.withMeta(
  z.object({
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

const PasscodePolicySchema = z.object({ description: z.optional(text(0, 255)), requirements: PasscodeRequirementsSchema });
const PasscodePolicies = z.record(PolicyName, PasscodePolicySchema).check(z.refine((m) => Object.keys(m).length <= 50, 'at most 50 policies'));

const Selection = z.withMeta(
  z.object({
    residentKey: z._default(z.enum(['required', 'preferred', 'discouraged']), 'preferred'),
    userVerification: z._default(z.enum(['required', 'preferred', 'discouraged']), 'preferred'),
    authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
  }),
  { id: 'AuthenticatorSelection', description: 'WebAuthn authenticatorSelection.' },
);
const Timeout = z._default(z.withMeta(z.number().check(z.int(), z.gte(30), z.lte(600)), { description: 'Seconds the ceremony may take.' }), 300);
const RegistrationPolicy = z.object({ authenticatorSelection: z._default(Selection, { residentKey: 'preferred', userVerification: 'preferred' }), attestation: z._default(z.enum(['none', 'direct']), 'none'), timeoutSeconds: Timeout });
const AuthenticationPolicy = z.object({ userVerification: z._default(z.enum(['required', 'preferred', 'discouraged']), 'preferred'), timeoutSeconds: Timeout });
const RpId = z.withMeta(z.string().check(z.regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, 'must be a domain name (the WebAuthn RP ID)')), {
  description: 'The WebAuthn relying party id: a domain, e.g. `bank.example`.',
});
const Origin = z.string().check(
  z.regex(/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/, 'must be an origin: scheme, host and optional port, no path'),
  // WebAuthn runs only in secure contexts: https, or http on localhost.
  z.refine((o) => o.startsWith('https://') || /^http:\/\/([a-z0-9.-]+\.)?localhost(:\d+)?$/.test(o), 'must be https (http only for localhost)'),
);
const policies = <T extends z.ZodMiniType>(item: T) => z.record(PolicyName, item).check(z.refine((m) => Object.keys(m).length <= 20, 'at most 20 policies'));
const PasskeyRpFields = {
  rpName: text(1, 255),
  allowedOrigins: z.withMeta(z.array(Origin).check(z.minLength(1), z.maxLength(20)), { description: 'Origins ceremonies may come from; http only for localhost.' }),
  registrationPolicies: z._default(policies(RegistrationPolicy), {}),
  authenticationPolicies: z._default(policies(AuthenticationPolicy), {}),
};
export const PasskeyConfigSchema = z.withMeta(z.object({ rpId: RpId, ...PasskeyRpFields }), { id: 'PasskeyRelyingPartyConfig' });
export const PasskeyConfigUpdateSchema = z.withMeta(z.object(PasskeyRpFields), { id: 'PasskeyRelyingPartyConfigUpdate' });
export const RpPath = z.strictObject({ storeName: StoreName, rpId: RpId });

export const StoreSchema = z.withMeta(
  z.object({
    name: z.string(),
    description: z.string(),
    type: z.enum(['STANDARD', 'APPKEY']),
    passcodePolicies: z.record(z.string(), z.object({ description: z.optional(z.string()), requirements: PasscodeRequirementsSchema })),
    passkeyConfig: z.withMeta(z.record(z.string(), z.unknown()), { description: 'Per relying party id: rpName, allowedOrigins, registrationPolicies, authenticationPolicies.' }),
    createdDtm: DateTime,
    createdBy: z.string(),
    lastUpdatedDtm: DateTime,
    lastUpdatedBy: z.string(),
  }),
  { id: 'IdentityStore' },
);

export const StoreCreateSchema = z.withMeta(
  z.object({
    name: StoreName,
    description: z.optional(text(0, 255)),
    type: z.optional(z.withMeta(z.enum(['STANDARD', 'APPKEY']), { description: 'APPKEY stores are the ones push notification policies can belong to. Default STANDARD.' })),
    passcodePolicies: z.optional(PasscodePolicies),
  }),
  { id: 'IdentityStoreCreate' },
);

export const StoreUpdateSchema = z.withMeta(
  z.object({ description: z.optional(text(0, 255)), passcodePolicies: z.optional(PasscodePolicies) }),
  { id: 'IdentityStoreUpdate', description: 'A partial update: what is given replaces what was (a policy map replaces the whole map).' },
);

export const StorePath = z.strictObject({ storeName: StoreName });
export const StoreListQuery = z.object({
  page: queryInt({ min: 0, max: 1_000_000, default: 0 }),
  size: queryInt({ min: 1, max: 1000, default: 10 }),
  cursor: cursorParam(),
});
export const StorePageSchema = cursorPageSchema(StoreSchema, 'IdentityStorePage');

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
export const UserCreateSchema = z.withMeta(z.object({ externalId: ExternalId }), { id: 'IdentityUserCreate' });
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
  z.object({
    srpRegistrationData: z.object({
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
  z.object({
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

const PolicyParam = PolicyName;
export const PasskeyUserRegPath = z.strictObject({ storeName: StoreName, userId: UserId, rpId: RpId, regPolicyName: PolicyParam });
export const PasskeyExtUserRegPath = z.strictObject({ storeName: StoreName, userId: text(1, 255), rpId: RpId, regPolicyName: PolicyParam });
export const PasskeyRegPath = z.strictObject({ storeName: StoreName, rpId: RpId, regPolicyName: PolicyParam });
export const PasskeyUserAuthPath = z.strictObject({ storeName: StoreName, userId: UserId, rpId: RpId, authPolicyName: PolicyParam });
export const PasskeyExtUserAuthPath = z.strictObject({ storeName: StoreName, userId: text(1, 255), rpId: RpId, authPolicyName: PolicyParam });
export const PasskeyAuthPath = z.strictObject({ storeName: StoreName, rpId: RpId, authPolicyName: PolicyParam });
export const PasskeyAuditPath = z.strictObject({ storeName: StoreName, userId: UserId, passkeyId: z.string().check(z.regex(ID26_PATTERN, 'must be a passkey id')) });
export const PasskeyExtAuditPath = z.strictObject({ storeName: StoreName, userId: text(1, 255), passkeyId: z.string().check(z.regex(ID26_PATTERN, 'must be a passkey id')) });
export const NewUserRegistrationBody = z.withMeta(z.object({ externalId: ExternalId }), {
  id: 'PasskeyRegistrationWithoutUser',
  description: 'The external id of the user the registration makes when it completes.',
});

/** A WebAuthn response as @simplewebauthn/browser returns it: checked by @simplewebauthn/server, so only its frame is checked here. */
const WebAuthnResponse = z.withMeta(
  z.looseObject({
    id: z.string().check(z.minLength(1), z.maxLength(1400)),
    rawId: z.string().check(z.maxLength(1400)),
    type: z.literal('public-key'),
    response: z.record(z.string(), z.unknown()),
  }),
  { description: 'The PublicKeyCredential as JSON (`startRegistration` / `startAuthentication` of @simplewebauthn/browser).' },
);
export const PasskeyRegistrationCompleteSchema = z.withMeta(z.object({ response: WebAuthnResponse }), { id: 'PasskeyRegistrationComplete' });
export const PasskeyAuthenticationCompleteSchema = z.withMeta(z.object({ sessionId: SessionId, response: WebAuthnResponse }), { id: 'PasskeyAuthenticationComplete' });
export const PasskeySessionPath = SessionPath;

const PasskeySchema = z.withMeta(
  z.object({
    id: z.string(),
    credentialId: z.string(),
    rpId: z.string(),
    counter: z.number().check(z.int()),
    transports: z.array(z.string()),
    credentialDeviceType: z.string(),
    credentialBackedUp: z.boolean(),
    registeredDtm: DateTime,
    lastUsedDtm: z.optional(DateTime),
  }),
  { id: 'Passkey' },
);
export const PasskeyRegistrationStartedSchema = z.withMeta(
  z.object({
    sessionId: z.string(),
    username: z.string(),
    authenticatorSelection: Selection,
    publicKey: z.withMeta(z.record(z.string(), z.unknown()), { description: 'PublicKeyCredentialCreationOptionsJSON: pass to startRegistration({ optionsJSON }).' }),
    expiresDtm: DateTime,
  }),
  { id: 'PasskeyRegistrationStarted' },
);
export const PasskeyAuthenticationStartedSchema = z.withMeta(
  z.object({
    sessionId: z.string(),
    publicKey: z.withMeta(z.record(z.string(), z.unknown()), { description: 'PublicKeyCredentialRequestOptionsJSON: pass to startAuthentication({ optionsJSON }).' }),
    expiresDtm: DateTime,
  }),
  { id: 'PasskeyAuthenticationStarted' },
);
export const PasskeyRegisteredSchema = z.withMeta(z.object({ user: UserSchema, passkey: PasskeySchema }), { id: 'PasskeyRegistered' });
export const PasskeyAuthenticatedSchema = z.withMeta(z.object({ verified: z.boolean(), user: UserSchema, passkey: PasskeySchema }), { id: 'PasskeyAuthenticated' });
export const PendingSessionSchema = z.withMeta(
  z.object({ sessionId: z.string(), username: z.string(), authenticatorSelection: z.optional(Selection), rpId: z.string(), expiresDtm: DateTime }),
  { id: 'PasskeyPendingSession' },
);
export const RegistrationAuditSchema = z.withMeta(
  z.object({
    ...PasskeySchema.def.shape,
    aaguid: z.string(),
    attestationFormat: z.string(),
    userVerified: z.boolean(),
    origin: z.string(),
    registrationPolicy: z.string(),
  }),
  { id: 'PasskeyRegistrationAudit' },
);
export const AuthenticationSchema = z.withMeta(
  z.object({ id: z.string(), at: DateTime, method: z.enum(['PASSKEY', 'PASSCODE']), policyName: z.string(), rpId: z.optional(z.string()), passkeyId: z.optional(z.string()) }),
  { id: 'UserAuthentication' },
);
export const AuthenticationPageSchema = cursorPageSchema(AuthenticationSchema, 'UserAuthenticationPage');
export const AuthenticationListQuery = StoreListQuery;
