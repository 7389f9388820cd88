/**
 * The stores and engines of the activity function: what its entry point (lambda.ts) gives every
 * run and begin function through its context. Activity modules never import a store; this file
 * is the one place the activity function's storage is put together.
 */
import { cloudFunctionLogs, cloudFunctions, cloudSecrets, runner, secretSealer } from '../cloud-functions/deps.js';
import { faceCaptureKey, faceTemplateKey, faceUploadKey, faces, images, thumbnail, watchlists } from '../faces/deps.js';
import { identityStores } from '../identity-store/deps.js';
import { customDataForms, instances, pauses, reviews } from '../process-manager/deps.js';
import { outbox, webhooks } from '../webhooks/deps.js';
import { customPageStore } from '../store/custom-pages.js';
import { documentEngine, documentServices } from '../documents/deps.js';
import { objectKeys } from '../store/keys.js';
import type { ActivityDeps } from './contract.js';

export const activityDeps: ActivityDeps = {
  identityStores,
  customDataForms,
  customPages: customPageStore,
  cloudFunctions,
  cloudSecrets,
  cloudFunctionLogs,
  secretSealer,
  functionRunner: runner,
  faces,
  documents: documentEngine,
  documentServices,
  watchlists,
  images,
  instances,
  faceCaptureKey,
  faceTemplateKey,
  documentCaptureKey: objectKeys.documentCapture,
  faceUploadKey,
  thumbnail,
  webhooks,
  outbox,
  // The instance as the review steps read it and write its status REVIEW, and its review.
  reviews: { get: instances.get, setStatus: instances.setStatus, requireReview: reviews.requireReview },
  pauses,
};
