import { findUser, userView } from '../identity-store/users/users.js';
import { withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { userOf } from './identity.js';
import { spec } from './specs/get-user.js';

export const aws = { table: ['GetItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, deps: { identityStores } }) => {
  const { user } = await findUser(identityStores, tenantId, inputs['Store Name'], userOf(spec, inputs, session));
  return withVar(session, inputs['User Key'], userView(user));
};
