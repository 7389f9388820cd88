/**
 * What the two passkey steps share: the screen (its button starts a ceremony, see
 * functions/journey/start-passkey-ceremony.ts) and the submission of the browser's response.
 */
import { readJson } from '../shared/json.js';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { PasskeyVerificationError, completePasskeyAuthentication, completePasskeyRegistration } from '../identity-store/passkeys/passkeys.js';
import { renderPasskey } from '../journey/screens/passkey.js';
import { journeyUrl, type ScreenContext } from '../journey/screen-context.js';
import type { CheckRecord } from '../process-manager/model.js';
import type { StepDeps, StepOutcome, SubmissionRequest } from './contract.js';

type Mode = 'register' | 'authenticate';

interface PasskeyInputs {
  readonly 'Store Name': string;
  readonly 'Relying Party ID': string;
  readonly 'Passkey Key': string;
  readonly 'User Key'?: string | undefined;
}

/**
 * A passkey screen. The ceremony starts when the end user presses its button: the page's script
 * asks `.../passkey/options` for a fresh, single-use challenge, so showing the page writes
 * nothing and the page itself carries no WebAuthn code.
 */
export function passkeyPage(view: ScreenContext, mode: Mode, failed = false): string {
  return renderPasskey({
    lang: view.lang,
    mode,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'passkey'),
    optionsUrl: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'passkey/options'),
    failed,
    chrome: view.chrome,
  });
}

/**
 * The ceremony completes (verified by @simplewebauthn/server against the store's configuration
 * for the relying party) and the step ends with its check. A response that cannot be verified
 * gets the screen again (its button starts a new ceremony).
 */
export async function submitPasskey(view: ScreenContext & { inputs: PasskeyInputs; deps: Pick<StepDeps, 'identityStores'> }, mode: Mode, { body = {} }: SubmissionRequest, now: Date): Promise<StepOutcome> {
  const { record, step, inputs } = view;
  const register = mode === 'register';
  const read = readJson(String(body.response ?? ''));
  const response = read.ok ? read.value : undefined;
  const common = { tenantId: record.tenantId, storeName: inputs['Store Name'], sessionId: String(body.sessionId ?? ''), actor: `journey:${record.id}`, now };
  let done: { user: { id: string; externalId: string }; passkey: { id: string; credentialId: string } };
  try {
    if (!response || typeof response !== 'object' || !/^[0-9A-Z]{26}$/.test(common.sessionId)) throw new PasskeyVerificationError('No passkey response was sent.');
    done = register
      ? await completePasskeyRegistration(view.deps.identityStores, { ...common, response: response as RegistrationResponseJSON })
      : await completePasskeyAuthentication(view.deps.identityStores, { ...common, response: response as AuthenticationResponseJSON });
  } catch (err) {
    if (err instanceof PasskeyVerificationError || (err as { code?: string }).code === 'PASSKEY_SESSION_NOT_FOUND') return { page: passkeyPage(view, mode, true) };
    throw err;
  }
  const key = inputs['Passkey Key'];
  const rpId = inputs['Relying Party ID'];
  const check: CheckRecord = {
    checkId: key,
    activityId: step.activityId,
    checkType: register ? 'PASSKEY_REGISTRATION' : 'PASSKEY_AUTHENTICATION',
    result: 'PASS',
    displayName: register ? 'Passkey registration' : 'Passkey authentication',
    description: register ? `The end user created a passkey for relying party ${rpId}.` : `The end user signed in with a passkey of relying party ${rpId}.`,
    checkedAt: now.toISOString(),
    reports: [],
  };
  const values = { passkeyId: done.passkey.id, credentialId: done.passkey.credentialId, userId: done.user.id };
  // A discoverable sign-in learns who the user is: kept under User Key (user1 when none is named).
  const userKey = inputs['User Key'] || 'user1';
  return {
    complete: {
      result: {
        vars: { [key]: values, ...(register ? {} : { [userKey]: done.user }) },
        _checks: { [key]: { result: 'PASS', checkType: check.checkType, displayName: check.displayName } },
      },
      values,
      dataKey: key,
      check,
    },
  };
}
