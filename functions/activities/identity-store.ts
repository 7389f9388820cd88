import { ApiError } from '../errors.js';
import { identityStores } from '../identity-store/deps.js';
import { completePasscodeRegistration, deregisterPasscode, startPasscodeLogin, startPasscodeRegistration } from '../identity-store/passcodes.js';
import { ExternalIdNotUniqueError, addUser, findUser, userRefFrom, userView, type UserRef } from '../identity-store/users.js';
import { resolveInputs } from '../../statemachines/references.js';
import type { InputValue } from '../../statemachines/definition.js';

/** What the state machine hands a service activity (the compiler's payload). */
export interface ServicePayload {
  activityId: string;
  activityType: string;
  inputs: Record<string, InputValue>;
  state: Session;
}

type Session = Record<string, unknown> & {
  instance: { tenantId: string; processInstanceId: string };
  vars?: Record<string, unknown>;
  _checks?: Record<string, unknown>;
};

/**
 * An activity's failure under an ASL error name: an error boundary event of the activity
 * catches it by that name (`ExtIdNotUnique`); one no event catches fails the execution, which
 * ends the instance COMPLETED_PROCESS_ERROR with the name and message recorded.
 */
export class ActivityError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

/** An ApiError from the domain, renamed for the state machine: `STORE_NOT_FOUND` → `StoreNotFound`. */
function asActivityError(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const name = err.code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
  return new ActivityError(name, err.message);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The user an activity means (see userRefFrom); User Key defaults to user1 here. */
function userRef(inputs: Record<string, unknown>, state: Session): UserRef {
  const ref = userRefFrom({ 'User Key': 'user1', ...inputs }, state.vars);
  if (!ref) throw new ActivityError('UserNotGiven', 'No user: none is kept under the User Key, and neither User ID nor User External ID is given.');
  return ref;
}

function withVar(state: Session, key: string, value: unknown): Session {
  return { ...state, vars: { ...(state.vars ?? {}), [key]: value } };
}

/** Runs a service activity; a domain error fails the step under its stable name (see asActivityError). */
export async function runServiceActivity(run: (p: ServicePayload, now: Date) => Promise<Session>, payload: ServicePayload, now: Date): Promise<Session> {
  try {
    return await run(payload, now);
  } catch (err) {
    throw asActivityError(err);
  }
}

/** The identity store's service activities. Each returns the whole new session state. */
export const IDENTITY_ACTIVITIES: Record<string, (p: ServicePayload, now: Date) => Promise<Session>> = {
  async ADD_USER({ inputs: raw, activityType, state }, now) {
    const inputs = resolveInputs(activityType, raw, state);
    const storeName = String(inputs['Store Name']);
    const externalId = str(inputs['External ID']);
    if (!externalId) throw new ActivityError('AddUserFailed', 'The External ID is empty.');
    try {
      const user = await addUser(identityStores, { tenantId: state.instance.tenantId, storeName, externalId, actor: actorOf(state), now });
      return withVar(state, String(inputs['User Key'] ?? 'user1'), userView(user));
    } catch (err) {
      if (err instanceof ExternalIdNotUniqueError) throw new ActivityError('ExtIdNotUnique', err.message);
      // The spec's other error event: any reason the user could not be added.
      throw new ActivityError('AddUserFailed', err instanceof ApiError ? err.message : 'The user could not be added.');
    }
  },

  async GET_USER({ inputs: raw, activityType, state }, now) {
    void now;
    const inputs = resolveInputs(activityType, raw, state);
    const { user } = await findUser(identityStores, state.instance.tenantId, String(inputs['Store Name']), userRef(inputs, state));
    return withVar(state, String(inputs['User Key'] ?? 'user1'), userView(user));
  },

  async START_PASSCODE_REGISTRATION({ inputs: raw, activityType, state }, now) {
    const inputs = resolveInputs(activityType, raw, state);
    const started = await startPasscodeRegistration(identityStores, {
      tenantId: state.instance.tenantId,
      storeName: String(inputs['Store Name']),
      user: userRef(inputs, state),
      policyName: String(inputs['Passcode Key']),
      now,
    });
    return withVar(state, String(inputs['Passcode Registration Key'] ?? 'passcodeReg1'), {
      ...started,
      storeName: String(inputs['Store Name']),
      policyName: String(inputs['Passcode Key']),
    });
  },

  async COMPLETE_PASSCODE_REGISTRATION({ inputs: raw, activityType, state }, now) {
    const inputs = resolveInputs(activityType, raw, state);
    const key = String(inputs['Passcode Registration Key'] ?? 'passcodeReg1');
    const registration = state.vars?.[key] as { storeName?: string; algorithmInfo?: { parameters?: { i?: string } } } | undefined;
    const sessionId = registration?.algorithmInfo?.parameters?.i;
    if (!registration?.storeName || !sessionId) {
      throw new ActivityError('PasscodeRegistrationNotFound', `No passcode registration is kept under ${key}: run Start Passcode Registration first.`);
    }
    // The verifier: what the passcode form kept on the registration session, or (a custom
    // client) the Passcode Registration Browser Response input, `{verifier, historyVerifiers?}`.
    const given = inputs['Passcode Registration Browser Response'] as { verifier?: unknown; historyVerifiers?: unknown } | undefined;
    const done = await completePasscodeRegistration(identityStores, {
      tenantId: state.instance.tenantId,
      storeName: registration.storeName,
      sessionId,
      verifier: typeof given?.verifier === 'string' ? given.verifier : undefined,
      historyVerifiers: Array.isArray(given?.historyVerifiers) ? given.historyVerifiers.map(String) : undefined,
      actor: actorOf(state),
      now,
    });
    return { ...state, _checks: { ...(state._checks ?? {}), [key]: { result: 'PASS', checkType: 'PASSCODE_REGISTRATION', userId: done.user.id } } };
  },

  async START_PASSCODE_AUTHENTICATION({ inputs: raw, activityType, state }, now) {
    const inputs = resolveInputs(activityType, raw, state);
    const started = await startPasscodeLogin(identityStores, {
      tenantId: state.instance.tenantId,
      storeName: String(inputs['Store Name']),
      user: userRef(inputs, state),
      policyName: String(inputs['Passcode Policy'] ?? 'passcodeAuth1'),
      now,
    });
    return withVar(state, String(inputs['Passcode Registration Key'] ?? 'passcodeReg1'), { authentication: started });
  },

  async DEREGISTER_PASSCODE({ inputs: raw, activityType, state }, now) {
    const inputs = resolveInputs(activityType, raw, state);
    const done = await deregisterPasscode(identityStores, {
      tenantId: state.instance.tenantId,
      storeName: String(inputs['Store Name']),
      user: userRef(inputs, state),
      policyName: String(inputs['Passcode Policy'] ?? 'passcodeAuth1'),
      actor: actorOf(state),
      now,
    });
    return withVar(state, String(inputs['User Key'] ?? 'user1'), done.user);
  },
};

/** Events a journey causes name the journey. */
function actorOf(state: Session): string {
  return `journey:${state.instance.processInstanceId}`;
}
