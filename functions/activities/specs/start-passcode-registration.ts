import { key, oneUserLookup, s, storeName, userExternalId, userId, userKey, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'START_PASSCODE_REGISTRATION',
  displayName: 'Start Passcode Registration',
  kind: 'service',
  description:
    'Starts a passcode registration for a user. The user under User Key is used when one was obtained earlier; otherwise it is looked up by User ID or User External ID and stored under User Key.',
  inputs: [
    key('Passcode Registration Key', 'passcodeReg1', 'Where the registration session is kept.'),
    s('Passcode Key', true, undefined, 'The passcode policy to register under.'),
    storeName,
    userExternalId,
    userId,
    userKey,
  ],
  rules: [oneUserLookup],
  outputs: [
    {
      name: 'Passcode registration',
      variable: 'vars.{Passcode Registration Key}',
      description: 'Session id, passcode requirements and algorithm info for the passcode form.',
    },
  ],
  errorEvents: [],
  failures: ['UserNotGiven'],
  family: { beans: ['startPasscodeRegistrationV1'] },
} as const satisfies ActivitySpec;
