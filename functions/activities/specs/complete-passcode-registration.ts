import { key, s, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'COMPLETE_PASSCODE_REGISTRATION',
  displayName: 'Complete Passcode Registration',
  kind: 'service',
  description: 'Completes the passcode registration with the verifier the form collected.',
  inputs: [s('Passcode Registration Browser Response', false), key('Passcode Registration Key', 'passcodeReg1')],
  rules: [],
  outputs: [
    {
      name: 'Passcode registration check',
      variable: '_checks.{Passcode Registration Key}',
      description: '{result: "PASS"} once the passcode is registered.',
    },
  ],
  errorEvents: [],
  failures: ['PasscodeRegistrationNotFound'],
  family: { beans: ['completePasscodeRegistrationV1'] },
} as const satisfies ActivitySpec;
