import { s, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'WAIT_ON_PUSH_NOTIFICATION',
  displayName: 'Wait on Push Notification',
  kind: 'user',
  description: 'Shows a wait screen that polls the child process started by a push notification until it ends.',
  inputs: [
    { name: 'List of Screens', type: 'L', required: false, default: ['wait-init'] },
    {
      name: 'Polling Error Retry Count',
      type: 'I',
      required: false,
      default: 5,
      min: 0,
      max: 100,
      description: 'Retries (not attempts) before a timeout.',
    },
    { name: 'Polling Interval (ms)', type: 'I', required: false, default: 500, min: 100, max: 60_000 },
    { name: 'Polling URL', type: 'S', required: true, default: '${_pollingUrl}' },
    s('Starting Component ID', false, 'push-notification-wait'),
    s('UI Component ID', false, 'wait-init'),
    stepTimeout,
  ],
  rules: [],
  outputs: [],
  errorEvents: [
    { name: 'Push Notification Process Failed', aslError: 'PushProcessFailed', code: 'pushNotificationProcessFailed' },
    { name: 'Push Notification Process Timed Out', aslError: 'PushProcessTimedOut', code: 'pushNotificationProcessTimedOut' },
    {
      name: 'Timeout',
      aslError: 'PushWaitTimeout', code: 'timeout',
      alsoCatches: ['States.Timeout'],
      description: 'Polling failed more often than the retry count allows, or the step timeout passed.',
    },
    { name: 'Other Error', aslError: 'PushWaitOtherError', code: 'otherError' },
  ],
  family: { beans: ['waitOnPushNotificationV1'] },
} as const satisfies ActivitySpec;


/** Its wait screen polls a push notification's child process, which cannot be started yet. */
export const notRunnable = 'push notifications have no delivery yet, so there is no child process to wait on';
