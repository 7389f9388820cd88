import { stepTimeout, type ActivitySpec } from '../spec.js';

/**
 * The family's Switch to Mobile (palette STM01) and Switch To Desktop (STB01): one bean,
 * `switchDeviceV1` (with the end listener `switchDeviceWriterV1`), the direction told by the
 * screens it names. So there is no single palette entry or palette name to give here. Its
 * inputs are matched by their parameter names (screenId, screens, stepId); the family's labels,
 * "UI Component Id" and "Starting component ID", differ from these input names only in case,
 * which label matching ignores.
 */
export const spec = {
  type: 'SWITCH_DEVICE',
  displayName: 'Switch Device',
  kind: 'user',
  description:
    "Moves the journey between the end user's devices. To a phone (instructions, scan-qr, mobile-switch-status): the page shows a QR code " +
    'and a single-use link; the phone that opens it gets the journey, the step completes (H_isSwitchedFromDesktop, isMobile true) and the ' +
    "computer's page follows. Back (switch-to-desktop): the phone asks the end user to go back, and the computer's page takes the journey " +
    'back and completes the step (isMobile false). The link ends with the step (its timer or Step Timeout) or the journey.',
  inputs: [
    {
      name: 'UI Component ID',
      type: 'S',
      required: true,
      enum: ['instructions', 'scan-qr', 'mobile-switch-status', 'switch-to-desktop'],
      description: 'The first screen, and so the direction: instructions, scan-qr or mobile-switch-status to a phone; switch-to-desktop back.',
      family: { name: 'screenId', type: 'STRING' },
    },
    {
      name: 'List of Screens',
      type: 'L',
      required: false,
      description: 'The screens of the step, all of one direction (both fail the step: InvalidInput).',
      family: { name: 'screens' },
    },
    {
      name: 'Starting Component ID',
      type: 'S',
      required: false,
      enum: ['mobile-switch', 'switch-to-desktop'],
      description: 'The UI component: mobile-switch (to a phone) or switch-to-desktop (back).',
      family: { name: 'stepId', type: 'STRING' },
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    { name: 'Switched from desktop', variable: 'vars.H_isSwitchedFromDesktop', description: 'true once a phone took the journey.' },
    { name: 'On a phone', variable: 'vars.isMobile', description: 'true when a phone took the journey, false when the computer took it back.' },
  ],
  errorEvents: [],
  family: { beans: ['switchDeviceV1'], endBean: 'switchDeviceWriterV1' },
} as const satisfies ActivitySpec;
