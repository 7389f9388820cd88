import { startPasscodeRegistration } from '../identity-store/passcodes/passcodes.js';
import { withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { userOf } from './identity.js';
import { storeName } from './spec.js';
import { spec } from './specs/start-passcode-registration.js';

/** Reads the store and the user, writes the registration session. */
export const aws = { table: ['GetItem', 'PutItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, now, deps: { identityStores } }) => {
  const started = await startPasscodeRegistration(identityStores, {
    tenantId,
    storeName: inputs['Store Name'],
    user: userOf(spec, inputs, session),
    policyName: inputs['Passcode Key'],
    now,
  });
  return withVar(session, inputs['Passcode Registration Key'], { ...started, storeName: inputs['Store Name'], policyName: inputs['Passcode Key'] });
};
