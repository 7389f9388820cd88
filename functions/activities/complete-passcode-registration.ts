import { readJson } from '../shared/json.js';
import { completePasscodeRegistration } from '../identity-store/passcodes/passcodes.js';
import { ActivityError, withCheck, type ActivityAccess, type ServiceRun , activityError } from './contract.js';
import { key, s } from './spec.js';
import { own } from '../shared/own.js';
import { spec } from './specs/complete-passcode-registration.js';

/** Reads the session and the user; writes the passcode, the user and the event, deletes the session. */
export const aws = { table: ['GetItem', 'PutItem', 'DeleteItem'] } as const satisfies ActivityAccess;

export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, actor, now, deps: { identityStores } }) => {
  const key = inputs['Passcode Registration Key'];
  const registration = own(session.vars, key) as { storeName?: string; algorithmInfo?: { parameters?: { i?: string } } } | undefined;
  const sessionId = registration?.algorithmInfo?.parameters?.i;
  if (!registration?.storeName || !sessionId) {
    throw activityError(spec, 'PasscodeRegistrationNotFound', `No passcode registration is kept under ${key}: run Start Passcode Registration first.`);
  }
  // The verifier: what the passcode form kept on the registration session, or (a custom
  // client) the Passcode Registration Browser Response input, `{verifier, historyVerifiers?}`.
  const given = browserResponse(inputs['Passcode Registration Browser Response']);
  const done = await completePasscodeRegistration(identityStores, {
    tenantId,
    storeName: registration.storeName,
    sessionId,
    verifier: typeof given?.verifier === 'string' ? given.verifier : undefined,
    historyVerifiers: Array.isArray(given?.historyVerifiers) ? given.historyVerifiers.map(String) : undefined,
    actor,
    now,
  });
  return withCheck(session, key, { result: 'PASS', checkType: 'PASSCODE_REGISTRATION', userId: done.user.id });
};

/** `{verifier, historyVerifiers?}` from the input's JSON; anything else gives nothing. */
function browserResponse(value: string | undefined): { verifier?: unknown; historyVerifiers?: unknown } | undefined {
  if (!value) return undefined;
  const read = readJson(value);
  return read.ok && read.value && typeof read.value === 'object' ? (read.value as { verifier?: unknown; historyVerifiers?: unknown }) : undefined;
}
