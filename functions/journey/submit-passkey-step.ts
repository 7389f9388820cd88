import { PASSKEY_STEPS } from '../activities/index.generated.js';
import { stepSubmissionHandler } from './submission.js';
import { journeyRoutes as routes } from './journey-routes.js';
import { identityStores } from '../identity-store/deps.js';

/** A passkey screen's submission (functions/activities/passkey-registration.ts, passkey-authentication.ts). */
export const handler = stepSubmissionHandler(routes.submitPasskeyStep, PASSKEY_STEPS, { identityStores });
