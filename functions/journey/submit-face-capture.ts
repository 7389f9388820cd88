import { FACE_STEPS } from '../activities/index.generated.js';
import { stepSubmissionHandler } from './submission.js';
import { journeyRoutes as routes } from './journey-routes.js';
import { documentCaptureObjectKey, faceCaptureObjectKey, faces, images } from './deps.js';

/** An image sent to a Capture Face Image or Capture Document Image step (functions/activities/capture-face-image.ts and capture-document-image.ts judge it). */
export const handler = stepSubmissionHandler(routes.submitFaceCapture, FACE_STEPS, { faces, images, faceCaptureKey: faceCaptureObjectKey, documentCaptureKey: documentCaptureObjectKey });
