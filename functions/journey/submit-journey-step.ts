import { FORM_STEPS } from '../activities/index.generated.js';
import { stepSubmissionHandler } from './submission.js';
import { journeyRoutes as routes } from './journey-routes.js';

/** A data form step's page posted (functions/activities/data-form.ts judges it). */
export const handler = stepSubmissionHandler(routes.submitJourneyStep, FORM_STEPS, {});
