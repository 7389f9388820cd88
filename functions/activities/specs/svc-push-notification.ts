import { key, s, storeName, userExternalId, userId, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'SVC_PUSH_NOTIFICATION',
  displayName: 'Svc Push Notification',
  kind: 'service',
  description: "Sends a push notification to the user's devices; it starts a child process instance there.",
  inputs: [
    s('Title', false, undefined, 'Given together with Message, or use the localized keys instead.'),
    s('Message', false),
    s('Localized Title Key', false, undefined, 'Reference to a string in the device application.'),
    s('Localized Message Key', false, undefined, 'Reference to a string in the device application.'),
    { name: 'Localized Title Arguments', type: 'L', required: false },
    { name: 'Localized Message Arguments', type: 'L', required: false },
    { name: 'Monitor Push Notification Process', type: 'B', required: false, default: true },
    { name: 'Push Notification Parameters', type: 'M', required: false, description: 'Sent to the device application.' },
    s('Push Notification Process Definition Name', false),
    {
      name: 'Push Notification Process Definition Version',
      type: 'I',
      required: false,
      min: 1,
      description: 'Goes with the definition name (the spec names the pair "name plus version").',
    },
    s('Push Notification Process Definition Tag', false),
    { name: 'Push Notification Process Parameters', type: 'M', required: false, description: 'Passed to the child process.' },
    s('Relying Party ID', true, undefined, 'Typically the ID of the Appkey policy.'),
    {
      name: 'Retry Hint Duration (Seconds)',
      type: 'I',
      required: false,
      default: 60,
      max: 1000,
      description: '0 or less disables retries.',
    },
    storeName,
    { name: 'Time To Live (Seconds)', type: 'I', required: true, min: 60, max: 2_419_200 },
    userExternalId,
    userId,
    { ...key('User Key'), required: false },
  ],
  rules: [
    { kind: 'groups', groups: [['Title', 'Message'], ['Localized Title Key', 'Localized Message Key']], min: 1, max: 1 },
    {
      kind: 'groups',
      groups: [['Push Notification Process Definition Name', 'Push Notification Process Definition Version'], ['Push Notification Process Definition Tag']],
      min: 1,
      max: 1,
    },
    { kind: 'groups', groups: [['User Key'], ['User ID'], ['User External ID']], min: 1, max: 1 },
    { kind: 'requires', input: 'Localized Title Arguments', requires: 'Localized Title Key' },
    { kind: 'requires', input: 'Localized Message Arguments', requires: 'Localized Message Key' },
  ],
  outputs: [
    { name: 'Polling URL', variable: 'vars.pollingUrl', description: 'Set only when the child process is monitored.' },
    { name: 'Redirect URL', variable: 'vars.pnRedirectUrl' },
    {
      name: 'Polling URL (system variable)',
      variable: 'vars._pollingUrl',
      description: 'The same URL under the name Wait on Push Notification reads by default (${_pollingUrl}).',
    },
  ],
  errorEvents: [
    {
      name: 'No Valid Destinations Available',
      aslError: 'NoValidDestinationsAvailable', code: 'noValidDestinationsAvailable',
      description: 'For example the notification expired.',
    },
    {
      name: 'No Destinations Available',
      aslError: 'NoDestinationsAvailable', code: 'noDestinationsAvailable',
      description: 'No Appkey registered for the user and device.',
    },
    { name: 'Other Error', aslError: 'PushNotificationOtherError', code: 'otherError' },
  ],
  family: { beans: ['svcPushNotificationV1'] },
} as const satisfies ActivitySpec;


/** Appkey devices and push delivery (APNs, FCM) are not built yet. */
export const notRunnable = 'push notifications have no delivery yet (no Appkey devices, APNs or FCM)';
