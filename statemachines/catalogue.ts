/**
 * The activity catalogue: every activity type a process definition may use, as plain data.
 * Input names are the spec's parameter display names, so a definition reads like the process
 * designer's configuration. `validate.ts` enforces what is written here; `compile.ts` reads the
 * kind (service task, user task, decider) and the error events' ASL error names.
 *
 * Defaults: the spec writes `${60}` for the literal 60; it is stored here as 60. A default such
 * as `${_pollingUrl}` is a reference to session data and stays a string (see references.ts).
 */
import type { InputValue } from './definition.js';

/** S string, I integer, B boolean, L list of strings, M map of string to string, F data form. */
export type InputType = 'S' | 'I' | 'B' | 'L' | 'M' | 'F';

export interface InputSpec {
  name: string;
  type: InputType;
  required: boolean;
  default?: InputValue;
  /** Integer bounds, checked on literal values (a reference is checked when it is resolved). */
  min?: number;
  max?: number;
  /** A literal string must match; used for keys that become variable names. */
  pattern?: string;
  patternMessage?: string;
  enum?: string[];
  /** False when the value must be known when the definition is compiled (no `${...}`). */
  references?: false;
  description?: string;
}

/**
 * Cross-input rules. `groups`: between `min` and `max` of the groups are given (a group is given
 * when any of its inputs is), and a given group is given whole. `requires`: `input` needs
 * `requires` to be given too.
 */
export type InputRule =
  | { kind: 'groups'; groups: string[][]; min: number; max: number }
  | { kind: 'requires'; input: string; requires: string };

export interface OutputSpec {
  name: string;
  /** Where the activity writes it in the session data; `{Input Name}` stands for that input's value. */
  variable: string;
  description?: string;
}

export interface ErrorEventSpec {
  /** The spec's name of the error boundary event, as a definition's `errorEvents` key. */
  name: string;
  /** The error the activity raises (Lambda error type or SendTaskFailure `error`); a `Catch` matches it. */
  aslError: string;
  /** Step Functions errors the same route also catches. */
  alsoCatches?: string[];
  description?: string;
}

export type ActivityKind = 'service' | 'user' | 'decider';

export interface ActivitySpec {
  type: string;
  displayName: string;
  kind: ActivityKind;
  description: string;
  inputs: InputSpec[];
  rules: InputRule[];
  outputs: OutputSpec[];
  errorEvents: ErrorEventSpec[];
}

/** Every user step has this input: the compiled task's `TimeoutSeconds`. */
export const STEP_TIMEOUT_INPUT = 'Step Timeout (Seconds)';
export const STEP_TIMEOUT_DEFAULT = 1800;
/** 28 days: the longest a push notification lives, and far inside the instance's retention. */
export const STEP_TIMEOUT_MAX = 2_419_200;

const stepTimeout: InputSpec = {
  name: STEP_TIMEOUT_INPUT,
  type: 'I',
  required: false,
  default: STEP_TIMEOUT_DEFAULT,
  min: 60,
  max: STEP_TIMEOUT_MAX,
  references: false,
  description:
    'How long the end user has for this step. When it passes the task fails with States.Timeout (the instance times out unless a route catches it).',
};

const VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
const VARIABLE_NAME_MESSAGE = 'must be a variable name: 1 to 64 letters, digits or _, not starting with a digit';

/** A key under which an activity stores its result in the session data. */
function key(name: string, defaultValue?: string, description?: string): InputSpec {
  return {
    name,
    type: 'S',
    required: true,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    pattern: VARIABLE_NAME,
    patternMessage: VARIABLE_NAME_MESSAGE,
    ...(description ? { description } : {}),
  };
}

function s(name: string, required: boolean, defaultValue?: string, description?: string): InputSpec {
  return {
    name,
    type: 'S',
    required,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    ...(description ? { description } : {}),
  };
}

const userExternalId = s('User External ID', false, undefined, 'Look the user up by external ID.');
const userId = s('User ID', false, undefined, 'Look the user up by user ID.');
const userKeyDefault = key('User Key', 'user1', 'Where the user is kept in the session (vars.{User Key}).');
const storeName = s('Store Name', true, undefined, 'The identity store.');

