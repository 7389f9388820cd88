import { ApiError } from '../errors.js';
import { ExternalIdNotUniqueError, addUser, userView } from '../identity-store/users/users.js';
import { ActivityError, withVar, type ActivityAccess, type ServiceRun , activityError } from './contract.js';
import { isTransientError } from '../shared/aws-errors.js';
import { s, storeName } from './spec.js';
import { spec } from './specs/add-user.js';

/** The store read, then the user, its external id lock and the event in one transaction. */
export const aws = { table: ['GetItem', 'PutItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, actor, now, deps: { identityStores } }) => {
  const externalId = inputs['External ID'];
  if (!externalId) throw activityError(spec, 'AddUserFailed', 'The External ID is empty.');
  try {
    const user = await addUser(identityStores, { tenantId, storeName: inputs['Store Name'], externalId, actor, now });
    return withVar(session, inputs['User Key'], userView(user));
  } catch (err) {
    if (err instanceof ExternalIdNotUniqueError) {
      // Added by this very journey: a retried step whose first write went through unseen (its
      // answer was lost to a timeout), so the retry is not mistaken for a taken external id.
      const existing = await identityStores.users.get(tenantId, inputs['Store Name'], { externalId });
      if (existing?.createdBy === actor) return withVar(session, inputs['User Key'], userView(existing));
      // The message goes to the execution's history (`_lastError.Cause`): it names no value the journey was given.
      throw activityError(spec, 'ExtIdNotUnique', 'Another user of this store has the External ID this step was given.');
    }
    // A throttle or a timeout: Activity.Transient (run.ts), which the step's Task retries.
    if (isTransientError(err)) throw err;
    // The spec's other error event: any reason the user could not be added.
    // By the error's code only: a domain message may quote what the journey gave.
    throw activityError(spec, 'AddUserFailed', err instanceof ApiError ? `The user could not be added (${err.code}).` : 'The user could not be added.');
  }
};
