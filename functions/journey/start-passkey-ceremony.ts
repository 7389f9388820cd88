import { apiHandler } from '../http/wrapper.js';
import { identityStores } from '../identity-store/deps.js';
import { startPasskeyAuthentication, startPasskeyRegistration } from '../identity-store/passkeys/passkeys.js';
import { userRefFrom } from '../identity-store/users/users.js';
import { openWaitingStep } from './access.js';
import { StepNotWaitingError } from './steps.js';
import { journeyRoutes as routes } from './journey-routes.js';

/**
 * Starts the ceremony of the passkey step the journey waits at: for the user the step names
 * or, for an authentication without one, discoverable. Each call makes a new single-use
 * challenge; the screen posts the browser's response with the ceremony's id.
 */
export const handler = apiHandler(routes.startPasskeyCeremony, async ({ tenantId, path, query, now }) => {
  const { record, step } = await openWaitingStep(tenantId, { ...path, capability: query.c }, ['PASSKEY_REGISTRATION', 'PASSKEY_AUTHENTICATION'], now);
  // Resolved when the step began: the policies' defaults are there.
  const inputs = step.inputs;
  const user = userRefFrom(inputs, (step.state.vars ?? {}) as Record<string, unknown>);
  const common = { tenantId: record.tenantId, storeName: String(inputs['Store Name']), rpId: String(inputs['Relying Party ID']), now };
  if (step.activityType === 'PASSKEY_REGISTRATION') {
    if (!user) throw new StepNotWaitingError('This passkey registration names no user.');
    const started = await startPasskeyRegistration(identityStores, { ...common, policyName: String(inputs['Registration Policy']), user });
    return { status: 200, body: { sessionId: started.sessionId, publicKey: started.publicKey } };
  }
  const started = await startPasskeyAuthentication(identityStores, { ...common, policyName: String(inputs['Authentication Policy']), ...(user ? { user } : {}) });
  return { status: 200, body: { sessionId: started.sessionId, publicKey: started.publicKey } };
});
