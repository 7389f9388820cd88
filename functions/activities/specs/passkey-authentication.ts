import { key, oneUserLookup, s, stepTimeout, storeName, userExternalId, userId, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'PASSKEY_AUTHENTICATION',
  displayName: 'Passkey Authentication',
  kind: 'user',
  description:
    "The service's own addition: the end user signs in with a passkey (WebAuthn). With a user (User Key, User ID or User External ID) only their " +
    'passkeys are allowed; without one it is discoverable, and the authenticator names the user, who is then kept under User Key.',
  inputs: [
    storeName,
    s('Relying Party ID', true, undefined, "The WebAuthn RP ID: one of the store's passkeyConfig entries."),
    s('Authentication Policy', true, 'default'),
    key('Passkey Key', 'passkey1', 'Where the result is kept: _checks.{Passkey Key}.'),
    userExternalId,
    userId,
    s('User Key', false, undefined, 'The user found earlier in the flow; without one (and no User ID or External ID) the sign-in is discoverable.'),
    stepTimeout,
  ],
  rules: [oneUserLookup],
  outputs: [{ name: 'Passkey authentication check', variable: '_checks.{Passkey Key}', description: '{result: "PASS"} once a passkey of the user is proved.' }],
  errorEvents: [],
  family: { beans: ['passkeyAuthenticationV1'] },
} as const satisfies ActivitySpec;
