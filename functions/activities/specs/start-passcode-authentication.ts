import { key, oneUserLookup, s, storeName, userExternalId, userId, userKey, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'START_PASSCODE_AUTHENTICATION',
  displayName: 'Start Passcode Authentication',
  kind: 'service',
  description:
    "The service's own addition (the spec has no activity for it): starts an SRP-6a login for the user's passcode under a policy. " +
    'A Passcode Authentication Form with Starting Component ID passcode-authentication then has the end user prove the passcode in the browser; ' +
    'the result is _checks.{Passcode Registration Key}.result, PASS or FAIL (after 3 wrong passcodes).',
  inputs: [
    key('Passcode Registration Key', 'passcodeReg1', 'Where the authentication session is kept; the form reads it under the same key.'),
    s('Passcode Policy', true, 'passcodeAuth1'),
    storeName,
    userExternalId,
    userId,
    userKey,
  ],
  rules: [oneUserLookup],
  outputs: [{ name: 'Passcode authentication', variable: 'vars.{Passcode Registration Key}', description: 'The session id, store, policy and user.' }],
  errorEvents: [],
  failures: ['UserNotGiven'],
  family: { beans: ['startPasscodeAuthenticationV1'] },
} as const satisfies ActivitySpec;
