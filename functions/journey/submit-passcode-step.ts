import { PASSCODE_STEPS } from '../activities/index.generated.js';
import { stepSubmissionHandler } from './submission.js';
import { journeyRoutes as routes } from './journey-routes.js';
import { identityStores } from '../identity-store/deps.js';

/** A passcode screen's submission (functions/activities/passcode-authentication-form.ts judges it). */
export const handler = stepSubmissionHandler(routes.submitPasscodeStep, PASSCODE_STEPS, { identityStores });
