/**
 * Example process definitions, as JSON a client would send. `identity-check`: a data form, a
 * face capture and a decision. `passcode-registration`: a known user registers a passcode.
 * `selfie-match`: a face capture matched against a reference photo the relying party uploads.
 * `onboarding.bpmn`: the family's BPMN (gateways, a retake loop, a timer, error routes), with
 * its data form `onboarding-details`.
 */
import identityCheckJson from './identity-check.json' with { type: 'json' };
import passcodeRegistrationJson from './passcode-registration.json' with { type: 'json' };
import selfieMatchJson from './selfie-match.json' with { type: 'json' };
import passcodeRegistrationForm from './forms/passcode-registration.json' with { type: 'json' };
import passcodeLoginForm from './forms/passcode-login.json' with { type: 'json' };
import onboardingDetailsForm from './forms/onboarding-details.json' with { type: 'json' };
import welcomeContactForm from './forms/welcome-contact.json' with { type: 'json' };
import welcomePhoneForm from './forms/welcome-phone.json' with { type: 'json' };
import harbourTheme from './themes/harbour.json' with { type: 'json' };
import type { ProcessDefinition } from '../definition.js';
import { validateDefinition } from '../validate.js';

/** The raw JSON, keyed by definition name. */
export const EXAMPLES: Readonly<Record<string, unknown>> = {
  'identity-check': identityCheckJson,
  'passcode-registration': passcodeRegistrationJson,
  'selfie-match': selfieMatchJson,
};

export const identityCheck: unknown = identityCheckJson;
export const passcodeRegistration: unknown = passcodeRegistrationJson;

/**
 * The data forms the examples name by name and version (the Passcode Authentication Form's
 * `Data form name`), as a client uploads them to /api/process-manager/customDataForms:
 * `resource` is the form as a JSON string.
 */
export const EXAMPLE_FORMS: readonly { name: string; version: number; description: string; resource: string }[] = [
  { name: 'passcode-registration', version: 1, description: 'Frames the passcode registration screen.', resource: JSON.stringify(passcodeRegistrationForm) },
  { name: 'passcode-login', version: 1, description: 'Frames the passcode authentication screen.', resource: JSON.stringify(passcodeLoginForm) },
  { name: 'onboarding-details', version: 1, description: 'The details and confirmation steps of the onboarding example (BPMN).', resource: JSON.stringify(onboardingDetailsForm) },
  { name: 'welcome-contact', version: 1, description: 'The welcome example: the email address, the name filled in from its custom page.', resource: JSON.stringify(welcomeContactForm) },
  { name: 'welcome-phone', version: 1, description: 'The welcome example: the phone number, the name filled in from its custom page.', resource: JSON.stringify(welcomePhoneForm) },
];

/**
 * The example custom page (written for this service), uploaded as a bundle of these files: the
 * family's protocol (READY, PROCESS, SEND) in plain script, no dependency.
 */
export const EXAMPLE_PAGES: readonly { name: string; description: string; folder: URL; files: readonly string[] }[] = [
  { name: 'welcome', description: 'Asks what to call the end user and how to reach them (the welcome example).', folder: new URL('./pages/welcome/', import.meta.url), files: ['index.html', 'app.css', 'app.js'] },
];

/**
 * The example theme: its palette (checked for contrast like any), a logo, and a font, the Lato
 * the face engine's package installs (SIL Open Font License 1.1), taken from node_modules when the
 * runtime starts rather than kept here.
 */
export const EXAMPLE_THEMES: readonly {
  name: string;
  description: string;
  palette: Record<string, unknown>;
  assets: readonly { name: string; fileExtension: string; file: URL }[];
}[] = [
  {
    name: harbourTheme.name,
    description: harbourTheme.description,
    palette: harbourTheme.palette,
    assets: [
      { name: 'logo', fileExtension: 'svg', file: new URL('./themes/harbour-logo.svg', import.meta.url) },
      // Not among the package's exports: read from where npm installs it.
      { name: 'Lato', fileExtension: 'woff2', file: new URL('../../node_modules/@vladmandic/human/assets/lato-light.woff2', import.meta.url) },
    ],
  },
];

/**
 * The examples made in the family's BPMN dialect, as their files (published as the family's
 * deployment tools do: the file base64 in `resources.bpmn.data`, the name beside it).
 */
export const BPMN_EXAMPLES: readonly { name: string; description: string; file: URL; theme?: string }[] = [
  {
    name: 'onboarding',
    description: 'Details, a gateway on the document, a confirmation with a retake and a timer, a new user with an error route.',
    file: new URL('./onboarding.bpmn', import.meta.url),
  },
  {
    name: 'welcome',
    description: 'A custom page of the relying party (welcome), a gateway on what it sent, a data form it fills in; themed (harbour).',
    file: new URL('./welcome.bpmn', import.meta.url),
    theme: 'harbour',
  },
];

/** Every example, validated, with defaults applied. */
export function exampleDefinitions(): ProcessDefinition[] {
  return Object.values(EXAMPLES).map((json) => validateDefinition(structuredClone(json)));
}
