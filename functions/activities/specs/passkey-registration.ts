import { key, oneUserLookup, s, stepTimeout, storeName, userExternalId, userId, userKey, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'PASSKEY_REGISTRATION',
  displayName: 'Passkey Registration',
  kind: 'user',
  description:
    "The service's own addition (the spec names passkeys among the identity store's endpoints, not as an activity): the end user creates a passkey " +
    "in the browser (WebAuthn) for the user under User Key, User ID or User External ID, under the store's configuration for the relying party.",
  inputs: [
    storeName,
    s('Relying Party ID', true, undefined, "The WebAuthn RP ID: one of the store's passkeyConfig entries, a suffix of the journey pages' host."),
    s('Registration Policy', true, 'default'),
    key('Passkey Key', 'passkey1', 'Where the result is kept: vars.{Passkey Key} and _checks.{Passkey Key}.'),
    userExternalId,
    userId,
    userKey,
    stepTimeout,
  ],
  rules: [oneUserLookup],
  outputs: [
    { name: 'Passkey', variable: 'vars.{Passkey Key}', description: 'The passkey id, credential id and user id.' },
    { name: 'Passkey registration check', variable: '_checks.{Passkey Key}', description: '{result: "PASS"} once registered.' },
  ],
  errorEvents: [],
  family: { beans: ['passkeyRegistrationV1'] },
} as const satisfies ActivitySpec;
