import { FACE_STEPS } from '../activities/index.generated.js';
import { stepSubmissionHandler } from './submission.js';
import { journeyRoutes as routes } from './journey-routes.js';
import { faceCaptureObjectKey, faces, images } from './deps.js';

/** A face image sent to a Capture Face Image step (functions/activities/capture-face-image.ts judges it). */
export const handler = stepSubmissionHandler(routes.submitFaceCapture, FACE_STEPS, { faces, images, faceCaptureKey: faceCaptureObjectKey });