export const CATALOGUE: readonly ActivitySpec[] = [
  {
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
      userKeyDefault,
    ],
    rules: [{ kind: 'groups', groups: [['User ID'], ['User External ID']], min: 0, max: 1 }],
    outputs: [
      {
        name: 'Passcode registration',
        variable: 'vars.{Passcode Registration Key}',
        description: 'Session id, passcode requirements and algorithm info for the passcode form.',
      },
    ],
    errorEvents: [],
  },
  {
    type: 'PASSCODE_AUTHENTICATION_FORM',
    displayName: 'Passcode Authentication Form',
    kind: 'user',
    description:
      "Shows the passcode screen. With Starting Component ID passcode-registration (the default) the end user chooses a passcode, checked against the policy's requirements as it is typed, and the browser sends only its SRP verifier (for Complete Passcode Registration); with passcode-authentication the browser proves the passcode of a Start Passcode Authentication with the SRP handshake. The passcode never leaves the device. The data form name and version are recorded with the submission; the screen itself is the service's own.",
    inputs: [
      s('Data form name', true),
      { name: 'Data form version', type: 'I', required: true, default: 1, min: 1 },
      key('Form data Key', 'passcodeRegForm1', 'Where the submitted form data is kept.'),
      key('Passcode Registration Key', 'passcodeReg1'),
      s('Starting Component ID', true, 'passcode-registration'),
      s('UI Component ID', true, 'passcode-registration'),
      stepTimeout,
    ],
    rules: [],
    outputs: [{ name: 'Form data', variable: 'vars.{Form data Key}' }],
    errorEvents: [],
  },
  {
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
      userKeyDefault,
    ],
    rules: [{ kind: 'groups', groups: [['User ID'], ['User External ID']], min: 0, max: 1 }],
    outputs: [{ name: 'Passcode authentication', variable: 'vars.{Passcode Registration Key}', description: 'The session id, store, policy and user.' }],
    errorEvents: [],
  },
  {
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
  },
  {
    type: 'DEREGISTER_PASSCODE',
    displayName: 'Deregister Passcode',
    kind: 'service',
    description: "Removes a user's passcode registration under a passcode policy.",
    inputs: [
      s('Passcode Policy', true, 'passcodeAuth1'),
      storeName,
      userExternalId,
      userId,
      userKeyDefault,
    ],
    rules: [{ kind: 'groups', groups: [['User ID'], ['User External ID']], min: 0, max: 1 }],
    outputs: [],
    errorEvents: [],
  },
  {
    type: 'ADD_USER',
    displayName: 'Add User',
    kind: 'service',
    description: 'Adds a user with an external ID to an identity store and keeps it under User Key.',
    inputs: [
      s('External ID', true, undefined, "The user's external ID; unique in the store."),
      storeName,
      userKeyDefault,
    ],
    rules: [],
    outputs: [{ name: 'User', variable: 'vars.{User Key}' }],
    errorEvents: [
      { name: 'Failed to add the user', aslError: 'AddUserFailed' },
      { name: 'ExtId Not Unique', aslError: 'ExtIdNotUnique', description: 'A user with this external ID exists.' },
    ],
  },
  {
    type: 'GET_USER',
    displayName: 'Get User',
    kind: 'service',
    description: 'Looks a user up by User ID or User External ID and keeps it under User Key.',
    inputs: [storeName, userExternalId, userId, userKeyDefault],
    rules: [{ kind: 'groups', groups: [['User ID'], ['User External ID']], min: 1, max: 1 }],
    outputs: [{ name: 'User', variable: 'vars.{User Key}' }],
    errorEvents: [],
  },
  {
    type: 'ARCHIVE_PROCESS_INSTANCE',
    displayName: 'Archive Process Instance',
    kind: 'service',
    description: 'Archives the instance under an archive policy, extending its retention.',
    inputs: [
      s('Archive Key', true, 'archiveKey1', 'Identifies the archive attempt.'),
      s('Archive Policy Name', true),
      { name: 'Archive Policy Version', type: 'I', required: true, min: 1 },
      { name: 'Cloud Secrets', type: 'L', required: false },
      { name: 'Process Variables', type: 'L', required: false },
    ],
    rules: [],
    outputs: [],
    errorEvents: [{ name: 'Configuration Exception', aslError: 'ArchiveConfigurationException' }],
  },
  {
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
        aslError: 'NoValidDestinationsAvailable',
        description: 'For example the notification expired.',
      },
      {
        name: 'No Destinations Available',
        aslError: 'NoDestinationsAvailable',
        description: 'No Appkey registered for the user and device.',
      },
      { name: 'Other Error', aslError: 'PushNotificationOtherError' },
    ],
  },
  {
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
      { name: 'Push Notification Process Failed', aslError: 'PushProcessFailed' },
      { name: 'Push Notification Process Timed Out', aslError: 'PushProcessTimedOut' },
      {
        name: 'Timeout',
        aslError: 'PushWaitTimeout',
        alsoCatches: ['States.Timeout'],
        description: 'Polling failed more often than the retry count allows, or the step timeout passed.',
      },
      { name: 'Other Error', aslError: 'PushWaitOtherError' },
    ],
  },
  {
    type: 'EXTERNAL_SOURCE_FACE_UPLOAD_V1',
    displayName: 'External Source Face Upload v1',
    kind: 'service',
    description:
      'Makes a pre-signed upload URL for a face image from outside the journey; the URL goes to the process variable named by Output Variable and its headers to {Output Variable}_headers.',
    inputs: [
      key('Image Key', undefined, 'The image key (as in processInstanceInit.externalSources.faceUploads).'),
      { name: 'Image Format', type: 'S', required: false, default: 'JPEG', enum: ['JPEG', 'PNG'] },
      key('Output Variable', 'uploadURL'),
    ],
    rules: [],
    outputs: [
      { name: 'Upload URL', variable: 'vars.{Output Variable}' },
      { name: 'Upload headers', variable: 'vars.{Output Variable}_headers' },
    ],
    errorEvents: [],
  },
  {
    type: 'EXECUTE_CLOUD_FUNCTION_V2',
    displayName: 'Execute Cloud Function v2',
    kind: 'service',
    description: 'Runs a tenant cloud function with the named process variables (for example uploadURL and uploadURL_headers).',
    inputs: [
      s('Function Name', true),
      { name: 'Function Version', type: 'I', required: true, min: 1 },
      { name: 'Process Variables', type: 'L', required: false },
    ],
    rules: [],
    outputs: [],
    errorEvents: [],
  },
  {
    type: 'EXTERNAL_SOURCE_FACE_MATCH_V1',
    displayName: 'External Source Face Match v1',
    kind: 'service',
    description: 'Matches the externally uploaded face image against the live face captured in the instance.',
    inputs: [
      key('External Image Key', undefined, 'The image key of the external upload.'),
      key('Live Face Key', 'face1', 'The Face Key of the Capture Face Image step.'),
      {
        name: 'Max Attempts',
        type: 'I',
        required: false,
        default: 3,
        min: 1,
        max: 100,
        description: 'Failed attempts beyond this raise "Exceed face match count".',
      },
    ],
    rules: [],
    outputs: [{ name: 'Face match check', variable: '_checks.faceMatch' }],
    errorEvents: [
      {
        name: 'Exceed face match count',
        aslError: 'FaceMatchCountExceeded',
        description: 'Failed attempts exceed Max Attempts.',
      },
      { name: 'Failed face to face match', aslError: 'FaceMatchFailed' },
      { name: 'Failed face template generation', aslError: 'FaceTemplateGenerationFailed' },
    ],
  },
  {
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
      userKeyDefault,
      stepTimeout,
    ],
    rules: [{ kind: 'groups', groups: [['User ID'], ['User External ID']], min: 0, max: 1 }],
    outputs: [
      { name: 'Passkey', variable: 'vars.{Passkey Key}', description: 'The passkey id, credential id and user id.' },
      { name: 'Passkey registration check', variable: '_checks.{Passkey Key}', description: '{result: "PASS"} once registered.' },
    ],
    errorEvents: [],
  },
  {
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
    rules: [{ kind: 'groups', groups: [['User ID'], ['User External ID']], min: 0, max: 1 }],
    outputs: [{ name: 'Passkey authentication check', variable: '_checks.{Passkey Key}', description: '{result: "PASS"} once a passkey of the user is proved.' }],
    errorEvents: [],
  },
  {
    type: 'CAPTURE_FACE_IMAGE',
    displayName: 'Capture Face Image',
    kind: 'user',
    description: "Captures the end user's live face image.",
    inputs: [key('Face Key', 'face1', 'Where the capture and its check are kept.'), stepTimeout],
    rules: [],
    outputs: [
      { name: 'Face captures', variable: '_faces.{Face Key}.captures' },
      { name: 'Face capture check', variable: '_checks.{Face Key}', description: '{result: "PASS" | "FAIL" | "REVIEW", ...}' },
    ],
    errorEvents: [],
  },
  {
    type: 'SIMPLE_DECIDER',
    displayName: 'Simple Decider',
    kind: 'decider',
    description:
      'The final decision of an instance from its results or error events: ordered rules, the first that holds gives PASS, FAIL or REVIEW, else the default. It ends the journey.',
    inputs: [],
    rules: [],
    outputs: [{ name: 'Decision', variable: '_decision' }],
    errorEvents: [],
  },
  {
    type: 'DATA_FORM',
    displayName: 'Data Form',
    kind: 'user',
    description: 'Shows a data form (carried inline in the Form input) and keeps the submitted data.',
    inputs: [
      { name: 'Form', type: 'F', required: true, description: 'The data form JSON itself (inline).' },
      key('Form data Key', 'form1', 'Where the submitted form data is kept.'),
      stepTimeout,
    ],
    rules: [],
    outputs: [{ name: 'Form data', variable: 'vars.{Form data Key}' }],
    errorEvents: [],
  },
];

export const ACTIVITY_TYPES = CATALOGUE.map((a) => a.type);

const BY_TYPE = new Map(CATALOGUE.map((a) => [a.type, a]));

export function activitySpec(type: string): ActivitySpec | undefined {
  return BY_TYPE.get(type);
}

/** Activity type → error event name → ASL error name. */
export const ERROR_EVENT_ASL_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.fromEntries(
  CATALOGUE.filter((a) => a.errorEvents.length > 0).map((a) => [
    a.type,
    Object.fromEntries(a.errorEvents.map((e) => [e.name, e.aslError])),
  ]),
);

/** The ASL error name of an activity type's error event, or undefined when it has no such event. */
export function aslErrorName(type: string, eventName: string): string | undefined {
  return activitySpec(type)?.errorEvents.find((e) => e.name === eventName)?.aslError;
}

/** Every error an activity may raise to take an error route, sorted, each once. */
export function listErrorNames(): string[] {
  return [...new Set(CATALOGUE.flatMap((a) => a.errorEvents.map((e) => e.aslError)))].sort();
}
