import { startPasscodeRegistration } from '../identity-store/passcodes.js';
import { withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { identityStores, userOf } from './identity.js';
import { key, oneUserLookup, s, storeName, userExternalId, userId, userKey, type ActivitySpec } from './spec.js';

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
} as const satisfies ActivitySpec;

export const aliases = ['startPasscodeRegistrationV1'] as const;

/** Reads the store and the user, writes the registration session. */
export const aws = { table: ['GetItem', 'PutItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, now }) => {
  const started = await startPasscodeRegistration(identityStores, {
    tenantId,
    storeName: inputs['Store Name'],
    user: userOf(inputs, session),
    policyName: inputs['Passcode Key'],
    now,
  });
  return withVar(session, inputs['Passcode Registration Key'], { ...started, storeName: inputs['Store Name'], policyName: inputs['Passcode Key'] });
};
