import { startPasscodeLogin } from '../identity-store/passcodes/passcodes.js';
import { withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { userOf } from './identity.js';
import { storeName } from './spec.js';
import { spec } from './specs/start-passcode-authentication.js';

/** Reads the store, the user and the passcode, writes the login session. */
export const aws = { table: ['GetItem', 'PutItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, now, deps: { identityStores } }) => {
  const started = await startPasscodeLogin(identityStores, {
    tenantId,
    storeName: inputs['Store Name'],
    user: userOf(spec, inputs, session),
    policyName: inputs['Passcode Policy'],
    now,
  });
  return withVar(session, inputs['Passcode Registration Key'], { authentication: started });
};
