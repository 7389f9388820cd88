import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { apiHandler } from '../http/wrapper.js';
import { orchestrator } from '../process-manager/orchestrator.js';
import { identityStores } from '../identity-store/deps.js';
import { PasskeyVerificationError, completePasskeyAuthentication, completePasskeyRegistration } from '../identity-store/passkeys.js';
import type { CheckRecord } from '../process-manager/model.js';
import { openWaitingStep } from './access.js';
import { journeyUrl, passkeyScreen, screenOf } from './pages.js';
import { pickLanguage } from './render.js';
import { completeUserStep } from './steps.js';
import { journeyRoutes as routes } from './journey-routes.js';

/**
 * A passkey screen's submission: the ceremony completes (verified by @simplewebauthn/server
 * against the store's configuration for the relying party), the step ends with its check, and
 * the journey goes on. A response that cannot be verified gets the screen again (its button
 * starts a new ceremony).
 */
export const handler = apiHandler(routes.submitPasskeyStep, async ({ tenantId, path, query, body, now }) => {
  const lang = pickLanguage(query.lang);
  const { record, step } = await openWaitingStep(tenantId, { ...path, capability: query.c }, ['PASSKEY_REGISTRATION', 'PASSKEY_AUTHENTICATION'], now);
  const inputs = step.inputs as Record<string, unknown>;
  const storeName = String(inputs['Store Name']);
  const key = String(inputs['Passkey Key'] ?? 'passkey1');
  const register = step.activityType === 'PASSKEY_REGISTRATION';
  let response: unknown;
  try {
    response = JSON.parse(String(body.response ?? ''));
  } catch {
    response = undefined;
  }
  const common = { tenantId, storeName, sessionId: String(body.sessionId ?? ''), actor: `journey:${record.id}`, now };
  let done: { user: { id: string; externalId: string }; passkey: { id: string; credentialId: string } };
  try {
    if (!response || typeof response !== 'object' || !/^[0-9A-Z]{26}$/.test(common.sessionId)) throw new PasskeyVerificationError('No passkey response was sent.');
    done = register
      ? await completePasskeyRegistration(identityStores, { ...common, response: response as RegistrationResponseJSON })
      : await completePasskeyAuthentication(identityStores, { ...common, response: response as AuthenticationResponseJSON });
  } catch (err) {
    if (err instanceof PasskeyVerificationError || (err as { code?: string }).code === 'PASSKEY_SESSION_NOT_FOUND') {
      return { status: 400, raw: { contentType: 'text/html; charset=utf-8', body: passkeyScreen(screenOf(record, step, query.c, lang), true) } };
    }
    throw err;
  }
  const check: CheckRecord = {
    checkId: key,
    activityId: step.activityId,
    checkType: register ? 'PASSKEY_REGISTRATION' : 'PASSKEY_AUTHENTICATION',
    result: 'PASS',
    displayName: register ? 'Passkey registration' : 'Passkey authentication',
    description: register
      ? `The end user created a passkey for relying party ${String(inputs['Relying Party ID'])}.`
      : `The end user signed in with a passkey of relying party ${String(inputs['Relying Party ID'])}.`,
    checkedAt: now.toISOString(),
    reports: [],
  };
  const values = { passkeyId: done.passkey.id, credentialId: done.passkey.credentialId, userId: done.user.id };
  const userKey = typeof inputs['User Key'] === 'string' && inputs['User Key'] ? String(inputs['User Key']) : 'user1';
  await completeUserStep(
    {
      tenantId,
      processInstanceId: record.id,
      activityId: step.activityId,
      result: {
        vars: { [key]: values, ...(register ? {} : { [userKey]: done.user }) },
        _checks: { [key]: { result: 'PASS', checkType: check.checkType, displayName: check.displayName } },
      },
      values,
      dataKey: key,
      check,
      record,
    },
    await orchestrator(),
    now,
  );
  return { status: 303, headers: { location: journeyUrl(record, query.c, lang) } };
});
