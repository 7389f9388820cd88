import { key, s, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'PASSCODE_AUTHENTICATION_FORM',
  displayName: 'Passcode Authentication Form',
  kind: 'user',
  description:
    "Shows the passcode screen. With Starting Component ID passcode-registration (the default) the end user chooses a passcode, checked against the policy's requirements as it is typed, and the browser sends only its SRP verifier (for Complete Passcode Registration); with passcode-authentication the browser proves the passcode of a Start Passcode Authentication with the SRP handshake. The passcode never leaves the device. The data form named by Data form name and version (any status but ARCHIVED) frames the screen: its title, subtitle and fields are shown with the passcode entry, and the fields are checked and kept under Form data Key with the form's name and version.",
  inputs: [
    s('Data form name', true),
    { name: 'Data form version', type: 'I', required: true, default: 1, min: 1 },
    key('Form data Key', 'passcodeRegForm1', 'Where the submitted form data is kept.'),
    key('Passcode Registration Key', 'passcodeReg1'),
    { ...s('Starting Component ID', true, 'passcode-registration'), family: { name: 'stepId' } },
    { ...s('UI Component ID', true, 'passcode-registration'), family: { name: 'screenId' } },
    stepTimeout,
  ],
  rules: [],
  outputs: [{ name: 'Form data', variable: 'vars.{Form data Key}' }],
  errorEvents: [],
  family: { beans: ['passcodeAuthenticationFormV1'] },
} as const satisfies ActivitySpec;
