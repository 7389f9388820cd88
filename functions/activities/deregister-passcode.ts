import { deregisterPasscode } from '../identity-store/passcodes/passcodes.js';
import { withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { userOf } from './identity.js';
import { storeName } from './spec.js';
import { spec } from './specs/deregister-passcode.js';

/** Reads the store, the user and the passcode; retires the passcode and writes the user and the event (puts, in one transaction). */
export const aws = { table: ['GetItem', 'PutItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, actor, now, deps: { identityStores } }) => {
  const done = await deregisterPasscode(identityStores, {
    tenantId,
    storeName: inputs['Store Name'],
    user: userOf(spec, inputs, session),
    policyName: inputs['Passcode Policy'],
    actor,
    now,
  });
  return withVar(session, inputs['User Key'], done.user);
};
