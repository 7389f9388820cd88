/**
 * Example process definitions, as JSON a client would send. `identity-check`: a data form, a
 * face capture and a decision. `passcode-registration`: a known user registers a passcode.
 */
import identityCheckJson from './identity-check.json' with { type: 'json' };
import passcodeRegistrationJson from './passcode-registration.json' with { type: 'json' };
import type { ProcessDefinition } from '../definition.js';
import { validateDefinition } from '../validate.js';

/** The raw JSON, keyed by definition name. */
export const EXAMPLES: Readonly<Record<string, unknown>> = {
  'identity-check': identityCheckJson,
  'passcode-registration': passcodeRegistrationJson,
};

export const identityCheck: unknown = identityCheckJson;
export const passcodeRegistration: unknown = passcodeRegistrationJson;

/** Every example, validated, with defaults applied. */
export function exampleDefinitions(): ProcessDefinition[] {
  return Object.values(EXAMPLES).map((json) => validateDefinition(structuredClone(json)));
}
