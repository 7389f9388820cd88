/**
 * What the identity store's activities share: the store's storage as the domain functions take
 * it, the user a step means, and the actor its events name.
 */
import { userRefFrom, type UserRef } from '../identity-store/users/users.js';
import { activityError, type Session } from './contract.js';
import type { ActivitySpec, ErrorNameOf } from './spec.js';


/**
 * The user a step means: the user kept under User Key, else User ID, else User External ID
 * (see userRefFrom). None of them is a named error the step fails with, which the step's spec
 * must declare among its `failures`.
 */
export function userOf<S extends ActivitySpec>(spec: 'UserNotGiven' extends ErrorNameOf<S> ? S : never, inputs: { readonly 'User Key'?: string | undefined; readonly 'User ID'?: string | undefined; readonly 'User External ID'?: string | undefined }, session: Session): UserRef {
  const ref = userRefFrom(inputs, session.vars);
  if (!ref) throw activityError(spec, 'UserNotGiven' as ErrorNameOf<S>, 'No user: none is kept under the User Key, and neither User ID nor User External ID is given.');
  return ref;
}
