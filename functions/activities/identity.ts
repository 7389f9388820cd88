/**
 * What the identity store's activities share: the store's storage as the domain functions take
 * it, the user a step means, and the actor its events name.
 */
import { userRefFrom, type UserRef } from '../identity-store/users.js';
import { ActivityError, type Session } from './contract.js';

export { identityStores } from '../identity-store/deps.js';

/**
 * The user a step means: the user kept under User Key, else User ID, else User External ID
 * (see userRefFrom). None of them is a named error the step fails with.
 */
export function userOf(inputs: { readonly 'User Key'?: string | undefined; readonly 'User ID'?: string | undefined; readonly 'User External ID'?: string | undefined }, session: Session): UserRef {
  const ref = userRefFrom(inputs, session.vars);
  if (!ref) throw new ActivityError('UserNotGiven', 'No user: none is kept under the User Key, and neither User ID nor User External ID is given.');
  return ref;
}
