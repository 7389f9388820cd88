import { FACE_STEPS } from '../activities/index.generated.js';
import { stepSubmissionHandler } from './submission.js';
import { journeyRoutes as routes } from './journey-routes.js';
import { additionalDocumentObjectKey, documentCaptureObjectKey, faceCaptureObjectKey, faceLiveness, faceLivenessSessions, faces, images, livenessChallenges } from './deps.js';

/** An image sent to a Capture Face Image, Capture Document Image or Capture Additional Document v3 step (their modules in functions/activities judge it). */
export const handler = stepSubmissionHandler(routes.submitFaceCapture, FACE_STEPS, { faces, images, livenessChallenges, faceLiveness, faceLivenessSessions, faceCaptureKey: faceCaptureObjectKey, documentCaptureKey: documentCaptureObjectKey, additionalDocumentKey: additionalDocumentObjectKey });
